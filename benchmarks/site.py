"""Benchmark of the site (`arena serve`, issue 35) at a season's scale: 100 participants,
1,000 versions and 100,000 indexed two-seat games, on SQLite (what `arena serve` uses unless
ARENA_SITE_DATABASE names a PostgreSQL server).

Run: python benchmarks/site.py [--games 100000] [--folder results/bench-site] [--repeat 40]
                               [--runs 3] [--run-games 2000] [--fit-players 100,200]

The first run builds the site in the folder and keeps it (later runs reuse it): the database's
rows bulk-created (participants, bots, versions, games, seats) and a results folder that
matches them: games.jsonl (a line a game, 1% of them with a fault), ladder.json (the ranking
of each bot's active version, and a history of every batch of 16 games, as the ladder writes
it) and the replays of one bot's faulted games (its owner's page reads them). Then `--runs`
times, each part in turn so that every part sees the same machine:

- the pages, with Django's test client: `/leaderboard`, `/leaderboard/rows`, `/bots/<name>`
  as its owner and as another participant, `--repeat` requests each after one untimed; and
  `/leaderboard/rows` once just after ladder.json changed (the first reader after a batch
  parses it again). The 95th percentile of each, against the goal of 200 ms.
- the runner's keep-up: games/s of the season's own index_games over every line of
  games.jsonl into a fresh database (a process of its own), against games/s of `arena run`
  (a ladder of built-in inline bots, the executor's fastest case, `--run-games` games with
  its start and end, on every core);
- the ladder's own bookkeeping of a season turn: its Elo fit of a ranking of
  `--fit-players` players over the games (arena.ratings), and the whole ladder.json that
  run_ladder derives at the end of every turn, after `--derive-games` games of the 100 bots'
  active versions (a history entry, and so an Elo fit, for every batch of 16 games before).

The medians over the runs are printed last, with the load average beside each figure.
A benchmark, never a timed test: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

CONFIG = """\
name: bench-site
rules: dice
options: {max_points: 2}
entrants: [honest, random]
format: {type: ladder, seats: 2, min_games: 4}
"""
RUN_CONFIG = """\
name: bench-run
rules: dice
options: {max_points: 2}
entrants: [honest, random, bluffer]
format: {type: ladder, seats: 2, min_games: 4}
"""
PARTICIPANTS, VERSIONS, BATCH = 100, 10, 16
MEASURED = "bot042"
GOAL_MS = 200.0
FAULT_EVERY = 100
"""One game in this many has a fault (its second seat's)."""
STDERR = "Traceback (most recent call last): | ValueError: no such claim"


def load() -> float:
    """The machine's load average over the last minute."""
    return os.getloadavg()[0]


# --- the site: rows and a matching results folder -------------------------------------------


def players() -> list[str]:
    """Every version's ladder name, `bot042@7`: bot by bot, version by version."""
    return [f"bot{b:03d}@{n}" for b in range(PARTICIPANTS) for n in range(1, VERSIONS + 1)]


def game_lines(games: int) -> Iterator[dict[str, Any]]:
    """games.jsonl's lines: two versions a game, drawn at random (the same every build)."""
    rng, everyone = random.Random(1), players()
    for number in range(games):
        seated = rng.sample(everyone, 2)
        placements = [1, 2] if rng.random() < 0.5 else [2, 1]
        faults = [] if number % FAULT_EVERY else [
            {"seat": 1, "kind": "crash", "message": f"act raised ValueError; stderr: {STDERR}"}]
        yield {"id": f"ld-{number + 1:08d}", "stage": "ladder", "table": number // 2 + 1,
               "seed": number, "entrants": seated, "placements": placements, "scores": [0, 0],
               "faults": faults, "decisions": 10,
               "replay": f"replays/ld-{number + 1:08d}.json.gz"}


def ladder_document(games: int) -> dict[str, Any]:
    """ladder.json: each bot's active version ranked, and a history entry every batch."""
    rng = random.Random(2)
    active = [f"bot{b:03d}@{VERSIONS}" for b in range(PARTICIPANTS)]
    elo = {p: rng.gauss(0, 200) for p in active}
    ranking = []
    for rank, player in enumerate(sorted(active, key=lambda p: -elo[p]), 1):
        ranking.append({"player": player, "entrant": player.partition("@")[0],
                        "version": VERSIONS, "elo": elo[player], "low": elo[player] - 60,
                        "high": elo[player] + 60, "games": games * 2 // len(players()),
                        "faults": 2, "provisional": False, "rank": rank, "tied": rank % 3 == 0})
    history = [{"batch": n + 1, "after": after, "ratings": {
        p: [elo[p], elo[p] - 60, elo[p] + 60] for p in active}}
        for n, after in enumerate(range(0, games, BATCH))]
    return {"format": "ladder", "rules": "dice", "seats": 2, "min_games": 4, "games": games,
            "batches": len(history), "top": 4, "ranking": ranking, "unresolved": [],
            "history": history, "versions": [], "final": None}


def faulted_replay() -> bytes:
    """A real replay of a game where seat 1's bot raised: what a fault's details come from."""
    import arena
    from arena.replay import encode_game

    class Raises(arena.Bot):
        def act(self, observation: arena.Observation) -> arena.Action:
            raise ValueError("no such claim")

    record = arena.play_game("dice", ["random", Raises], seed=1, options={"max_points": 2})
    assert record.faults, "the raising bot did not fault"
    return encode_game(record, {"id": "ld-x", "stage": "ladder", "table": 1},
                       [{"name": "random"}, {"name": "raises"}])


def write_results(results: Path, games: int) -> None:
    """games.jsonl, ladder.json and the measured bot's faulted games' replays."""
    (results / "replays").mkdir(parents=True, exist_ok=True)
    replay = faulted_replay()
    with open(results / "games.jsonl", "w", encoding="utf-8") as out:
        for line in game_lines(games):
            out.write(json.dumps(line, separators=(",", ":")) + "\n")
            if line["faults"] and line["entrants"][1].startswith(MEASURED + "@"):
                (results / line["replay"]).write_bytes(replay)
    (results / "ladder.json").write_text(json.dumps(ladder_document(games), sort_keys=True,
                                                    indent=1) + "\n", encoding="utf-8")


def fill(results: Path, games: int) -> None:
    """The database's rows for the results folder: participants, bots, versions with their
    ladder names, a Game and its Seats a line of games.jsonl, the season's offsets at the
    end of the file."""
    from django.contrib.auth.models import User

    from arena.site.contest.models import Bot, Game, Season, Seat, Version

    users = User.objects.bulk_create(User(username=f"p{i:03d}") for i in range(PARTICIPANTS))
    bots = Bot.objects.bulk_create(Bot(name=f"bot{i:03d}", key=f"bot{i:03d}", owner=u)
                                   for i, u in enumerate(users))
    made = Version.objects.bulk_create(
        Version(bot=b, number=n, sha256=f"{b.pk:032d}{n:032d}", kind="file",
                filename=f"{b.name}.py", size=1000, player=f"{b.name}@{n}",
                status="active" if n == VERSIONS else "retired")
        for b in bots for n in range(1, VERSIONS + 1))
    version = {v.player: v for v in made}
    lines = game_lines(games)
    for start in range(0, games, 5000):
        chunk = [next(lines) for _ in range(min(5000, games - start))]
        rows = Game.objects.bulk_create(
            Game(number=start + i, game_id=g["id"], seed=str(g["seed"]), players=g["entrants"],
                 placements=g["placements"], faulted=bool(g["faults"]))
            for i, g in enumerate(chunk))
        Seat.objects.bulk_create(
            Seat(game=row, seat=s, entrant=g["entrants"][s], version=version[g["entrants"][s]],
                 placement=g["placements"][s],
                 fault="crash" if g["faults"] and s == 1 else "",
                 fault_message=g["faults"][0]["message"] if g["faults"] and s == 1 else "")
            for row, g in zip(rows, chunk, strict=True) for s in (0, 1))
    Season.objects.update_or_create(pk=1, defaults={
        "games_offset": (results / "games.jsonl").stat().st_size, "games_indexed": games})


def site(folder: Path, games: int) -> Path:
    """Start Django on the benchmark's site (built on first use); its results folder."""
    results = folder / "results"
    (folder / "config.yaml").write_text(CONFIG + f"output: {results}\n", encoding="utf-8")
    fresh = not (folder / "site" / "db.sqlite3").exists()
    if fresh and results.exists():
        shutil.rmtree(results)
    import arena.site

    arena.site.setup(folder / "config.yaml", folder / "site")
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    setup_test_environment()  # the test client's hosts, as a browser reaches the site
    call_command("migrate", verbosity=0)
    if fresh:
        started = time.perf_counter()
        write_results(results, games)
        fill(results, games)
        print(f"built {games:,} games in {time.perf_counter() - started:.0f} s")
    return results


# --- the pages ------------------------------------------------------------------------------


def clients() -> dict[str, Any]:
    """A stranger (another participant, signed in) and the measured bot's owner."""
    from django.contrib.auth.models import User
    from django.test import Client

    from arena.site.contest.models import Bot

    owner, stranger = Client(), Client()
    owner.force_login(User.objects.get(pk=Bot.objects.get(name=MEASURED).owner_id))
    stranger.force_login(User.objects.get(username="p001"))
    return {"owner": owner, "stranger": stranger}


def timed(client: Any, url: str, repeat: int, warm: bool = True
          ) -> tuple[list[float], list[float]]:
    """Each request's wall time and this process's CPU time in ms (the page's own work, which
    the machine's load does not stretch), after one untimed request (templates compiled, as
    on a server) unless not `warm`."""
    if warm:
        client.get(url)
    wall, cpu = [], []
    for _ in range(repeat):
        started, used = time.perf_counter(), time.process_time()
        response = client.get(url)
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - used) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return wall, cpu


