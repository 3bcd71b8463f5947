"""The Content-Security-Policy every answer carries: nothing from another site, no inline
script, no plug-ins, no framing by another site.

Django 5.2 has no CSP of its own (6.0 has), and `django-csp` would be a dependency for one
header: this middleware sets it on every answer that has none, and a view that needs more
(the replay viewer, whose one script and one style are inline) sets its own with `policy`,
allowing exactly those texts by their sha256. htmx works within it: its attributes are
read by its own script (htmx-config in base.html turns off its eval and inline styles).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase

__all__ = ["HEADER", "ContentSecurityPolicy", "policy", "source_hash"]

HEADER = "Content-Security-Policy"


def source_hash(text: str) -> str:
    """A CSP source that allows one inline script or style, byte for byte."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def policy(*, scripts: tuple[str, ...] = (), styles: tuple[str, ...] = (),
           framed_by_self: bool = False) -> str:
    """The site's policy, with these inline texts allowed by hash."""
    script = " ".join(("'self'", *map(source_hash, scripts)))
    style = " ".join(("'self'", *map(source_hash, styles)))
    ancestors = "'self'" if framed_by_self else "'none'"
    return ("default-src 'self'; "
            f"script-src {script}; style-src {style}; img-src 'self' data:; "
            "object-src 'none'; base-uri 'none'; form-action 'self'; "
            f"frame-ancestors {ancestors}")


DEFAULT = policy()


class ContentSecurityPolicy:
    """Middleware: the default policy on every answer whose view set none."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if HEADER not in response:
            response[HEADER] = DEFAULT
        return response
