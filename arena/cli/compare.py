"""`arena compare CANDIDATE BASELINE`: the click command over `arena.compare.run`.

It parses the options, builds the `Setup`, runs the comparison showing on stderr how near
the tests are to a verdict (a bar on a terminal, else a line every tenth of the way or every
minute), prints the report (or JSON) and exits with the verdict's status. Every Elo figure
it prints first is normalized Elo, the unit of the tests' bounds (plain logistic Elo in
brackets). It must not play games or compute statistics itself.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import click

from arena.bot import Limits
from arena.cli.cluster import chosen_cluster, cluster_options, given_flags, lost
from arena.cli.doctor import isolation_level
from arena.cli.main import (
    fail,
    isolation_option,
    load_registry,
    parse_options,
    start_timeout_option,
)
from arena.compare.estimates import ELO_CAP, Estimate, beyond_scale
from arena.compare.groups import DEFAULT_MAX_GROUPS, CompareError, Entrant, Setup
from arena.compare.players import DEFAULT_FIELD, check, default_field
from arena.compare.run import run_compare
from arena.compare.sprt import DEFAULT_ALPHA, DEFAULT_BETA
from arena.compare.verdict import (
    DEFAULT_ELO0,
    DEFAULT_ELO1,
    Bounds,
    Comparison,
    Look,
    exit_status,
    summary_dict,
)
from arena.compare.wording import elo_text, llr_text, nelo_text, progress_text, sentence
from arena.entrants import EntrantError
from arena.executor.local import cores

_SIDES = {"better": ("better", "not better"), "worse": ("worse", "not worse")}


@click.command(name="compare")
@click.argument("candidate")
@click.argument("baseline")
@click.option("--rules", "rules_id", default="dice", show_default=True,
              help="Rule set: dice, dice-cards or cards.")
@click.option("--seats", type=click.IntRange(min=2), default=None,
              help="Players per game [default: 2, or one more than --field, or the rule "
                   "set's minimum].")
@click.option("--field", "field_refs", default=None, metavar="BOTS",
              help="Comma-separated bots for the other seats (3+ seats), cycled to fill "
                   "them [default: the installed ones of "
                   + ", ".join(DEFAULT_FIELD) + "].")
@click.option("--games", "max_games", type=click.IntRange(min=1), default=None,
              help="Most games to play; inconclusive (exit 3) if reached [default: "
                   f"{DEFAULT_MAX_GROUPS} groups, {2 * DEFAULT_MAX_GROUPS} games "
                   "for two seats].")
@click.option("--seed", default=None, type=int,
              help="Root seed; each group's seed is derived from it [default: a secret one, "
                   "drawn and printed].")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Worker processes [default: the number of cores].")
@click.option("--elo0", default=DEFAULT_ELO0, show_default=True, type=float,
              help="H0 of the better? test, normalized Elo (mirrored for worse?).")
@click.option("--elo1", default=DEFAULT_ELO1, show_default=True, type=float,
              help="H1 of the better? test, normalized Elo (mirrored for worse?).")
@click.option("--alpha", default=DEFAULT_ALPHA, show_default=True, type=float,
              help="Chance of a false 'better' (or 'worse').")
@click.option("--beta", default=DEFAULT_BETA, show_default=True, type=float,
              help="Chance of missing a real difference of elo1.")
@click.option("--require-better", is_flag=True,
              help="Exit 0 only when the candidate is better ('same' exits 1).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary instead.")
@click.option("--quiet", "-q", is_flag=True,
              help="No progress bar or lines; print only the verdict line.")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
              help="A rule option, e.g. --option max_points=3 (repeatable).")
@click.option("--time-limit", default=None, type=float,
              help="Seconds per decision for each bot [default: 1].")
@isolation_option
@start_timeout_option
@click.option("--trust", is_flag=True,
              help="Run every Python bot inline, in arena's own process (faster; only for "
                   "code you trust).")
@cluster_options
def compare(candidate: str, baseline: str, rules_id: str, seats: int | None,
            field_refs: str | None, max_games: int | None, seed: int, workers: int | None,
            elo0: float, elo1: float, alpha: float, beta: float, require_better: bool,
            as_json: bool, quiet: bool, options: tuple[str, ...],
            time_limit: float | None, trust: bool, isolation: str | None,
            start_timeout: float) -> None:
    """Is CANDIDATE better or worse than BASELINE? Plays duplicate games until a
    sequential test decides.

    Bots are registered names, FILE.py[:Class] or module:Class, with bot options as
    'REF?key=value&key=value', or 'cmd:PROGRAM ARGS'. Built-in bots run inline; every other
    Python bot runs in its own process, with limits (--trust runs it inline).

    Exit status: 0 better or same (not worse), 1 worse (with --require-better: not better),
    2 usage error, 3 inconclusive at the game limit.
    """
    from arena.executor.cluster import ClusterError, ClusterLost
    from arena.seeds import draw_secret

    cluster = chosen_cluster(given_flags())
    told = None if quiet or as_json else _told
    drawn, seed = seed is None, draw_secret() if seed is None else seed
    try:
        setup = _setup(candidate, baseline, rules_id, seats, field_refs, seed,
                       parse_options(options), time_limit, trust)
        setup = _walled(setup, isolation_level(isolation), start_timeout)
        bounds = Bounds(elo0, elo1, alpha, beta)
        max_games = max_games or setup.default_max_games()
        cards = check(setup, bounds, max_games, load_registry())
        with _progress(quiet or as_json) as progress:
            state = run_compare(setup, bounds, max_games, workers or cores(), progress, cards,
                                cluster, told)
    except EntrantError as exc:
        fail(str(exc))
    except ClusterLost as exc:
        lost(str(exc), "a comparison keeps nothing: run it again once the cluster is back")
    except ClusterError as exc:
        fail(str(exc))
    if as_json:
        click.echo(json.dumps(summary_dict(state, require_better), indent=2))
    elif quiet:
        click.echo(verdict_line(state))
    else:
        click.echo(report(state))
    if drawn and not as_json:  # --json has it; said once, with what to do to play it again
        click.echo(f"arena: seed: {seed} (secret: drawn for this comparison and kept nowhere; "
                   f"--seed {seed} plays it again)", err=True)
    sys.exit(exit_status(state.verdict, require_better))


def _told(line: str) -> None:
    click.echo(f"arena: {line}", err=True)


def _setup(candidate: str, baseline: str, rules_id: str, seats: int | None,
           field_refs: str | None, seed: int, options: dict[str, Any],
           time_limit: float | None, trust: bool = False) -> Setup:
    """Turn the command line into a Setup; CompareError for what cannot work."""
    field = tuple(_named(ref, trust) for ref in (field_refs or "").split(",") if ref.strip())
    seats = seats or _default_seats(rules_id, len(field))
    if seats == 2 and field:
        raise CompareError("--field is for 3 or more seats; two seats are head to head")
    if len(field) > seats - 1:
        raise CompareError(f"--field names {len(field)} bots for {seats - 1} other seats")
    if seats > 2:
        field = (tuple(field[i % len(field)] for i in range(seats - 1)) if field
                 else default_field(rules_id, seats, load_registry()))
    if time_limit is not None and not time_limit > 0:
        raise CompareError(f"--time-limit must be positive, got {time_limit:g}")
    limits = Limits(time_limit) if time_limit is not None else Limits()
    return Setup(_named(candidate, trust), _named(baseline, trust), rules_id,
                 seats, field, tuple(sorted(options.items())), seed, limits)


def _walled(setup: Setup, level: str, start_timeout: float) -> Setup:
    """Every bot of the comparison at this isolation level, with this long to start."""
    field = tuple(replace(e, isolation=level, start_timeout=start_timeout)
                  for e in setup.field)
    return replace(setup, candidate=replace(setup.candidate, isolation=level,
                                            start_timeout=start_timeout),
                   baseline=replace(setup.baseline, isolation=level,
                                    start_timeout=start_timeout), field=field)


def _named(text: str, trust: bool) -> Entrant:
    """A bot named on the command line, run inline when the user trusts it."""
    reference = Entrant.parse(text)
    return reference.trusted() if trust else reference


def _default_seats(rules_id: str, field_size: int) -> int:
    """One more than the field, else two, or the rule set's minimum when that is more."""
    if field_size:
        return field_size + 1
    ruleset = load_registry().rules.get(rules_id)
    return max(2, ruleset.min_players) if ruleset is not None else 2


