"""What a comparison found, in plain words: the verdict as one sentence, and how near the
tests are to a verdict, for the progress shown while it plays.

Every figure is in normalized Elo, the unit of the tests' bounds (`--elo0`, `--elo1`). The
confidence said is what the tests guarantee, no more: *better* is accepted by a test that
says it wrongly (were the gain `elo0` or less) at most `alpha` of the time, so "95%
confident it gains more than elo0"; *same* is both tests missing a difference of `elo1`
at most `beta` of the time each, so "95% confident they are less than elo1 apart".

This module must not play games, print or compute statistics: it words a `Comparison`.
"""

from __future__ import annotations

from arena.compare.estimates import ELO_CAP, NELO_CAP, beyond_scale
from arena.compare.sprt import Sprt
from arena.compare.verdict import Comparison

__all__ = ["elo_text", "llr_text", "nelo_text", "progress_text", "sentence"]


def sentence(state: Comparison) -> str:
    """The verdict as a sentence, e.g. "a is better than b: 95% confident it gains more
    than 0 normalized Elo (estimate +12.3); 1,314 games"."""
    setup, bounds = state.setup, state.bounds
    a, b = setup.candidate.label, setup.baseline.label
    games = f"{state.tally.games:,} game{'s' * (state.tally.games != 1)}"
    capped = beyond_scale(state.nelo.value) is not None  # the cap is no measure: say so
    estimate = f"estimate {nelo_text(state.nelo.value)}"
    estimate += " normalized Elo, beyond the scale" if capped else ""
    unit = "" if bounds.elo0 or capped else " normalized Elo"
    if state.verdict == "better":
        return (f"{a} is better than {b}: {1 - bounds.alpha:.0%} confident it "
                f"{_margin('gains', bounds.elo0)} ({estimate}{unit}); {games}")
    if state.verdict == "worse":
        return (f"{a} is worse than {b}: {1 - bounds.alpha:.0%} confident it "
                f"{_margin('loses', bounds.elo0)} ({estimate}{unit}); {games}")
    if state.verdict == "same":
        return (f"no difference found between {a} and {b}: {1 - bounds.beta:.0%} confident "
                f"they are less than {bounds.elo1:g} normalized Elo apart ({estimate}); "
                f"{games}")
    unit = "" if capped else " normalized Elo"
    return (f"undecided at the game limit: after {games} neither test could tell whether "
            f"{a} is better or worse than {b} ({estimate}{unit})")


def nelo_text(value: float, cap: float = NELO_CAP) -> str:
    """A figure to one decimal, e.g. `+12.3`; at its cap `above +1200`, not a measure."""
    side = beyond_scale(value, cap)
    if side is None:
        return f"{value:+.1f}"
    return f"{side} {'+' if side == 'above' else '-'}{NELO_CAP:.0f}"


def elo_text(value: float) -> str:
    """Logistic Elo as `nelo_text` words it: its cap (about ±1200) is no measure either."""
    return nelo_text(value, ELO_CAP)


def _margin(verb: str, elo0: float) -> str:
    """What the test that accepted its H1 rules out: "is stronger" (H0 at 0), else e.g.
    "gains more than 5 normalized Elo"."""
    if elo0 == 0:
        return "is stronger" if verb == "gains" else "is weaker"
    return f"{verb} more than {elo0:g} normalized Elo"


def llr_text(title: str, sprt: Sprt) -> str:
    """One test's LLR against its bounds: `better? LLR +1.27 [-2.94, +2.94]`."""
    return f"{title} LLR {sprt.llr:+.2f} [{sprt.lower:+.2f}, {sprt.upper:+.2f}]"


def progress_text(state: Comparison) -> str:
    """Where the tests stand, for a bar or a progress line."""
    return (f"{state.tally.games:,} games, {llr_text('better?', state.better.sprt)}, "
            f"{llr_text('worse?', state.worse.sprt)}")
