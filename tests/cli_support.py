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
