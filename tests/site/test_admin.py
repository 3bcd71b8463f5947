"""The organiser's admin actions set what the season process honours (a bot disabled, games
voided, a version sent back to be checked, the season closed), and export the leaderboard
(CSV, from ladder.json) and the results folder (a zip, never the data folder)."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from arena.site.contest.contest import Contest
from arena.site.contest.models import Bot, Game, Season, Version


@pytest.fixture
def organiser(contest: Contest, db: None) -> Client:
    """A signed-in organiser (a superuser, as `createsuperuser` makes)."""
    client = Client()
    client.force_login(User.objects.create_superuser("coach", password="a long pass phrase 9"))
    return client


def act(client: Client, model: str, action: str, *pks: int) -> object:
    """Choose rows in the admin's list of `model` and run `action` on them."""
    return client.post(f"/admin/contest/{model}/", {
        "action": action, "_selected_action": [str(pk) for pk in pks], "index": "0"})


def version(bot: Bot, number: int, status: str) -> Version:
    return Version.objects.create(bot=bot, number=number, sha256=f"{number:064x}",
                                  kind="file", filename=f"{bot.name}.py", size=10,
                                  status=status, problem="it said so", checklist=[{"ok": False}])


def test_the_organiser_disables_and_enables_a_bot(organiser: Client, alice: User) -> None:
    bot = Bot.objects.create(name="alpha", owner=alice)
    other = Bot.objects.create(name="beta", owner=alice)
    act(organiser, "bot", "disable", bot.pk)
    assert list(Bot.objects.order_by("name").values_list("disabled", flat=True)) == [True, False]
    act(organiser, "bot", "enable", bot.pk, other.pk)
    assert not Bot.objects.filter(disabled=True).exists()


def test_the_organiser_voids_games(organiser: Client) -> None:
    games = [Game.objects.create(number=n, game_id=f"g{n}", seed="1", players=["a", "b"],
                                 placements=[1, 2]) for n in range(3)]
    act(organiser, "game", "void", games[0].pk, games[2].pk)
    assert sorted(Game.objects.filter(voided=True).values_list("number", flat=True)) == [0, 2]
    act(organiser, "game", "unvoid", games[2].pk)
    assert list(Game.objects.filter(voided=True).values_list("number", flat=True)) == [0]


def test_re_run_sends_back_only_a_rejected_or_failed_version(organiser: Client,
                                                             alice: User) -> None:
    bot = Bot.objects.create(name="alpha", owner=alice)
    rejected, failed, active = (version(bot, 1, "rejected"), version(bot, 2, "failed-check"),
                                version(bot, 3, "active"))
    act(organiser, "version", "rerun", rejected.pk, failed.pk, active.pk)
    for row in (rejected, failed):
        row.refresh_from_db()
        assert (row.status, row.problem, row.checklist) == ("received", "", [])
    active.refresh_from_db()
    assert (active.status, active.problem) == ("active", "it said so")


def test_the_organiser_closes_the_season(organiser: Client) -> None:
    assert organiser.get("/admin/contest/season/").status_code == 200  # its one row, made
    act(organiser, "season", "close", Season.current().pk)
    assert Season.current().closed


def test_a_participant_reaches_no_admin_action(contest: Contest, alice: User) -> None:
    bot = Bot.objects.create(name="alpha", owner=alice)
    client = Client()
    client.force_login(alice)
    assert act(client, "bot", "disable", bot.pk).status_code == 302  # type: ignore[attr-defined]
    bot.refresh_from_db()
    assert not bot.disabled


def test_the_leaderboard_export_is_ladder_json_s_ranking(organiser: Client,
                                                         contest: Contest) -> None:
    ranking = [{"rank": 1, "player": "=cmd|calc", "entrant": "=cmd|calc@1", "version": 1,
                "elo": 1612.5, "low": 1500.0, "high": 1725.0, "games": 40, "faults": 0,
                "provisional": False, "tied": False},
               {"rank": 2, "player": "honest", "entrant": "honest", "version": None,
                "elo": 1400.0, "low": 1300.0, "high": 1500.0, "games": 40, "faults": 1,
                "provisional": True, "tied": False}]
    contest.results.mkdir(parents=True)
    (contest.results / "ladder.json").write_text(json.dumps({"ranking": ranking}))
    response = act(organiser, "season", "export_leaderboard", Season.current().pk)
    assert response["Content-Type"] == "text/csv; charset=utf-8"  # type: ignore[index]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))  # type: ignore[attr-defined]
    assert [row["player"] for row in rows] == ["'=cmd|calc", "honest"]  # never a formula
    assert rows[1] == {"rank": "2", "player": "honest", "entrant": "honest", "version": "",
                       "elo": "1400.0", "low": "1300.0", "high": "1500.0", "games": "40",
                       "faults": "1", "provisional": "True", "tied": "False"}


def test_without_ladder_json_the_export_says_so(organiser: Client) -> None:
    response = act(organiser, "season", "export_leaderboard", Season.current().pk)
    assert response.status_code == 302  # type: ignore[attr-defined]
    page = organiser.get("/admin/contest/season/").content.decode()
    assert "No leaderboard to export: " in page and "ladder.json: No such file" in page


def test_the_results_export_is_the_results_folder_without_links_or_the_data_folder(
        organiser: Client, contest: Contest, tmp_path: Path) -> None:
    results = contest.results
    (results / "replays").mkdir(parents=True)
    (results / "games.jsonl").write_text("{}\n")
    (results / "replays" / "g0.json.gz").write_bytes(b"\x1f\x8b")
    (results / "secret-link").symlink_to(contest.data)
    (results / "linked.txt").symlink_to(tmp_path / "config.yaml")
    contest.data.mkdir(parents=True, exist_ok=True)
    (contest.data / "secret-key").write_text("k")
    response = act(organiser, "season", "export_results", Season.current().pk)
    body = b"".join(response.streaming_content)  # type: ignore[attr-defined]
    names = zipfile.ZipFile(io.BytesIO(body)).namelist()
    assert sorted(names) == ["season/games.jsonl", "season/replays/g0.json.gz"]
