"""`arena serve`: a contest or class site on top of the ladder (Django, htmx).

Django's own layout: this package is the project (settings, urls, wsgi) and `contest` its one
app. The site only reads results folders and calls the engine; games are played by the season
process (`arena.site.season`), never by a web request. `setup` is the one way in: it points
the settings at a contest's config and data folder, then starts Django.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CONFIG_ENV", "DATABASE_ENV", "DATA_ENV", "setup"]

CONFIG_ENV = "ARENA_SITE_CONFIG"
"""The contest's config file (a ladder, or a graded gauntlet for a class)."""
DATA_ENV = "ARENA_SITE_DATA"
"""The site's own folder: database, secret key, uploads store; never served, never published."""
DATABASE_ENV = "ARENA_SITE_DATABASE"
"""Unset: SQLite in the data folder. `postgresql://USER:PASSWORD@HOST:PORT/NAME`: PostgreSQL."""


def setup(config: str | Path | None = None, data: str | Path | None = None) -> None:
    """Point Django at this contest (config and data folder) and start it, once a process."""
    if config is not None:
        os.environ[CONFIG_ENV] = str(Path(config).resolve())
    if data is not None:
        os.environ[DATA_ENV] = str(Path(data).resolve())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.site.settings")
    import django
    from django.apps import apps

    if not apps.ready:  # a second start would re-configure the process's logging
        django.setup()
