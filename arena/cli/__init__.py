"""The thin click layer: each command parses, calls one function, prints."""
