"""The `arena` command: a thin click layer. Each command parses, calls one library function,
and prints. Errors a user can fix are one line on stderr with exit status 2, never a
traceback."""

from __future__ import annotations

import importlib
import importlib.util
import math
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from arena import __version__
from arena.cli import VERSION

F = TypeVar("F", bound=Callable[..., Any])
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
EXIT_REFEREE_FAILED = 75
"""The referee or its machine failed (no file descriptor, memory or process left, a missing
tool): no bot is blamed; run the command again once it is fixed (sysexits' EX_TEMPFAIL)."""

# Commands that live in their own modules, loaded by name so that `arena --help` stays fast.
_COMMANDS = {
    "run": "arena.cli.run:run",
    "validate": "arena.cli.run:validate",
    "compare": "arena.cli.compare:compare",
    "replay": "arena.cli.replay:replay",
    "report": "arena.cli.replay:report",
    "publish": "arena.cli.publish:publish",
    "bench": "arena.cli.bench:bench",
    "doctor": "arena.cli.doctor:doctor",
    "check-bot": "arena.cli.check_bot:check_bot",
    "serve": "arena.cli.serve:serve",
    "site": "arena.cli.site:site",
    "submit": "arena.cli.submit:submit",
}


class LazyGroup(click.Group):
    """A click group whose heavier commands are imported only when used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self._available()])

    def _available(self) -> list[str]:
        names = []
        for name, target in _COMMANDS.items():
            module = target.partition(":")[0]
            if importlib.util.find_spec(module) is not None:
                names.append(name)
        return names

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None or cmd_name not in _COMMANDS:
            return command
        module, _, attr = _COMMANDS[cmd_name].partition(":")
        if importlib.util.find_spec(module) is None:
            return None
        loaded: click.Command = getattr(importlib.import_module(module), attr)
        return loaded

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; the referee's own failure is one line, blaming no bot."""
        try:
            return super().invoke(ctx)
        except Exception as exc:
            # only a command that loaded the hosts can raise it: the others never load them
            hosts = sys.modules.get("arena.hosts.inline")
            if hosts is None or not isinstance(exc, hosts.RefereeFailure):
                raise
            referee_failed(str(exc), "no bot is blamed: fix this, then run the command again")


@click.group(cls=LazyGroup, context_settings=CONTEXT)
@click.version_option(__version__, prog_name="arena", message=VERSION)
def cli() -> None:
    """Referee and tournament runner for Liar's Poker (Póker Mentiroso) bots."""
    from arena.hosts.machine import raise_open_files

    raise_open_files()  # many bot processes at once need many pipes: use what is allowed


def referee_failed(message: str, then: str) -> None:
    """Print the referee's own failure in one line, and what to do, and exit with status 75."""
    click.echo(f"arena: the referee failed, not a bot: {message}; {then}", err=True)
    sys.exit(EXIT_REFEREE_FAILED)


def start_timeout_option(command: F) -> F:
    """The `--start-timeout SECONDS` option: how long each bot may take to start (a config's
    `limits.start`)."""
    from arena.limits import START_TIMEOUT

    def finite(ctx: click.Context, param: click.Parameter, value: float) -> float:
        if not math.isfinite(value):  # FloatRange lets nan and inf through
            raise click.BadParameter(f"must be more than 0 seconds and finite, got {value}")
        return value

    return click.option(
        "--start-timeout", type=click.FloatRange(min=0, min_open=True), default=START_TIMEOUT,
        show_default=True, metavar="SECONDS", callback=finite,
        help="Seconds each bot may take to start (its process to say hello, a game to "
             "start or end).")(command)


def isolation_option(command: F) -> F:
    """The `--isolation strict|standard|none` option (default: the strongest level here)."""
    return click.option(
        "--isolation", type=click.Choice(["strict", "standard", "none"]), default=None,
        help="How untrusted bots are walled in (default: the strongest this machine gives; "
             "see arena doctor).")(command)


def fail(message: str) -> None:
    """Print a one-line error and exit with status 2; printable, since it may quote a file
    someone else wrote (a results folder's game id, a replay's text)."""
    from arena.hosts.inline import printable

    text = "\n".join(map(printable, message.split("\n")))
    click.echo(f"arena: error: {text}", err=True)
    sys.exit(2)


def size_text(size: int) -> str:
    """A file's size as a person reads it (KB under a megabyte, else MB)."""
    return f"{size / 1024:,.0f} KB" if size < 1 << 20 else f"{size / (1 << 20):,.1f} MB"


def load_registry() -> Any:
    """Build the bot registry, turning plugin problems into a one-line error."""
    from arena.plugins import PluginError, default_registry

    try:
        return default_registry()
    except PluginError as exc:
        fail(str(exc))


