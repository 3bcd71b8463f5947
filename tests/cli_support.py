"""What the CLI tests share: invoking `arena` in this process, and writing a config file."""

from __future__ import annotations

import textwrap
from pathlib import Path

from click.testing import CliRunner, Result

from arena.cli.main import cli


def invoke_cli(*args: str | Path) -> Result:
    """Run `arena ARGS` with click's runner, letting exceptions through."""
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def write_config(folder: Path, text: str, name: str = "t.yaml") -> Path:
    """Write a dedented YAML file into `folder`; return its path."""
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


LOADED = "arena: warning: the machine was too loaded for the time limits to mean much"
"""The one line a run says, even with -q, when the machine strained its decisions."""


def unloaded(stderr: str) -> str:
    """A run's stderr without the line a loaded machine adds (docs/rules.md, Time): what a
    test of a quiet run asserts, on an idle machine or a busy one."""
    return "".join(line for line in stderr.splitlines(keepends=True)
                   if not line.startswith(LOADED))
