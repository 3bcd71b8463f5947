"""The thin click layer: each command parses, calls one function, prints.

`main` is the `arena` command: `arena --version` is answered before click and the commands
load (they cost more than Python's own start), every other line goes to `main.cli`."""

from __future__ import annotations

import sys

VERSION = "%(prog)s, version %(version)s"
"""How `arena --version` says the version (click's words, which `main.cli` prints too)."""


def main() -> None:
    """Run the `arena` command line."""
    if sys.argv[1:] == ["--version"]:
        from arena import __version__

        print(VERSION % {"prog": "arena", "version": __version__})
        return
    from arena.cli.main import cli

    cli()
