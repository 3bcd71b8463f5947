"""A dishonest Dask worker, as a `dask worker --preload cheating_worker`: a patched arena in
that worker's process that still reports the honest code fingerprint (it computes it over
the unpatched files) and lies in the batches it returns, by ARENA_TEST_CHEAT (or by the
word in the file ARENA_TEST_CHEAT_FILE names, read at each question: one worker then tells
each test's lie in turn):

- `swap`: plays `boss` in place of the entrant named `random`, under its name, with the
  honest replay header (the lie passes every check of the rules: only a re-play shows it);
- `placements`: the named entrant wins every game it sits in, in the line and the replay;
- `huge`: each replay is 8 MiB of random bytes;
- `junk`: each replay is a few bytes that are no replay;
- `repeat`: every game's line and replay are the batch's first game's;
- `pickle`: the batch is an object whose unpickling runs code (it writes the file
  ARENA_TEST_MARK names, with that process's id) in whichever process reads it;
- `raise`: the batch raises an exception that does the same when it is unpickled;
- `card`: its dry run of the entrants says `random` cannot start (a fine bot broken);
- with `pickle` or `raise`, `arena doctor --cluster`'s question of its sandbox level is
  answered (or failed) the same way.

The tests run it beside an honest worker (tests/tournament/test_dishonest_worker.py)."""

from __future__ import annotations

import gzip
import json
import os
from dataclasses import replace
from typing import Any

from arena.cli import doctor
from arena.executor import remote
from arena.tournament.config import ConfigError
from arena.tournament.run import trial_remote
from arena.tournament.run.worker import Played

VICTIM = "random"
honest_play = remote.play_batch
honest_trial = trial_remote.tried_here
honest_level = doctor.level_here


def cheat() -> str:
    """The lie to tell now ('' for none)."""
    told = os.environ.get("ARENA_TEST_CHEAT_FILE")
    if told is None:
        return os.environ.get("ARENA_TEST_CHEAT", "")
    with open(told) as said:
        return said.read().strip()


def cheating_play(token: str, job: Any, lost: Any, run_print: str, specs: Any) -> Any:
    """The honest batch, then the lie told about it."""
    batch, lie = honest_play(token, job, lost, run_print, specs), cheat()
    if lie == "swap":
        return replace(batch, results=_swapped(token, job, lost, run_print, specs, batch))
    forge = {"placements": _forged, "huge": _huge, "junk": _junk}.get(lie)
    if forge is not None:
        return replace(batch, results=[forge(played) for played in batch.results])
    if lie == "pickle":
        return _Takeover()
    if lie == "raise":
        raise _Takeover.error()
    if lie == "repeat" and batch.results:
        first = batch.results[0]
        return replace(batch, results=[replace(first, id=p.id) for p in batch.results])
    return batch


def _swapped(token: str, job: Any, lost: Any, run_print: str, specs: Any, batch: Any
             ) -> list[Any]:  # fmt: skip
    """Each game played again with boss in the victim's seat, under the honest header."""
    setup = job.argument
    entrants = tuple(replace(e, bot="boss") if e.name == VICTIM else e for e in setup.entrants)
    swapped_job = replace(job, argument=replace(setup, entrants=entrants))
    boss = honest_play(token + "-swapped", swapped_job, lost, run_print, specs)
    return [_with_header(honest, played) for honest, played in zip(batch.results, boss.results,
                                                                   strict=True)]


def _with_header(honest: Any, played: Any) -> Any:
    """The swapped game's log and result under the honest game's replay header and line
    (with no replays asked for, its line and placements alone)."""
    if honest.replay is None:
        return played
    header = _lines(honest.replay)[0]
    lines = [header, *_lines(played.replay)[1:]]
    line = json.loads(played.line)
    return Played(played.id, played.placements, json.dumps(line, separators=(",", ":")),
                  _pack(lines))


def _forged(played: Any) -> Any:
    """The victim wins: placements (and scores) rewritten in the line and the replay."""
    lines = _lines(played.replay)
    seats = [e["name"] for e in lines[0]["entrants"]]
    if VICTIM not in seats:
        return played
    placements = [1 if name == VICTIM else 2 for name in seats]
    lines[-1]["placements"] = placements
    line = json.loads(played.line)
    line["placements"] = placements
    return Played(played.id, tuple(placements), json.dumps(line, separators=(",", ":")),
                  _pack(lines))


class _Takeover:
    """Whoever unpickles this runs the worker's code: it writes ARENA_TEST_MARK.<its pid>."""

    def __reduce__(self) -> tuple[Any, ...]:
        mark = os.environ.get("ARENA_TEST_MARK", "")
        return exec, (f"open({mark!r} + '.' + str(__import__('os').getpid()), 'w').close()",)

    @classmethod
    def error(cls) -> Exception:
        """An exception that carries the takeover in its arguments."""
        return RuntimeError(cls())


def _huge(played: Any) -> Any:
    return replace(played, replay=os.urandom(8 << 20))


def _junk(played: Any) -> Any:
    return replace(played, replay=b"not a replay")


def _lines(replay: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in gzip.decompress(replay).decode().splitlines()]


def _pack(lines: list[dict[str, Any]]) -> bytes:
    text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
    return gzip.compress(text.encode(), mtime=0)


def lying_trial(shipment: Any, cfg: Any, lines: Any, run_print: str) -> Any:
    """The honest dry run, with the victim said to be broken."""
    trial = honest_trial(shipment, cfg, lines, run_print)
    if cheat() != "card":
        return trial
    broken = tuple(ConfigError("t.yaml", None, "entrants", f"entrant {e.name!r} cannot start")
                   if e.name == VICTIM else said for e, said in zip(cfg.entrants, trial.broken,
                                                                     strict=True))
    return replace(trial, broken=broken)


def lying_level() -> Any:
    """The honest answer to `arena doctor`, or a pickle that runs code where it is read."""
    lie = cheat()
    if lie == "pickle":
        return _Takeover()
    if lie == "raise":
        raise _Takeover.error()
    return honest_level()


remote.play_batch = cheating_play  # type: ignore[assignment]
trial_remote.tried_here = lying_trial  # type: ignore[assignment]
doctor.level_here = lying_level  # type: ignore[assignment]
