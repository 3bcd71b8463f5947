"""The CPU caches (issue 38): two sandboxed bots at one table passed a whole hand in one
decision by flush+reload on cache lines of a file both mapped from the machine's one image of
the system's files (libc's). At `strict` and `standard` a bot is shown an image of the seat
indexes, a copy of its own: two table-mates never see one physical file at one path, so no line
one flushes is a line the other reloads; and a kept process keeps its image, its tables
seated so that no table-mate holds the same one."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from isolation_support import reports
from needs import require

import arena
from arena.bot import Limits
from arena.entrants import Reference, resolve, seat_all
from arena.hosts.pipe import PipeHost
from arena.kept import KeptHosts
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


def test_a_kept_process_serves_its_entrant_at_either_seat_never_beside_its_own_image(
        level: str, tmp_path: Path) -> None:
    """A process keeps the image it was started with; a table is seated by images (the
    entrants' order at it), so the entrant below plays in one process at seat 0 and at seat
    1, and its table-mate in each game sees other files at every path."""
    mapper = resolve(Reference(_mapper(tmp_path), isolation=level))
    kept = KeptHosts()
    try:
        hosts, seen = [], []
        for seed, seated in ((1, [(0, mapper), (1, mapper)]), (2, [(1, mapper), (0, mapper)])):
            table = dict(zip((key for key, _ in seated), kept.table(seated, seed), strict=True))
            players = [entrant.player(table[key]) for key, entrant in seated]
            record = play_game(arena.get_rules("dice"), players, seed, limits=Limits(5.0))
            assert record.faults == ()
            hosts.append(table)
            seen.append({key: _seen(host) for key, host in table.items()})
    finally:
        kept.close()
    assert hosts[0][0] is hosts[1][0]  # entrant 0 at seat 0, then at seat 1: one process
    assert hosts[0][1] is hosts[1][1]
    for game in seen:
        for path in game[0]:
            assert game[0][path] != game[1][path], path  # table-mates: an image each
