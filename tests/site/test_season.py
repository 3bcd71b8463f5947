"""The season process on a ladder contest (issue 35): an upload is checked with check-bot in
the sandbox, enters the ladder, passes its validation deal and plays, and what is played is
indexed (Game and Seat rows are games.jsonl's lines); a bot that fails its check is told
why; a bot that crashes in a game gets its fault on its seat and one mail; a disabled bot
leaves; a voided game leaves the ranking; a re-run tries rejected content again."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.core import mail
from season_support import AGAINST, BROKEN, GOOD, games, upload

from arena.site.contest.contest import Contest
from arena.site.contest.models import Game, Seat, Version
from arena.site.contest.standings import leaderboard
from arena.site.season import run_once

pytestmark = pytest.mark.django_db
Status = Version.Status


def _indexed_as_written(contest: Contest) -> None:
    """Every line of games.jsonl is one Game, its seats as written, and nothing else."""
    lines = games(contest.results)
    rows = list(Game.objects.order_by("number"))
    assert [g.game_id for g in rows] == [line["id"] for line in lines]
    for game, line in zip(rows, lines, strict=True):
        seats = list(game.seats.order_by("seat"))
        assert [s.entrant for s in seats] == line["entrants"]
        assert [s.placement for s in seats] == line["placements"]
        assert {s.seat: s.fault for s in seats if s.fault} == \
            {f["seat"]: f["kind"] for f in line["faults"]}


def test_uploads_are_checked_enter_validate_play_and_are_indexed(
        contest: Contest, alice: User, bob: User) -> None:
    alice.email, bob.email = "alice@example.org", "bob@example.org"
    alice.save()
    bob.save()
    good = upload(contest, alice, "good", GOOD)
    broken = upload(contest, bob, "broken", BROKEN)
    picky = upload(contest, bob, "picky", AGAINST.replace("NAME", "random"))
    run_once(contest)
    good.refresh_from_db()
    broken.refresh_from_db()
    assert good.status == Status.ACTIVE and good.player == "good@1"
    assert good.checklist[0] == {"ok": True, "text": "starts and says hello (dice)"}
    assert broken.status == Status.FAILED_CHECK
    assert "SyntaxError" in broken.problem and broken.problem == broken.checklist[0]["text"]
    told = [m for m in mail.outbox if "broken" in m.subject]
    assert [m.to for m in told] == [["bob@example.org"]] and "failed check-bot" in told[0].body
    met = Seat.objects.filter(version=picky, game__seats__entrant__startswith="random")
    for _ in range(20):  # matchmaking seats picky against random within a few batches
        if met.exists():
            break
        run_once(contest)
    _indexed_as_written(contest)
    faults = {(seat.fault, seat.fault_message) for seat in met}
    assert faults and all(kind == "crash" and "I will not play random" in message
                          for kind, message in faults), faults
    assert Seat.objects.filter(version=good).exists()
    told = [m for m in mail.outbox if "picky" in m.subject]
    assert len(told) == 1 and "faulted in game" in told[0].body
    run_once(contest)
    assert len([m for m in mail.outbox if "picky" in m.subject]) == 1, "once a version"
    assert {r["player"] for r in leaderboard(contest)} == {"honest@1", "random@1", "good@1",
                                                            "picky@1"}


def test_a_disabled_bot_leaves_and_a_voided_game_leaves_the_ranking(
        contest: Contest, alice: User) -> None:
    good = upload(contest, alice, "good", GOOD)
    run_once(contest)
    run_once(contest)
    good.bot.disabled = True
    good.bot.save()
    voided = Game.objects.order_by("number").first()
    assert voided is not None
    voided.voided = True
    voided.save()
    run_once(contest)
    good.refresh_from_db()
    assert good.status == Status.DISABLED
    assert not (contest.entries / "good.py").exists()
    ranking = leaderboard(contest)
    assert {r["player"] for r in ranking} == {"honest@1", "random@1"}
    counted = [g for g in games(contest.results) if g["id"] != voided.game_id]
    for row in ranking:
        assert row["games"] == sum(row["player"] in g["entrants"] for g in counted)
    _indexed_as_written(contest)


def test_a_rejected_version_the_organiser_runs_again_is_tried_again(
        contest: Contest, alice: User) -> None:
    picky = upload(contest, alice, "picky", AGAINST.replace("NAME", "house"))
    run_once(contest)
    picky.refresh_from_db()
    assert picky.status == Status.REJECTED and picky.player == "picky@1"
    assert picky.problem.startswith("crash in its validation game vd-picky@1-1:")
    log = (contest.results / "ladder-log.jsonl").read_text("utf-8")
    run_once(contest)
    assert (contest.results / "ladder-log.jsonl").read_text("utf-8") == log, "not by itself"
    Version.objects.filter(pk=picky.pk).update(status=Status.RECEIVED)  # the admin's re-run
    run_once(contest)
    picky.refresh_from_db()
    tried = [json.loads(line) for line in
             (contest.results / "ladder-log.jsonl").read_text("utf-8").splitlines()]
    assert [e["player"] for e in tried if e["entrant"] == "picky"] == ["picky@1", "picky@2"]
    assert picky.status == Status.REJECTED and picky.player == "picky@2"
    assert picky.retry_from is None
    run_once(contest)
    again = (contest.results / "ladder-log.jsonl").read_text("utf-8").splitlines()
    assert len(again) == len(tried), "tried once a re-run"
