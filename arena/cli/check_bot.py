"""`arena check-bot REF`: the click command over `arena.checkbot`. It parses the options,
checks the bot and prints its checklist: exit status 0 when every check passed, 1 when one
failed, and 2 with the usual one-line error for a reference that names no bot."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

import click

from arena.cli.doctor import isolation_level
from arena.cli.main import fail, isolation_option

if TYPE_CHECKING:
    from arena.checkbot.checklist import Checklist


@click.command(name="check-bot")
@click.argument("reference", metavar="REF")
@click.option("--rules", "rules_ids", default=None, metavar="RULES",
              help="Comma-separated rule sets to check [default: every one the bot plays].")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=1.0,
              show_default=True, help="Seconds per decision, as a contest's limit.")
@click.option("--trust", is_flag=True,
              help="Run a Python bot inline, in arena's own process (only for code you trust; "
                   "a contest runs it in its own process).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the checklist as JSON (for a grading script): passed, checks, summary.")
@isolation_option
def check_bot(reference: str, rules_ids: str | None, time_limit: float, trust: bool,
              as_json: bool, isolation: str | None) -> None:
    """Check a bot before a contest: a checklist of what passed and failed (exit 0 if all did).

    Starts REF (FILE.py, DIR/, module:Class, 'cmd:PROGRAM ARGS' or a name) as a contest
    would, then plays a few games that put it in every decision of each rule set it plays
    and in the rare positions: only a challenge legal, a reroll of nothing, face-up cards in
    `cards`, the reshuffle in `dice-cards`."""
    from arena.checkbot import check_bot as check
    from arena.entrants import EntrantError, Reference
    from arena.limits import Limits

    level = isolation_level(isolation)
    rules = [r.strip() for r in rules_ids.split(",") if r.strip()] if rules_ids else None
    try:
        parsed = Reference.parse(reference)
        parsed = parsed.trusted() if trust else replace(parsed, isolation=level)
        result = check(parsed, rules, Limits(decision=time_limit))
    except EntrantError as exc:
        fail(str(exc))
        return
    click.echo(_as_json(result) if as_json else _as_text(result))
    sys.exit(0 if result.passed else 1)


def _as_text(result: Checklist) -> str:
    """One ✓/✗/– line per check, then the footer."""
    return "\n".join([*map(str, result.lines), *([result.footer] if result.footer else [])])


def _as_json(result: Checklist) -> str:
    """The same checklist as data: each check's result word, its line's words and what they
    say as data (the times; the rule options of a failure's game)."""
    words = {True: "passed", False: "failed", None: "not checked"}
    return json.dumps({"passed": result.passed,
                       "checks": [{"result": words[line.passed], "check": line.text,
                                   **line.facts} for line in result.lines],
                       "summary": result.footer}, indent=2, ensure_ascii=False)
