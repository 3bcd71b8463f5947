"""`arena doctor`: which walls this machine puts around an untrusted bot, what each stops, how
to install a missing one, and the isolation level that follows; and the `--isolation`
option every command that plays games shares, which refuses a level this machine cannot
give in one line, before any bot starts (docs/security.md)."""

from __future__ import annotations

import click

from arena.cli.main import fail, isolation_option

__all__ = ["doctor", "isolation_level", "isolation_line", "isolation_option"]
LEVEL_WORDS = {
    "strict": "every wall, for bots written by strangers",
    "standard": "bubblewrap and seccomp; the other walls where present",
    "none": "no sandbox, for bots you trust only",
}


def isolation_level(name: str | None) -> str:
    """The level to play at, checked against this machine, or the one-line error."""
    from arena.hosts.walls import IsolationError, level

    try:
        return level(name).name
    except IsolationError as exc:
        fail(str(exc))
        raise  # unreachable: fail exits


def isolation_line(name: str) -> str:
    """'isolation: strict (bubblewrap 0.8.0, seccomp, Landlock 7, cgroups v1, ...)'."""
    from arena.hosts.walls import level

    return f"isolation: {level(name).describe()}"


@click.command(name="doctor")
def doctor() -> None:
    """Say which walls this machine gives untrusted bots, and the isolation level they make."""
    from arena.hosts.walls import NEEDS, strongest, survey

    walls = survey()
    for wall in walls:
        mark = "found  " if wall.found else "missing"
        click.echo(f"{mark} {wall.name}: {wall.detail}")
        click.echo(f"        stops: {wall.protects}")
        if not wall.found:
            click.echo(f"        install: {wall.install}")
    best = strongest(walls)
    click.echo(f"level: {best}: {LEVEL_WORDS[best]}")
    for name in ("strict", "standard"):
        missing = [w.name for w in walls if w.key in NEEDS[name] and not w.found]
        if missing:
            click.echo(f"{name} would need: {', '.join(missing)}")
