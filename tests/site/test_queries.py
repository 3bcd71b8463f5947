"""The pages ask the database the same number of questions however long the season has run:
a page's query count does not grow with the games, the bots, their versions or their faults
(no query per row), so the leaderboard and a bot page stay fast at 100,000 games
(benchmarks/site.py times them)."""

from __future__ import annotations

import json
from itertools import count

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from arena.site.contest.contest import Contest
from arena.site.contest.models import Bot, Game, Seat, Version

PAGES = ("/", "/leaderboard", "/leaderboard/rows", "/bots/bot000", "/bots/bot001",
         "/bots/bot000/versions", "/games", "/games?page=2", "/games/ld-00000001", "/my-bots",
         "/grades")
VERSIONS = 3


class Season:
    """A season grown in steps: participants with their bots and versions, games between
    the bots' versions (every third with a fault), and ladder.json's ranking of them."""

    def __init__(self, contest: Contest) -> None:
        self.contest = contest
        self.versions: list[Version] = []
        self.numbers = count()

    def add_bots(self, how_many: int) -> None:
        for _ in range(how_many):
            number = Bot.objects.count()
            owner = User.objects.create_user(f"p{number:03d}")
            bot = Bot.objects.create(name=f"bot{number:03d}", owner=owner)
            self.add_versions(bot, VERSIONS)

    def add_versions(self, bot: Bot, how_many: int) -> None:
        """`how_many` new versions of a bot, the newest active and the others retired."""
        bot.versions.update(status="retired")
        first = bot.versions.count() + 1
        for n in range(first, first + how_many):
            self.versions.append(Version.objects.create(
                bot=bot, number=n, sha256=f"{bot.pk:032d}{n:032d}", kind="file",
                filename=f"{bot.name}.py", size=10, player=f"{bot.name}@{n}",
                status="active" if n == first + how_many - 1 else "retired",
                problem=f"problem {n}", checklist=[{"ok": True, "text": "starts"}]))
        for version in self.versions:
            version.refresh_from_db(fields=["status"])
        self._rank()

    def add_games(self, how_many: int) -> None:
        for _ in range(how_many):
            number = next(self.numbers)
            seated = [self.versions[number % len(self.versions)],
                      self.versions[(number * 7 + 1) % len(self.versions)]]
            if seated[0].bot_id == seated[1].bot_id:
                seated[1] = self.versions[(number * 7 + VERSIONS + 1) % len(self.versions)]
            game = Game.objects.create(number=number, game_id=f"ld-{number + 1:08d}",
                                       seed=str(number), players=[v.player for v in seated],
                                       placements=[1, 2], faulted=number % 3 == 0)
            for place, version in enumerate(seated):
                crashed = number % 3 == 0 and place == 1
                Seat.objects.create(game=game, seat=place, entrant=version.player,
                                    version=version, placement=place + 1,
                                    fault="crash" if crashed else "",
                                    fault_message="it raised; stderr: a | b" if crashed else "")

    def _rank(self) -> None:
        active = [v for v in self.versions if v.status == "active"]
        ranking = [{"player": v.player, "entrant": v.bot.name, "version": v.number,
                    "elo": 100.0 - rank, "low": 50.0, "high": 150.0, "games": 10, "faults": 1,
                    "provisional": rank % 4 == 3, "rank": rank, "tied": False}
                   for rank, v in enumerate(active, 1)]
        self.contest.results.mkdir(parents=True, exist_ok=True)
        (self.contest.results / "ladder.json").write_text(json.dumps({"ranking": ranking}))


def _clients() -> dict[str, Client]:
    """The first bot's owner, another participant, someone signed out, and a staff member."""
    clients = {name: Client() for name in ("owner", "stranger", "anonymous", "staff")}
    clients["owner"].force_login(User.objects.get(username="p000"))
    clients["stranger"].force_login(User.objects.get(username="p001"))
    clients["staff"].force_login(User.objects.create_user("teacher", is_staff=True))
    return clients


def _queries(clients: dict[str, Client]) -> dict[tuple[str, str], int]:
    """Each page's query count for each reader (after one request, as a running site)."""
    found = {}
    for who, client in clients.items():
        for page in PAGES:
            client.get(page)
            with CaptureQueriesContext(connection) as queries:
                client.get(page)
            found[who, page] = len(queries)
    return found


@pytest.mark.django_db
def test_no_page_asks_more_as_the_season_grows(contest: Contest) -> None:
    season = Season(contest)
    season.add_bots(3)
    season.add_games(60)
    clients = _clients()
    small = _queries(clients)
    season.add_bots(9)
    for bot in Bot.objects.filter(name__in=("bot000", "bot001")):
        season.add_versions(bot, 4)
    season.add_games(240)
    assert _queries(clients) == small


@pytest.mark.django_db
def test_the_counted_pages_answer_as_each_reader_should(contest: Contest) -> None:
    """The counts above are of real answers: pages, not errors (a 404 only for another's
    private page, a redirect to sign in for my-bots)."""
    season = Season(contest)
    season.add_bots(3)
    season.add_games(60)
    clients = _clients()
    private = {"/bots/bot000/versions"}
    for who, client in clients.items():
        for page in PAGES:
            status = client.get(page).status_code
            if page == "/grades":
                assert status == (200 if who == "staff" else 404), (who, page)
            elif page == "/my-bots" and who == "anonymous":
                assert status == 302, (who, page)
            elif page in private and who in ("stranger", "anonymous"):
                assert status == 404, (who, page)
            else:
                assert status == 200, (who, page, status)
