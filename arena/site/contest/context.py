"""What every page knows: the contest's name and rule set, for the header and title."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from arena.site.contest.contest import current


def contest(request: HttpRequest) -> dict[str, Any]:
    """The contest being served, for every template."""
    return {"contest": current()}
