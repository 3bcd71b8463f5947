"""The site starts: its contest page answers, names the contest, and needs no sign-in."""

from __future__ import annotations

from django.test import Client

from arena.site.contest.contest import Contest


def test_the_contest_page_names_the_contest(contest: Contest, db: None) -> None:
    response = Client().get("/")
    assert response.status_code == 200
    assert "<h1>season</h1>" in response.content.decode()
