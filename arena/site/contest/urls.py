"""The contest's addresses: pages, the leaderboard, bots, games, uploads and the API."""

from __future__ import annotations

from django.urls import path

from arena.site.contest import play, views

urlpatterns = [
    path("", views.home, name="home"),
    # a seat played in the browser
    path("play", play.new_game, name="play"),
    path("play/<int:game_id>", play.game_page, name="play-game"),
    path("play/<int:game_id>/viewer.html", play.viewer, name="play-viewer"),
    path("play/<int:game_id>/viewer-rules.js", play.viewer_rules),
    path("play/<int:game_id>/replays/pack-00000.js", play.viewer_pack),
    path("play/<int:game_id>/replays/chances/pack-00000.js", play.viewer_chances),
]
