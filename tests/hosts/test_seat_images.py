"""The CPU caches (issue 38): two sandboxed bots at one table passed a whole hand in one
decision by flush+reload on cache lines of a file both mapped from the machine's one image of
the system's files (libc's). At `strict` and `standard` a bot is shown the image of its seat
index, a copy of its own: two table-mates never see one physical file at one path, so no line
one flushes is a line the other reloads; and a kept process serves only games in which it
sits at the seat index it started at."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from isolation_support import reports
from needs import require

import arena
from arena.bot import Limits
from arena.entrants import KeptHosts, Reference, resolve, seat_all
from arena.hosts.pipe import PipeHost
from arena.referee import play_game

MAPPER = """\
import json
import os
import sys

import arena

PATHS = {paths!r}


class Mapper(arena.Bot):
    name = "mapper"
    rules = ("dice",)

    def act(self, observation):
        seen = {{}}
        for path in PATHS:
            info = os.stat(path)
            seen[path] = [info.st_dev, info.st_ino]
        print("IMAGES " + json.dumps(seen), file=sys.stderr, flush=True)
        return observation.legal_actions()[0]
"""



def _libc() -> str:
    """The C library this interpreter maps (what the flush+reload bots shared)."""
    with open("/proc/self/maps") as maps:
        found = [line.split()[-1] for line in maps if "libc.so" in line or "libc-" in line]
    require(found, "this interpreter maps no libc")
    return os.path.realpath(found[0])


def _mapper(folder: Path) -> str:
    """A bot that reports, at each decision, which physical file (device, inode) it sees at
    the paths of libc, its interpreter and arena's package."""
    paths = [_libc(), os.path.realpath(sys.executable), "/arena/arena/__init__.py"]
    bot = folder / "mapper.py"
    bot.write_text(MAPPER.format(paths=paths))
    return str(bot)


def _seen(host: Any) -> dict[str, list[int]]:
    assert isinstance(host, PipeHost)
    found = reports(host, "IMAGES")
    assert found, host.stderr_tail()
    return found[-1]


def test_two_table_mates_never_see_one_physical_file_at_one_path(level: str,
                                                                 tmp_path: Path) -> None:
    reference = Reference(_mapper(tmp_path), isolation=level)
    kept = KeptHosts()
    try:
        players = seat_all([reference, reference], hosts=kept)
        record = play_game(arena.get_rules("dice"), players, 3, limits=Limits(5.0))
        assert record.faults == ()
        first, second = (_seen(player.host) for player in players)
    finally:
        kept.close()
    assert first.keys() == second.keys()
    for path in first:
        assert first[path] != second[path], path  # each seat its own copy of each file


def test_an_entrant_at_another_seat_index_plays_in_another_process(level: str,
                                                                  tmp_path: Path) -> None:
    entrant = resolve(Reference(_mapper(tmp_path), isolation=level))
    kept = KeptHosts()
    try:
        hosts, seen = [], []
        for seed, seat in ((1, 0), (2, 1), (3, 0)):
            host = kept.host("mapper", entrant, seed, seat=seat)
            players: list[object] = [entrant.player(host), "random"]
            record = arena.play_game("dice", players[::-1] if seat else players, seed=seed,
                                     limits=Limits(5.0))
            assert record.faults == ()
            hosts.append(host)
            seen.append(_seen(host))
    finally:
        kept.close()
    assert hosts[0] is not hosts[1]  # the entrant at seat 1 is a process of its own
    assert hosts[2] is hosts[0]  # back at seat 0: the process kept for that seat serves it
    for path in seen[0]:
        assert seen[0][path] != seen[1][path], path
        assert seen[2][path] == seen[0][path], path
