"""The contest's addresses: pages, the leaderboard, bots, games, uploads and the API."""

from __future__ import annotations

from django.urls import path

from arena.site.contest import accounts, bots, grades, pages, play, uploads

VIEWER = "games/<str:game_id>/replay/"
"""arena's viewer for one game and the files it loads beside itself (relative addresses)."""

urlpatterns = [
    # the contest page and its starter kit
    path("", pages.home, name="home"),
    path("starter-kit.zip", pages.kit, name="starter_kit"),
    # accounts: a one-time link, joining with an invite code, tokens, e-mail and password
    path("login/link", accounts.SignInLink.as_view(), name="login-link"),
    path("join", accounts.join, name="join"),
    path("account", accounts.account, name="account"),
    path("account/tokens", accounts.token_new, name="token-new"),
    path("account/tokens/<int:pk>/revoke", accounts.token_revoke, name="token-revoke"),
    path("account/email", accounts.email, name="account-email"),
    path("account/password", accounts.PasswordChange.as_view(), name="password-change"),
    # the leaderboard
    path("leaderboard", pages.leaderboard, name="leaderboard"),
    path("leaderboard/rows", pages.leaderboard_rows, name="leaderboard_rows"),
    # games and the replay viewer
    path("games", pages.games, name="games"),
    path("games/<str:game_id>", pages.game, name="game"),
    path(VIEWER + "viewer.html", pages.game_viewer, name="game_viewer"),
    path(VIEWER + "viewer-rules.js", pages.game_rules, name="game_rules"),
    path(VIEWER + "replays/pack-00000.js", pages.game_pack, name="game_pack"),
    path(VIEWER + "replays/chances/pack-00000.js", pages.game_chances, name="game_chances"),
    path(VIEWER + "replays/chances/pack-00001.js", pages.game_next_pack, name="game_next_pack"),
    # bots: public pages, their owners' private parts, seat views; the teacher's grades
    path("bots/<str:name>", bots.bot_page, name="bot"),
    path("bots/<str:name>/games/<str:game_id>", bots.bot_game, name="bot_game"),
    path("bots/<str:name>/versions", bots.bot_versions, name="bot_versions"),
    path("my-bots", bots.my_bots, name="my_bots"),
    path("grades", grades.grades_page, name="grades"),
    path("grades.csv", grades.grades_csv, name="grades_csv"),
    # uploads: the form, and the API of arena submit
    path("upload", uploads.upload, name="upload"),
    path("api/submit", uploads.api_submit, name="api-submit"),
    # a seat played in the browser
    path("play", play.new_game, name="play"),
    path("play/<int:game_id>", play.game_page, name="play-game"),
    path("play/<int:game_id>/viewer.html", play.viewer, name="play-viewer"),
    path("play/<int:game_id>/viewer-rules.js", play.viewer_rules),
    path("play/<int:game_id>/replays/pack-00000.js", play.viewer_pack),
    path("play/<int:game_id>/replays/chances/pack-00000.js", play.viewer_chances),
    path("play/<int:game_id>/replays/chances/pack-00001.js", play.viewer_next_pack),
]
