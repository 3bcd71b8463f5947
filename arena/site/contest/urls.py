"""The contest's addresses: pages, the leaderboard, bots, games, uploads and the API."""

from __future__ import annotations

from django.urls import path

from arena.site.contest import views

urlpatterns = [
    path("", views.home, name="home"),
]
