"""The formats of a tournament: what is played next given the results so far."""