def p95(times: list[float]) -> float:
    return statistics.quantiles(times, n=20)[-1] if len(times) > 1 else times[0]


def pages(results: Path, repeat: int) -> dict[str, tuple[float, float]]:
    """Each page's 95th percentile of wall time and median CPU time in ms, and the
    leaderboard's first answer after a batch rewrote ladder.json (the worst of three)."""
    by = clients()
    asked = {"/leaderboard": ("stranger", "/leaderboard"),
             "/leaderboard/rows": ("stranger", "/leaderboard/rows"),
             f"/bots/{MEASURED} (owner)": ("owner", f"/bots/{MEASURED}"),
             f"/bots/{MEASURED} (stranger)": ("stranger", f"/bots/{MEASURED}")}
    found = {}
    for name, (who, url) in asked.items():
        wall, cpu = timed(by[who], url, repeat)
        found[name] = (p95(wall), statistics.median(cpu))
    ladder, cold = results / "ladder.json", []
    for _ in range(3):
        os.utime(ladder, ns=(time.time_ns(), time.time_ns()))  # as the season's rewrite does
        wall, cpu = timed(by["stranger"], "/leaderboard/rows", 1, warm=False)
        cold.append((wall[0], cpu[0]))
    found["/leaderboard/rows after a batch"] = max(cold)
    return found


