"""Two results folders of one config and seed compared as the suite's byte-identity promise
says: games.jsonl and the derived files byte for byte, the replays but for their timings."""

from __future__ import annotations

from pathlib import Path

from arena.replay import read_replay, timeless
from arena.tournament.run import results


def same_results(one: Path, two: Path) -> None:
    """Assert both folders hold the same results (a replay's timings may differ)."""
    for name in (results.GAMES, *results.DERIVED):
        assert (one / name).read_bytes() == (two / name).read_bytes(), name
    replays = sorted(p.name for p in (one / results.REPLAYS).glob("*.json.gz"))
    assert replays == sorted(p.name for p in (two / results.REPLAYS).glob("*.json.gz"))
    for name in replays:
        mine, theirs = (read_replay(x / results.REPLAYS / name) for x in (one, two))
        assert timeless(mine) == timeless(theirs), name
