"""The contest's pages (placeholder module replaced by the pages work)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def home(request: HttpRequest) -> HttpResponse:
    """The contest page: rules, deadlines, how to write a bot, the starter kit."""
    return render(request, "contest/home.html")
