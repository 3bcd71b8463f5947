"""The contest's addresses: pages, the leaderboard, bots, games, uploads and the API."""

from __future__ import annotations

from django.urls import path

from arena.site.contest import bots, grades, views

urlpatterns = [
    path("", views.home, name="home"),
    path("bots/<str:name>", bots.bot_page, name="bot"),
    path("bots/<str:name>/games/<str:game_id>", bots.bot_game, name="bot_game"),
    path("bots/<str:name>/versions", bots.bot_versions, name="bot_versions"),
    path("grades", grades.grades_page, name="grades"),
    path("grades.csv", grades.grades_csv, name="grades_csv"),
    path("my-bots", bots.my_bots, name="my_bots"),
]
