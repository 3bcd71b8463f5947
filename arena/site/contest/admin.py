"""The organiser's admin: Django's, over the contest's rows, with the organiser's actions.

The actions only set fields (Bot.disabled, Game.voided, Version.status, Season.closed); the
season process honours them on its next turn. The exports read the results folder (the
ladder's own ladder.json, the folder as a zip), never the site's data folder.
"""

from __future__ import annotations

import io
import os
import tempfile
import zipfile
from pathlib import Path

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import FileResponse, HttpRequest, HttpResponse

from arena.ratings.render import sheet
from arena.site.contest.contest import current
from arena.site.contest.models import ApiToken, Bot, Game, Invite, Season, Version
from arena.tournament.run.safe_read import Unreadable, json_file

LEADERBOARD = ("rank", "player", "entrant", "version", "elo", "low", "high", "games", "faults",
               "provisional", "tied")
"""The columns of the leaderboard export: ladder.json's ranking rows, in this order."""
RERUN = (Version.Status.REJECTED, Version.Status.FAILED_CHECK)
"""The versions the organiser may send back to be checked again."""


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin[Bot]):
    list_display = ("name", "owner", "disabled", "created")
    list_filter = ("disabled",)
    search_fields = ("name", "owner__username")
    actions = ("disable", "enable")

    @admin.action(description="Disable the selected bots (they leave the ladder)")
    def disable(self, request: HttpRequest, bots: QuerySet[Bot]) -> None:
        self.message_user(request, f"{bots.update(disabled=True)} bots disabled")

    @admin.action(description="Enable the selected bots again")
    def enable(self, request: HttpRequest, bots: QuerySet[Bot]) -> None:
        self.message_user(request, f"{bots.update(disabled=False)} bots enabled")


@admin.register(Version)
class VersionAdmin(admin.ModelAdmin[Version]):
    list_display = ("__str__", "status", "filename", "uploaded", "problem")
    list_filter = ("status",)
    readonly_fields = ("sha256", "size", "filename", "checklist")
    actions = ("rerun",)

    @admin.action(description="Re-run the selected rejected or failed versions")
    def rerun(self, request: HttpRequest, versions: QuerySet[Version]) -> None:
        sent = versions.filter(status__in=RERUN).update(
            status=Version.Status.RECEIVED, problem="", checklist=[], checked=None)
        left = versions.count() - sent
        self.message_user(request, f"{sent} versions sent back to be checked" + (
            f"; {left} left as they are (only a rejected or failed version is re-run)"
            * bool(left)), messages.WARNING if left else messages.SUCCESS)


@admin.register(Game)
class GameAdmin(admin.ModelAdmin[Game]):
    list_display = ("number", "game_id", "players", "faulted", "voided")
    list_filter = ("faulted", "voided")
    actions = ("void", "unvoid")

    @admin.action(description="Void the selected games (the ranking leaves them out)")
    def void(self, request: HttpRequest, games: QuerySet[Game]) -> None:
        self.message_user(request, f"{games.update(voided=True)} games voided")

    @admin.action(description="Count the selected games again")
    def unvoid(self, request: HttpRequest, games: QuerySet[Game]) -> None:
        self.message_user(request, f"{games.update(voided=False)} games counted again")


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin[Season]):
    list_display = ("__str__", "status", "heartbeat", "closed")
    actions = ("close", "export_leaderboard", "export_results")

    def changelist_view(self, request: HttpRequest,
                        extra_context: dict[str, object] | None = None) -> HttpResponse:
        Season.current()  # the one row, so that its actions can be chosen before any game
        return super().changelist_view(request, extra_context)

    @admin.action(description="Close the season (its final, if any, then no more games)")
    def close(self, request: HttpRequest, seasons: QuerySet[Season]) -> None:
        seasons.update(closed=True)
        self.message_user(request, "season closed")

    @admin.action(description="Export the leaderboard (CSV, from ladder.json)")
    def export_leaderboard(self, request: HttpRequest,
                           seasons: QuerySet[Season]) -> HttpResponse | None:
        try:
            rows = leaderboard_rows(current().results)
        except Unreadable as exc:
            self.message_user(request, f"no leaderboard to export: {exc}", messages.ERROR)
            return None
        response = HttpResponse(rows_csv(rows), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{current().name}.csv"'
        return response

    @admin.action(description="Export the results folder (zip)")
    def export_results(self, request: HttpRequest, seasons: QuerySet[Season]) -> FileResponse:
        contest = current()
        return FileResponse(results_zip(contest.results, contest.data), as_attachment=True,
                            filename=f"{contest.name}-results.zip")


def leaderboard_rows(results: Path) -> list[dict[str, object]]:
    """ladder.json's ranking rows (Unreadable when the season has written none)."""
    ladder = json_file(results / "ladder.json", follow=False)
    ranking = ladder.get("ranking") if isinstance(ladder, dict) else None
    if not isinstance(ranking, list):
        raise Unreadable(f"{results / 'ladder.json'}: no ranking in it")
    return [row for row in ranking if isinstance(row, dict)]


def rows_csv(rows: list[dict[str, object]]) -> str:
    """The rows as CSV, LEADERBOARD's columns, by arena's one CSV writer: a name a
    spreadsheet would run as a formula is written as text (arena.ratings.render.sheet)."""
    cells = ([row.get(column, "") for column in LEADERBOARD] for row in rows)
    return sheet(LEADERBOARD, cells, ("player", "entrant"))


def results_zip(results: Path, data: Path) -> io.BufferedRandom:
    """The results folder as a zip (in a temporary file, rewound): its regular files only,
    no symbolic link followed, nothing of the site's data folder even if it lies inside."""
    spool = tempfile.TemporaryFile()  # noqa: SIM115  # FileResponse closes it
    with zipfile.ZipFile(spool, "w", zipfile.ZIP_DEFLATED) as archive:
        for folder, subfolders, files in os.walk(results):
            here = Path(folder)
            subfolders[:] = sorted(d for d in subfolders
                                   if not (here / d).is_symlink() and here / d != data)
            for name in sorted(files):
                path = here / name
                if path.is_file() and not path.is_symlink():
                    archive.write(path, Path(results.name) / path.relative_to(results))
    spool.seek(0)
    return spool


admin.site.register(ApiToken)
admin.site.register(Invite)
