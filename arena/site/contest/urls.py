"""The contest's addresses: pages, the leaderboard, bots, games, uploads and the API."""

from __future__ import annotations

from django.urls import path

from arena.site.contest import uploads, views

urlpatterns = [
    path("", views.home, name="home"),
    path("api/submit", uploads.api_submit, name="api-submit"),
    path("upload", uploads.upload, name="upload"),
]