@cli.command(name="bots")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def bots_list(as_json: bool) -> None:
    """List every registered bot: name, origin, rule sets, measured strength, description."""
    registry = load_registry()
    specs = registry.specs()
    if as_json:
        import json

        click.echo(json.dumps([{"name": s.name, "origin": s.origin, "rules": ",".join(s.rules),
                                **_strength(s), "description": s.description}
                               for s in specs], indent=2))
        return
    rows = [(s.name, s.origin, ",".join(s.rules), _elo_cell(_strength(s)["elo"]),
             _strength(s)["grade"] or "", s.description) for s in specs]
    click.echo(table(("bot", "origin", "rule sets", f"Elo ({', '.join(_MEASURED)})",
                      "beat it for", "description"), rows))


_MEASURED = ("dice", "dice-cards", "cards")
"""The rule sets the built-in bots' strength is measured in (benchmarks/strength.py)."""


def _strength(spec: Any) -> dict[str, Any]:
    """A built-in bot's measured Elo per rule set and the grade for beating it (None for
    any other bot: only arena's own bots are measured, by benchmarks/strength.py)."""
    if not spec.builtin:
        return {"elo": None, "grade": None}
    grades = importlib.import_module("arena_bots.grades")  # the built-in plugin's own data
    return {"elo": grades.elo(spec.name), "grade": grades.grade(spec.name)}


def _elo_cell(elo: dict[str, int] | None) -> str:
    """'+1683, +1259, +596', or blank for a bot never measured."""
    return "" if elo is None else ", ".join(f"{elo[r]:+d}" for r in _MEASURED)


@cli.command(name="rules")
def rules_list() -> None:
    """List the rule sets with their options, defaults and player counts."""
    registry = load_registry()
    for rid in sorted(registry.rules):
        ruleset = registry.rules[rid]
        click.echo(f"{rid} (version {ruleset.version}): "
                   f"{ruleset.min_players}-{ruleset.max_players} players")
        rows = []
        for spec in ruleset.option_specs:
            allowed = "|".join(map(str, spec.choices)) if spec.choices else f">= {spec.minimum}"
            rows.append((spec.name, str(spec.default), allowed, spec.help))
        click.echo(indent(table(("option", "default", "allowed", "meaning"), rows)))


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Plain aligned columns for the terminal."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def indent(text: str) -> str:
    """Indent every line by two spaces."""
    return "\n".join("  " + line for line in text.splitlines())


@cli.command(name="play")
@click.option("--rules", "rules_id", default="dice", show_default=True,
              help="Rule set: dice, dice-cards or cards.")
@click.option("--bots", required=True,
              help="Comma-separated bots by seat, as for `arena compare`: names, FILE.py, "
                   "module:Class or 'cmd:PROGRAM ARGS', each with ?key=value bot options; "
                   "or 'human'.")
@click.option("--seed", default=None, type=int,
              help="Game seed [default: a secret one, drawn and printed].")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
              help="A rule option, e.g. --option max_points=3 (repeatable).")
@click.option("--time-limit", default=None, type=float,
              help="Seconds per decision for bots (default 1; none for humans).")
@click.option("--reveal", is_flag=True, help="Show private dice and cards too (bots only).")
@click.option("--trust", is_flag=True,
              help="Run every Python bot inline, in arena's own process (faster; only for "
                   "code you trust).")
@isolation_option
@start_timeout_option
def play(rules_id: str, bots: str, seed: int | None, options: tuple[str, ...],
         time_limit: float | None, reveal: bool, trust: bool, isolation: str | None,
         start_timeout: float) -> None:
    """Play one game in the terminal, narrated; 'human' seats are prompted. End of input
    or Ctrl-C stops the game (exit status 130).

    Built-in bots run inline; every other Python bot runs in its own process, with limits
    (--trust runs it inline); a cmd: bot runs as its program."""
    from arena.cli.doctor import isolation_level
    from arena.human import Quit
    from arena.play import OutputClosed, PlayError, play_in_terminal
    from arena.seeds import draw_secret

    level = isolation_level(isolation)
    if seed is None:  # said in the game's first line
        seed = draw_secret()
    try:
        play_in_terminal(rules_id, [b.strip() for b in bots.split(",") if b.strip()], seed,
                         parse_options(options), time_limit, reveal, click.echo, trust, level,
                         start_timeout)
    except PlayError as exc:
        fail(str(exc))
    except Quit as exc:
        stopped(exc.reason)
    except KeyboardInterrupt:
        click.echo("", err=True)  # the terminal's ^C ends no line
        stopped("Ctrl-C")
    except OutputClosed:
        output_closed()


def stopped(reason: str) -> None:
    """Say in one line that the game was stopped, and exit as an interrupted program does."""
    click.echo(f"arena: game stopped ({reason})", err=True)
    sys.exit(130)


def output_closed() -> None:
    """The reader of the output went away (`| head`): stop quietly, with click's status for a
    broken pipe, and let nothing more be written to it."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(1)


def parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """Read KEY=VALUE rule options, with YAML scalars (3, true, penalty)."""
    import yaml

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            fail(f"--option wants KEY=VALUE, got {pair!r}")
        out[key.strip()] = yaml.safe_load(value)
    return out