# --- the runner's keep-up -------------------------------------------------------------------


def index_rate(folder: Path) -> tuple[int, float]:
    """Games indexed and seconds: index_games over games.jsonl into a fresh database, in a
    process of its own (this one's Django is the benchmark's site)."""
    data = folder / "index-site"
    shutil.rmtree(data, ignore_errors=True)
    done = subprocess.run([sys.executable, __file__, "--index-into", str(data),
                           "--folder", str(folder)], capture_output=True, text=True, check=True)
    shutil.rmtree(data, ignore_errors=True)
    said = json.loads(done.stdout.strip().splitlines()[-1])
    return int(said["games"]), float(said["seconds"])


def index_child(folder: Path, data: Path) -> None:
    """The child of index_rate: participants, bots and versions as in the site, then the
    season's index_games over the whole games.jsonl, timed."""
    import arena.site

    arena.site.setup(folder / "config.yaml", data)
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from arena.site.contest.models import Bot, Version
    from arena.site.season.index import index_games

    call_command("migrate", verbosity=0)
    users = User.objects.bulk_create(User(username=f"p{i:03d}") for i in range(PARTICIPANTS))
    bots = Bot.objects.bulk_create(Bot(name=f"bot{i:03d}", key=f"bot{i:03d}", owner=u)
                                   for i, u in enumerate(users))
    Version.objects.bulk_create(
        Version(bot=b, number=n, sha256=f"{n:064d}", kind="file", filename=f"{b.name}.py",
                size=1000, player=f"{b.name}@{n}", notified=True)
        for b in bots for n in range(1, VERSIONS + 1))
    started = time.perf_counter()
    games = index_games(folder / "results")
    print(json.dumps({"games": games, "seconds": time.perf_counter() - started}))


def run_rate(games: int) -> tuple[int, float]:
    """Games played and seconds of `arena run` of a ladder of built-in bots, start to end."""
    with tempfile.TemporaryDirectory(prefix="bench-site-run-") as where:
        config = Path(where) / "ladder.yaml"
        config.write_text(RUN_CONFIG, encoding="utf-8")
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "arena", "run", str(config), "--games",
                        str(games), "--out", str(Path(where) / "out"), "--quiet"],
                       check=True, stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - started
        played = len((Path(where) / "out" / "games.jsonl").read_bytes().splitlines())
    return played, seconds


