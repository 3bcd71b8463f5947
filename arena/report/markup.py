"""What every part of the report page is written with: HTML escaping, compact JSON, JSON
that is safe inside a <script>, and the static files (arena/report/static/) inlined.

This module must not read a results folder or know what the page shows; it only turns
values into text that is safe where the page puts it.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

__all__ = [
    "compact",
    "escape",
    "script_safe",
    "static",
]


def escape(value: object) -> str:
    """A value as HTML text or an attribute value, quotes escaped."""
    return html.escape(str(value), quote=True)


def compact(value: Any) -> str:
    """JSON without spaces, non-ASCII kept as it is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def script_safe(text: str) -> str:
    """JSON that cannot end the <script> it is written in, nor change how the page reads it:
    no '<' at all (JSON has one only inside a string, where \\u003c means the same), since
    '<!--' then '<script' in a name would make the browser take the script's end tag, and
    the page's code after it, as the script's text."""
    return text.replace("<", "\\u003c")


def static(name: str) -> str:
    """One of the page templates in arena/report/static/, as text."""
    return resources.files("arena.report").joinpath("static", name).read_text(encoding="utf-8")
