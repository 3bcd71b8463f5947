"""The contest app's registration with Django."""

from __future__ import annotations

from django.apps import AppConfig


class ContestConfig(AppConfig):
    """One contest a site: its participants, bots, versions and games."""

    name = "arena.site.contest"
    label = "contest"
    verbose_name = "Contest"
    default_auto_field = "django.db.models.BigAutoField"
