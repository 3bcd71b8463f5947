"""Counts bot process starts for benchmarks/hot_bots.py: imported into `arena run`'s main
process and its fork server (so into every worker forked from it), it appends one byte to
the file named by ARENA_BENCH_STARTS for each bot process a kept host starts. Not part of
arena: the benchmark puts this folder on PYTHONPATH."""

from __future__ import annotations

import os
from typing import Any

from arena import entrants

_real = entrants.Resolved.host


def _counted(self: entrants.Resolved, *args: Any, **kwargs: Any) -> Any:
    if self.mode != "inline":
        with open(os.environ["ARENA_BENCH_STARTS"], "a") as tally:
            tally.write("s")
    return _real(self, *args, **kwargs)


entrants.Resolved.host = _counted  # type: ignore[method-assign]
