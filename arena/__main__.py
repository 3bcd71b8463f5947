"""`python -m arena` runs the command line."""

from arena.cli.main import main

main()
