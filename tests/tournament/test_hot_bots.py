"""Bots kept hot (issue 34): a field larger than a worker's kept processes is played in
bundles whose entrants fit them, so each bot process serves many games; the log is written
in schedule order, byte for byte what one game after another writes, through Ctrl-C,
`--resume` and a worker's death."""

from __future__ import annotations

import collections
import itertools
import textwrap
from pathlib import Path
from typing import Any

import pytest
from cli_support import write_config
from results_support import same_results

from arena import entrants, kept
from arena.executor.local import Death
from arena.hosts import walls
from arena.tournament.errors import TournamentError
from arena.tournament.formats.gauntlet import gauntlet
from arena.tournament.formats.schedule import GameSpec, balanced_tables, round_robin
from arena.tournament.load import load_tournament
from arena.tournament.run import hot, results
from arena.tournament.run.runner import Interrupted, run_tournament
from arena.tournament.run.worker import LostGames

SCHEDULES = {
    "round robin": round_robin(40, 2, 1, 3),
    "balanced tables": balanced_tables(50, 2, 900, 3),
    "gauntlet": gauntlet([0, 7, 9], 45, 2, 2, 3),
    "four seats": round_robin(14, 4, 1, 3),
    "three seats, capped": balanced_tables(30, 3, 700, 3),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
@pytest.mark.parametrize("cap", [4, 9, 32])
@pytest.mark.parametrize("sandboxed", [False, True])
def test_bundles_play_every_game_once_each_within_the_kept_processes(name: str, cap: int,
                                                                     sandboxed: bool) -> None:
    games = SCHEDULES[name]
    seats = max(len(g.seats) for g in games)
    images = seats if sandboxed else 1  # a sandboxed entrant: a process per seat index
    bundles = hot.bundles(games, cap, images, size=50)
    played = [game for bundle in bundles for game in bundle]
    assert sorted(g.id for g in played) == sorted(g.id for g in games)
    assert len(played) == len(games)
    place = {game.id: i for i, game in enumerate(games)}
    for bundle in bundles:
        assert 1 <= len(bundle) <= 50
        twins = max(collections.Counter(g.group for g in games).values()) if games[0].group \
            else 1  # an entrant of a twin game plays its deal again in a second process
        processes = len({seat for game in bundle for seat in game.seats}) * twins * images
        assert processes <= max(cap, seats * twins * images)
        assert [place[g.id] for g in bundle] == sorted(place[g.id] for g in bundle)


def test_bundles_start_each_bot_far_less_often_than_the_schedules_order() -> None:
    """A worker keeping 8 processes, the bundles one after another: the starts a worker's
    least-recently-used keeping makes, against the same games in schedule order."""
    games = balanced_tables(40, 2, 1500, 5)
    bundled = _starts([list(b) for b in hot.bundles(games, 8)], 8)
    in_order = _starts([[game] for game in games], 8)
    assert bundled * 3 < in_order


def test_a_capped_round_robin_of_200_sandboxed_bots_starts_a_bot_process_per_ten_games() -> None:
    """Issue 34's 200 distinct file bots at two seats, capped at 20,000 games, two workers
    keeping 32 processes each: a start serves a row of the field's games, and a process its
    entrant at either seat index (its image by the entrants' order at the table, not by the
    seat: 0.17 starts a game when a process served one seat index)."""
    games = balanced_tables(200, 2, 20_000, 1)
    units = [list(b) for b in hot.bundles(games, 32, images=2)]
    started = _starts(units[0::2], 32, images=2) + _starts(units[1::2], 32, images=2)
    assert started / len(games) < 0.1


def _starts(units: list[list[GameSpec]], cap: int, images: int = 1) -> int:
    """The processes one worker's KeptHosts starts for these units, played in turn (with
    `images`, a sandboxed entrant's, one per image it is shown)."""
    hosts = kept.KeptHosts(cap)
    started = 0

    class Counted:
        mode = "process"
        sandboxed = images > 1

        def host(self, seat: int = 0) -> Any:
            nonlocal started
            started += 1
            return _Idle()

    bot: Any = Counted()
    for unit in units:
        hosts.prefer({seat for game in unit for seat in game.seats})
        for game in unit:
            hosts.table([(entrant, bot) for entrant in game.seats], game.seed)
    return started


class _Idle:
    def shutdown(self) -> None:
        pass


@pytest.mark.parametrize("cap", [32, 1024])
def test_a_gauntlet_challenger_meets_every_champion_in_one_bundle(cap: int) -> None:
    """Its games on one worker, so it is started on one (twice: its rotation's twin game),
    however many processes a worker keeps (a field that fits was played in schedule order,
    its challengers started on every worker)."""
    games = gauntlet([0, 1, 2, 3], 100, 2, 1, 5)
    bundles = hot.bundles(games, cap, images=2)
    for challenger in range(4, 100):
        assert sum(any(challenger in game.seats for game in b) for b in bundles) == 1


def test_windows_cut_the_schedule_in_order() -> None:
    games = round_robin(12, 2, 1, 1)
    cut = list(hot.windows(games, 50))
    assert [len(w) for w in cut] == [50, 50, 32]
    assert list(itertools.chain.from_iterable(cut)) == games


CONFIG = """
name: hot
rules: dice
options: {{max_points: 1}}
entrants:
{entrants}
format: {{type: {format}}}
seed: 11
"""
"""Games of one point (a round each): what is checked, the starts and the bytes, is the same
for games of any length, and a run of the field costs less (to 2 points: 9.8 s of CPU the
round robin's three runs, to 1: 8.2)."""


def _config(tmp_path: Path, fmt: str = "round-robin, seats: 2, games: 1", size: int = 7) -> Path:
    bots = itertools.cycle(["random", "honest", "statistician"])
    field = "\n".join(f"  - {{bot: {next(bots)}, alias: e{n}, mode: process}}"
                      for n in range(size))
    text = CONFIG.format(entrants=field, format=fmt)
    return write_config(tmp_path, textwrap.dedent(text), f"{fmt[:5]}.yaml")


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the bot processes this process starts."""
    started = [0]
    real = entrants.Resolved.host

    def host(self: entrants.Resolved, seat: int = 0) -> Any:
        started[0] += self.mode != "inline"
        return real(self, seat)

    monkeypatch.setattr(entrants.Resolved, "host", host)
    return started


@pytest.mark.parametrize(("fmt", "size", "floor"), [  # (not sandboxed, sandboxed): a
    # sandboxed entrant keeps a process for each image it is shown (arena.hosts.view), by its
    # order at the table: the lowest and the highest entrant one, each other two. A start
    # costs more than a game (sandboxed, about 70 ms of CPU against 12), so the fields and
    # games are the fewest that keep what each case shows: the round robin's 21 games
    # (cap: 40 before) still meet every pair once, each other entrant at both places at the
    # table, and 4 kept start some again (15 against 12 sandboxed); a gauntlet, an
    # elimination and a swiss of 5 entrants (7 before: 40, 60 and 12 games, 38, 35 and 37
    # starts of one worker sandboxed) still start a field larger than 4 kept processes (12,
    # 32 and 8 games, 26, 18 and 21 starts), the gauntlet's one game a pairing still twins
    ("round-robin, seats: 2, games: 2, cap: 21", 7, (7, 12)),  # balanced tables: drawn order
    ("gauntlet, champions: [e0, e3], seats: 2, games: 1", 5, (10, 10)),  # twin games: 2 each
    ("elimination, seats: 2, games: 3, seeding: 1", 5, None),  # batch by batch: same bytes
    ("swiss, seats: 2, rounds: 2", 5, None),  # the second round paired by the first's results
])
def test_a_field_larger_than_a_worker_keeps_writes_the_same_bytes_with_few_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, size: int,
    floor: tuple[int, int] | None
) -> None:
    cfg = load_tournament(_config(tmp_path, fmt, size))
    started = _counting(monkeypatch)
    least = floor[walls.level().sandboxed] if floor else None
    run_tournament(cfg, tmp_path / "all kept", workers=1)  # 5 or 7 entrants, 32 kept: no churn
    assert least is None or started[0] == least
    monkeypatch.setattr(kept, "KEPT_CAP", 4)  # 5 or 7 entrants, 4 kept: bundles
    started[0] = 0
    run_tournament(cfg, tmp_path / "hot", workers=1)
    same_results(tmp_path / "all kept", tmp_path / "hot")
    assert least is None or started[0] <= 2 * least
    run_tournament(cfg, tmp_path / "two workers", workers=2)  # bundles sent to processes
    same_results(tmp_path / "all kept", tmp_path / "two workers")


def test_ctrl_c_with_games_played_ahead_then_resume_writes_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines wait for earlier games; Ctrl-C keeps the written ones (their replays with them)
    and `--resume` plays the rest, replays written ahead of their lines included."""
    # 5 entrants, 20 games (7 and 42 before: 6 s of CPU in all, about 4 now): the stop at the
    # eleventh line still leaves replays ahead (14, of one worker's bundles in turn)
    cfg = load_tournament(_config(tmp_path, size=5))
    run_tournament(cfg, tmp_path / "full", workers=1)
    monkeypatch.setattr(kept, "KEPT_CAP", 4)
    seen = [0]

    def progress(tally: Any) -> None:
        seen[0] += 1
        if seen[0] == 12:  # the eleventh line is written: stop with games played ahead
            raise KeyboardInterrupt

    with pytest.raises(Interrupted) as stop:
        run_tournament(cfg, tmp_path / "cut", workers=1, progress=progress)
    assert stop.value.done == 11
    ahead = len(list((tmp_path / "cut" / results.REPLAYS).glob("*.json.gz")))
    assert ahead > 11  # replays of games played ahead of their turn, without lines
    run_tournament(cfg, tmp_path / "cut", workers=2, resume=True)
    same_results(tmp_path / "full", tmp_path / "cut")


def test_a_worker_dying_in_a_bundle_plays_it_again_then_stops_the_run() -> None:
    told: list[str] = []
    lost = LostGames(told.append)
    bundle = tuple(round_robin(4, 2, 1, 1)[2:6])
    assert lost(Death(bundle, 1, "killed by SIGKILL", None)) == bundle
    said = ("a worker died (killed by SIGKILL) in the games rr-000003 to rr-000006; its games "
            "are played again on a new worker")
    assert told == [said]
    with pytest.raises(TournamentError, match=r"^the games rr-000003 to rr-000006 killed its "
                       r"worker 2 times \(killed by SIGKILL\), not in a bot's call; "):
        lost(Death(bundle, 2, "killed by SIGKILL", None))