@contextlib.contextmanager
def _progress(quiet: bool) -> Iterator[Callable[[Comparison], None] | None]:
    """How near the tests are to a verdict (the furthest LLR toward a bound that decides),
    as a bar on a terminal or a line every tenth of the way or minute; none when quiet."""
    if quiet:
        yield None
        return
    from arena.cli.progress import meter

    shown = meter("to a verdict", "%", label="compare", line=_progress_line,
                  bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}{postfix}")
    with contextlib.closing(shown):

        def update(state: Comparison) -> None:
            shown.show(int(100 * state.to_decision), 100, progress_text(state))

        yield update


def _progress_line(done: int, total: int, postfix: str) -> str:
    return f"{done}% of the way to a verdict; {postfix}"


# --- the report ----------------------------------------------------------------------------


def _sandboxed(setup: Setup) -> str | None:
    """The isolation level of the comparison's bot processes, said in full; None if every
    bot runs inline."""
    from arena.entrants import resolve
    from arena.hosts.walls import level

    walled = [e for e in (setup.candidate, setup.baseline, *setup.field)
              if resolve(e).mode != "inline"]
    return level(walled[0].isolation).describe() if walled else None


def report(state: Comparison) -> str:
    """The full text report: who, how many games, score, Elo, LOS, both tests, verdict."""
    setup, tally = state.setup, state.tally
    unit = "pairs" if setup.seats == 2 else "groups"
    lines = [
        f"candidate   {setup.candidate.label}",
        f"baseline    {setup.baseline.label}",
    ]
    if setup.field:
        lines.append(f"field       {', '.join(e.label for e in setup.field)}")
    options = "".join(f", {k}={v}" for k, v in setup.options)
    lines.append(f"rules       {setup.rules}{options}, {setup.seats} seats, seed {setup.seed}")
    walled = _sandboxed(setup)
    if walled is not None:
        lines.append(f"isolation   {walled}")
    lines.append(f"games       {tally.games} ({tally.groups} {unit}) of at most "
                 f"{state.max_games}")
    if setup.seats == 2:
        cells = " / ".join(map(str, tally.pentanomial))
        lines.append(f"pairs       {cells}   (pairs scoring 0, 1/2, 1, 3/2, 2 points)")
    else:
        lines.append(f"difference  {_estimate(state.difference, '+.3f')}   "
                     "score(candidate) - score(baseline) per group")
    lines += [
        f"score       {_estimate(state.score, '.3f')}   0.5 is equal",
        _nelo_line(state),
        f"LOS         {state.los:.1%}",
        _bounds_line(state.bounds),
        _test_line("better?", state.better, "better", unit),
        _test_line("worse?", state.worse, "worse", unit),
    ]
    if tally.candidate_faults or tally.baseline_faults:
        lines.append(f"faults      candidate {tally.candidate_faults}, "
                     f"baseline {tally.baseline_faults}")
    lines.append(f"verdict     {verdict_line(state)}")
    return "\n".join(lines)


