"""Where a bot runs: inline in the referee's process, behind the trusted launcher in a
process of its own, or as a command speaking the JSON-lines protocol; and the wire forms.
Nothing here reads YAML, configs or tournaments."""
