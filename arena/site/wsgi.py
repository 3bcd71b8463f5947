"""The WSGI application a real web server runs (gunicorn arena.site.wsgi:application)."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.site.settings")
application = get_wsgi_application()
