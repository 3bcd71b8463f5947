"""The odds of a claim: exact probability tables of hands (probability, rank_counts) and what
a seat remembers of a round (memory). The built-in bots decide with them and the report tells
each claim's chance by them. Pure: no I/O, no clocks, no random numbers."""