def _nelo_line(state: Comparison) -> str:
    """The headline figure in the tests' unit, the logistic Elo after it in brackets."""
    nelo, elo = state.nelo, state.elo.value
    ends = f"[{nelo_text(nelo.lower)}, {nelo_text(nelo.upper)}]"
    said = f"{nelo_text(nelo.value)}{' (beyond the scale)' * bool(beyond_scale(nelo.value))}"
    logistic = elo_text(elo) + (", beyond the scale" if beyond_scale(elo, ELO_CAP) else "")
    return (f"nElo        {said}  {ends}   normalized Elo, the tests' unit "
            f"(logistic Elo {logistic})")


def verdict_line(state: Comparison) -> str:
    """The verdict's word, then the sentence: `better: a is better than b: 95% ...`; the
    line --quiet prints."""
    return f"{state.verdict}: {sentence(state)}"


def _estimate(estimate: Estimate, spec: str) -> str:
    return (f"{estimate.value:{spec}}  [{estimate.lower:{spec}}, {estimate.upper:{spec}}]")


def _bounds_line(bounds: Bounds) -> str:
    return (f"tests       H0 {bounds.elo0:g}, H1 {bounds.elo1:g} nElo, each way; "
            f"alpha {bounds.alpha:g}, beta {bounds.beta:g}")


def _test_line(title: str, look: Look, side: str, unit: str) -> str:
    sprt = look.sprt
    head = f"{title:<11} {llr_text('', sprt).lstrip()}"
    if sprt.verdict is None:
        return f"{head}  undecided"
    yes, no = _SIDES[side]
    found = yes if sprt.verdict == "H1" else no
    return f"{head}  {sprt.verdict} accepted at {unit[:-1]} {look.decided_at}: {found}"
