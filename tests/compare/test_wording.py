"""`arena compare` in plain words: one unit of Elo (normalized) in the headline, the verdict
as a sentence for each of the four outcomes, and progress as how near the LLRs are to a
bound that decides, as a bar and as lines."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable

import pytest
from click.testing import CliRunner

from arena.cli import progress
from arena.cli.compare import report as compare_report
from arena.cli.main import cli
from arena.compare.groups import Entrant, GroupResult, Setup
from arena.compare.samples import Summary
from arena.compare.verdict import Bounds, Comparison, start, summary_dict
from arena.compare.wording import sentence

SETUP = Setup(Entrant.parse("statistician"), Entrant.parse("honest"), seed=1)
THREE = Setup(Entrant.parse("statistician"), Entrant.parse("honest"), seats=3,
              field=(Entrant.parse("random"), Entrant.parse("random")), seed=1)


def _played(diffs: Iterable[float], setup: Setup = SETUP, bounds: Bounds | None = None,
            max_games: int = 30000) -> Comparison:
    """A comparison that saw these group differences, stopping once the tests decide."""
    state = start(setup, bounds or Bounds(), max_games)
    for index, diff in enumerate(diffs):
        state = state.add(GroupResult(index, diff, setup.group_games))
        if state.decision:
            break
    return state


def _nelo_of_pairs(counts: tuple[int, ...]) -> float:
    """fishtest's normalized Elo of a pentanomial, written out: a pair's mean excess over
    0.5 over sqrt(2) pair deviations, times 800 / ln 10 (empty cells weigh 1e-3)."""
    cells = [c or 1e-3 for c in counts]
    n = sum(cells)
    scores = (0, 0.25, 0.5, 0.75, 1)
    mean = sum(c * s for c, s in zip(cells, scores, strict=True)) / n
    variance = sum(c * (s - mean) ** 2 for c, s in zip(cells, scores, strict=True)) / n
    return (mean - 0.5) / math.sqrt(2 * variance) * 800 / math.log(10)


def test_better_says_what_the_test_guarantees() -> None:
    state = _played(itertools.cycle((1.0, 0.0, 0.5, 1.0, -0.5)))
    assert state.verdict == "better"
    nelo = _nelo_of_pairs(state.tally.pentanomial)
    assert state.nelo.value == pytest.approx(nelo)
    assert sentence(state) == (
        "statistician is better than honest: 95% confident it is stronger "
        f"(estimate {nelo:+.1f} normalized Elo); {state.tally.games:,} games")


def test_worse_and_a_nonzero_h0_say_the_margin() -> None:
    state = _played(itertools.cycle((-1.0, 0.0, -0.5, -1.0, 0.5)), bounds=Bounds(5, 15, 0.1))
    assert state.verdict == "worse"
    assert sentence(state) == (
        "statistician is worse than honest: 90% confident it loses more than 5 normalized "
        f"Elo (estimate {state.nelo.value:+.1f}); {state.tally.games:,} games")
    assert state.nelo.value < 0


def test_same_and_undecided_are_sentences_too() -> None:
    same = _played(itertools.cycle((1.0, -1.0, 0.0, 0.5, -0.5, 0.0)), bounds=Bounds(0, 40))
    assert same.verdict == "same" and same.tally.games > 100
    assert sentence(same) == (
        "no difference found between statistician and honest: 95% confident they are less "
        f"than 40 normalized Elo apart (estimate {same.nelo.value:+.1f}); "
        f"{same.tally.games:,} games")
    undecided = _played((1.0, -1.0, 0.0, 0.5) * 5, max_games=40)
    assert undecided.verdict == "inconclusive"
    assert sentence(undecided) == (
        "undecided at the game limit: after 40 games neither test could tell whether "
        f"statistician is better or worse than honest (estimate {undecided.nelo.value:+.1f} "
        "normalized Elo)")


def test_more_seats_give_normalized_elo_from_the_group_differences() -> None:
    diffs = (0.5, -0.25, 0.75, 0.0, 0.25, -0.5, 1.0, 0.25)
    state = _played(diffs, setup=THREE)
    summary = Summary.of(diffs)
    n = summary.n + 2e-3  # a pseudo-group at -1 and one at +1, each weighing 1e-3
    mean = summary.total / n
    deviation = math.sqrt((summary.total_squares + 2e-3) / n - mean * mean)
    expected = summary.mean / deviation / math.sqrt(2) * 800 / math.log(10)
    assert state.nelo.value == pytest.approx(expected)
    half = 1.959964 * deviation / math.sqrt(n) / deviation / math.sqrt(2) * 800 / math.log(10)
    assert state.nelo.upper - state.nelo.value == pytest.approx(half, rel=1e-5)


def test_progress_is_the_furthest_llr_toward_a_deciding_bound() -> None:
    assert start(SETUP, Bounds(), 100).to_decision == 0
    state = _played((1.0, 0.5, 1.0))
    better, worse = state.better.sprt, state.worse.sprt
    assert state.to_decision == pytest.approx(
        max(better.llr / better.upper, worse.llr / worse.upper,
            min(better.llr / better.lower, worse.llr / worse.lower), 0))
    assert 0 < state.to_decision < 1
    assert _played(itertools.cycle((1.0, 0.0))).to_decision == 1


def _compare(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["compare", *args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_the_command_shows_lines_of_llrs_and_one_unit_of_elo(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ticks = itertools.count()
    monkeypatch.setattr(progress, "clock", lambda: float(next(ticks)))
    monkeypatch.setattr(progress, "LINE_GAP", 0.0)  # a line at every due share
    status, out, err = _compare("statistician", "random", "--seed", "2", "--workers", "1",
                                "--elo1", "60")
    assert status == 0
    lines = err.splitlines()
    pattern = re.compile(r"arena: compare: (\d+)% of the way to a verdict; (\d+) games, "
                         r"better\? LLR ([-+]\d\.\d\d) \[-2\.94, \+2\.94\], "
                         r"worse\? LLR ([-+]\d\.\d\d) \[-2\.94, \+2\.94\]")
    found = [pattern.fullmatch(line) for line in lines]
    assert all(found), lines
    shares = [int(m.group(1)) for m in found if m]
    assert shares[-1] == 100 and shares == sorted(shares) and len(shares) >= 5
    for match in found:  # the share is the furthest LLR toward a bound that decides
        assert match is not None
        better, worse = float(match.group(3)), float(match.group(4))
        share = max(better / 2.944, worse / 2.944, min(better / -2.944, worse / -2.944))
        assert abs(int(match.group(1)) - 100 * min(1, share)) <= 1.5
    report = dict(line.split(None, 1) for line in out.splitlines())
    assert f"{found[-1].group(2)} games" in report["verdict"]  # type: ignore[union-attr]
    assert "elo" not in report  # one unit up front: normalized Elo, logistic in brackets
    figure = r"(?:[-+]\d+\.\d|above \+1200)"  # at the cap: the edge of the scale, said
    assert re.fullmatch(rf"{figure}(?: \(beyond the scale\))?  \[{figure}, {figure}\]   "
                        rf"normalized Elo, the tests' unit \(logistic Elo {figure}"
                        r"(?:, beyond the scale)?\)", report["nElo"])
    assert _compare("statistician", "random", "--seed", "2", "--workers", "1", "--elo1",
                    "60", "-q")[2] == ""


def test_the_command_bar_shows_the_share_and_the_llrs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "on_terminal", lambda: True)
    status, _, err = _compare("statistician", "random", "--seed", "2", "--workers", "1",
                              "--elo1", "60")
    assert status == 0
    assert re.search(r"to a verdict: 100%\|█+\| \d\d:\d\d, \d+ games, better\? LLR \+\d\.\d\d "
                     r"\[-2\.94, \+2\.94\], worse\? LLR -\d\.\d\d \[-2\.94, \+2\.94\]", err), err


def test_normalized_elo_is_capped_when_one_side_wins_every_pair() -> None:
    state = _played(itertools.repeat(1.0))
    assert state.verdict == "better" and state.tally.pentanomial[:4] == (0, 0, 0, 0)
    assert _nelo_of_pairs(state.tally.pentanomial) > 10_000  # no spread to measure against
    assert (state.nelo.value, state.nelo.upper) == (1200.0, 1200.0)
    # The cap is the edge of the scale, not a measurement: the words say so.
    assert "(estimate above +1200 normalized Elo, beyond the scale)" in sentence(state)
    assert "1200.0" not in sentence(state)
    nelo = summary_dict(state)["nelo"]
    assert (nelo["value"], nelo["beyond_scale"]) == (1200.0, "above")
    lost = _played(itertools.repeat(-1.0))
    assert lost.verdict == "worse" and lost.nelo.value == -1200.0
    assert "(estimate below -1200 normalized Elo, beyond the scale)" in sentence(lost)
    assert summary_dict(lost)["nelo"]["beyond_scale"] == "below"
    measured = _played([1.0, -1.0, 0.0] * 50)
    assert summary_dict(measured)["nelo"]["beyond_scale"] is None
    assert re.search(r"\(estimate [-+]\d+\.\d", sentence(measured))


def test_the_command_line_says_a_capped_estimate_is_beyond_the_scale() -> None:
    lost = _played(itertools.repeat(-1.0))
    lines = dict(line.split(None, 1) for line in compare_report(lost).splitlines())
    assert lines["nElo"].startswith("below -1200 (beyond the scale)  [below -1200, below -1200]")
    assert "1200.0" not in lines["nElo"] and "beyond the scale" in lines["verdict"]
    measured = dict(line.split(None, 1) for line in compare_report(
        _played([1.0, -1.0, 0.5] * 50)).splitlines())
    assert re.match(r"[-+]\d+\.\d  \[[-+]\d+\.\d, [-+]\d+\.\d\]", measured["nElo"])
