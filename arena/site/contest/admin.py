"""The organiser's admin: Django's, over the contest's rows."""

from __future__ import annotations

from django.contrib import admin

from arena.site.contest.models import ApiToken, Bot, Game, Invite, Season, Version


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin[Bot]):
    list_display = ("name", "owner", "disabled", "created")
    list_filter = ("disabled",)
    search_fields = ("name", "owner__username")


@admin.register(Version)
class VersionAdmin(admin.ModelAdmin[Version]):
    list_display = ("__str__", "status", "filename", "uploaded", "problem")
    list_filter = ("status",)
    readonly_fields = ("sha256", "size", "filename", "checklist")


@admin.register(Game)
class GameAdmin(admin.ModelAdmin[Game]):
    list_display = ("number", "game_id", "players", "faulted", "voided")
    list_filter = ("faulted", "voided")


admin.site.register(ApiToken)
admin.site.register(Invite)
admin.site.register(Season)