def fit_seconds(results: Path, size: int) -> float:
    """Seconds of the Elo fit of a ranking of `size` players over games.jsonl's games (each
    version folded onto one of them), as the ladder fits one (arena.ratings.summary) each
    time it writes ladder.json."""
    from arena.ratings.summary import summarise

    number = {player: i % size for i, player in enumerate(players())}
    games = []
    with open(results / "games.jsonl", encoding="utf-8") as lines:
        for game in map(json.loads, lines):
            seated = [f"p{number[e]:04d}" for e in game["entrants"]]
            if seated[0] != seated[1]:
                games.append({**game, "entrants": seated})
    started = time.perf_counter()
    summarise(games, sorted({f"p{n:04d}" for n in range(size)})).elo()
    return time.perf_counter() - started


def derive_seconds(games: int) -> float:
    """Seconds of the ladder's own ladder.json (ladder_json of
    arena.tournament.formats.ladder.log, which run_ladder writes at the end of every season
    turn) after `games` games of each bot's active version, a batch every 16 games."""
    from arena.site.contest.contest import current
    from arena.tournament.formats.ladder.log import ladder_json

    active = [f"bot{b:03d}@{VERSIONS}" for b in range(PARTICIPANTS)]
    events = [{"player": p, "entrant": p.partition("@")[0], "version": VERSIONS,
               "status": "active", "digest": f"sha256:{n:064d}", "source": p, "reason": None,
               "after": 0} for n, p in enumerate(active)]
    rng = random.Random(3)
    played = [{**line, "entrants": rng.sample(active, 2)} for line in game_lines(games)]
    started = time.perf_counter()
    ladder_json(current().config, events, played, list(range(0, games, BATCH)))
    return time.perf_counter() - started


# --- a run, and the medians -----------------------------------------------------------------


def one_run(folder: Path, results: Path, args: argparse.Namespace,
            figures: dict[str, list[tuple[float, float]]]) -> None:
    """Each part once, its figures printed and kept with the load beside them."""
    def keep(name: str, value: float, unit: str,
             note: Callable[[float], str] = lambda _: "") -> None:
        figures[name].append((value, load()))
        print(f"  {name:46} {value:9.1f} {unit:4} {note(value)}(load {load():.1f})")

    for url, (wall, cpu) in pages(results, args.repeat).items():
        keep(url, wall, "ms", lambda v: "meets the goal " if v < GOAL_MS else "MISSES the goal ")
        keep(f"  {url}: CPU", cpu, "ms")
    indexed, seconds = index_rate(folder)
    keep(f"indexing ({indexed:,} lines)", indexed / seconds, "g/s")
    played, seconds = run_rate(args.run_games)
    keep(f"arena run ({played:,} games)", played / seconds, "g/s")
    for size in args.fit_players:
        keep(f"Elo fit, {size} players", fit_seconds(results, size), "s")
    if args.derive_games:
        keep(f"ladder.json after {args.derive_games:,} games", derive_seconds(args.derive_games),
             "s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--folder", type=Path, default=Path("results/bench-site"))
    parser.add_argument("--repeat", type=int, default=40, help="Requests a page, a run.")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--run-games", type=int, default=2000,
                        help="Games of the `arena run` the indexing is set against.")
    parser.add_argument("--fit-players", type=lambda s: [int(n) for n in s.split(",") if n],
                        default=[100, 200], help="Sizes of the Elo fits timed (comma-separated).")
    parser.add_argument("--derive-games", type=int, default=400,
                        help="Games of the ladder.json derivation timed (0: not timed).")
    parser.add_argument("--index-into", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    folder = args.folder.resolve()
    if args.index_into is not None:
        index_child(folder, args.index_into.resolve())
        return
    folder.mkdir(parents=True, exist_ok=True)
    results = site(folder, args.games)
    figures: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for run in range(1, args.runs + 1):
        print(f"run {run} of {args.runs}:")
        one_run(folder, results, args, figures)
    print(f"medians of {args.runs} runs ({args.repeat} requests a page a run; "
          f"goal {GOAL_MS:.0f} ms at the 95th percentile):")
    for name, kept in figures.items():
        values, loads = zip(*kept, strict=True)
        print(f"  {name:46} {statistics.median(values):9.1f}   "
              f"(load {min(loads):.1f} to {max(loads):.1f})")


if __name__ == "__main__":
    main()
