"""Benchmark of a bot's page on `arena serve` (issue 35): 100 participants, 1,000 versions
and 100,000 two-seat games in the index (SQLite, as a class on a laptop runs it).

Run: python benchmarks/site_botpage.py [--games 100000] [--folder results/bench-site] [--repeat 40]

The first run fills the database in the folder and keeps it; later runs reuse it. Then it
asks for the public page of a bot, and its owner's page (the record's SQL aggregate, the
recent games, the versions; the faults read no replay here, none being indexed with a
fault), `--repeat` times each, and prints the median and the 95th percentile with the load
average, and SQLite's plan of the record's query. A benchmark, never a timed test.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from pathlib import Path

CONFIG = """\
name: bench-site
rules: dice
options: {max_points: 2}
entrants: [honest, random]
format: {type: ladder, seats: 2, min_games: 4}
"""
PARTICIPANTS, VERSIONS = 100, 10


def fill(games: int) -> None:
    """100 participants with a bot of 10 versions each, and `games` games between them."""
    from django.contrib.auth.models import User

    from arena.site.contest.models import Bot, Game, Seat, Version

    users = User.objects.bulk_create(User(username=f"p{i:03d}") for i in range(PARTICIPANTS))
    bots = Bot.objects.bulk_create(Bot(name=f"bot{i:03d}", key=f"bot{i:03d}", owner=u)
                                   for i, u in enumerate(users))
    versions = Version.objects.bulk_create(
        Version(bot=b, number=n, sha256=f"{b.pk:032d}{n:032d}", kind="file",
                filename=f"{b.name}.py", size=1000,
                status="active" if n == VERSIONS else "retired")
        for b in bots for n in range(1, VERSIONS + 1))
    rng = random.Random(1)
    for start in range(0, games, 5000):
        batch = range(start, min(games, start + 5000))
        tables = {g: rng.sample(versions, 2) for g in batch}
        made = Game.objects.bulk_create(
            Game(number=g, game_id=f"lad-{g:06d}", seed=str(g),
                 players=[v.entrant for v in tables[g]], placements=[1, 2]) for g in batch)
        Seat.objects.bulk_create(
            Seat(game=game, seat=s, entrant=tables[game.number][s].entrant,
                 version=tables[game.number][s], placement=s + 1)
            for game in made for s in (0, 1))


def timed(url: str, client: object, repeat: int) -> list[float]:
    """Each request's wall time, after one untimed (templates compiled, as on a server)."""
    client.get(url)  # type: ignore[attr-defined]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        response = client.get(url)  # type: ignore[attr-defined]
        times.append(time.perf_counter() - start)
        assert response.status_code == 200, response.status_code
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--folder", type=Path, default=Path("results/bench-site"))
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args()
    folder = args.folder.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(CONFIG + f"output: {folder / 'results'}\n")
    fresh = not (folder / "site" / "db.sqlite3").exists()
    import arena.site

    arena.site.setup(folder / "config.yaml", folder / "site")
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment

    setup_test_environment()
    call_command("migrate", verbosity=0)
    if fresh:
        start = time.perf_counter()
        fill(args.games)
        print(f"filled {args.games:,} games in {time.perf_counter() - start:.0f} s")
    from django.contrib.auth.models import User

    from arena.site.contest import bot_data
    from arena.site.contest.models import Bot

    bot = Bot.objects.get(name="bot042")
    owner = Client()
    owner.force_login(User.objects.get(pk=bot.owner_id))
    with connection.cursor() as cursor:
        sql, params = _record_sql(bot)
        cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
        print("record's plan:", "; ".join(str(row[-1]) for row in cursor.fetchall()))
    for who, client in (("public", Client()), ("owner", owner)):
        times = timed(f"/bots/{bot.name}", client, args.repeat)
        p95 = statistics.quantiles(times, n=20)[-1]
        print(f"{who} page: median {statistics.median(times) * 1000:.0f} ms, 95th percentile "
              f"{p95 * 1000:.0f} ms over {args.repeat} ({bot_data.seats_of(bot).count():,} "
              f"seats of the bot; load {os.getloadavg()[0]:.1f})")


def _record_sql(bot: object) -> tuple[str, object]:
    """The record's SQL, as Django sends it."""
    from django.db.models import Count, F, Q

    from arena.site.contest.models import Seat, Version

    versions = list(Version.objects.filter(bot=bot).values_list("id", flat=True))
    query = (Seat.objects.filter(version__in=versions, game__voided=False)
             .values("game__seats__entrant")
             .annotate(wins=Count("id", filter=Q(game__seats__placement__gt=F("placement"))))
             .order_by()).query
    return query.sql_with_params()


if __name__ == "__main__":
    main()
