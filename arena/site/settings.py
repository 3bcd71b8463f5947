"""Django settings for `arena serve`, read from the environment `arena.site.setup` fills.

Nothing here is a secret in the source: the secret key is made once per data folder (mode
0600) and the database is SQLite in WAL mode in that folder unless ARENA_SITE_DATABASE names a
PostgreSQL server. Behind a real web server set ARENA_SITE_HOSTS and ARENA_SITE_SECURE=1
(docs/site.md).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import django_stubs_ext

from arena.site import CONFIG_ENV, DATA_ENV, DATABASE_ENV

django_stubs_ext.monkeypatch()  # ModelAdmin[Bot] and the like at run time, as the types say

DATA = Path(os.environ.get(DATA_ENV) or Path.cwd() / "results" / "site").resolve()
"""The site's folder: db.sqlite3, secret-key, store/ (uploads by sha256), entries/."""
CONFIG = os.environ.get(CONFIG_ENV, "")
"""The contest's config file."""


def _secret_key(folder: Path) -> str:
    """This site's key, made on first use and kept private to the folder's owner."""
    path = folder / "secret-key"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as out:
            out.write(secrets.token_urlsafe(50))
    return path.read_text(encoding="ascii").strip()


def _database(url: str) -> dict[str, Any]:
    """SQLite in WAL mode in the data folder, or the PostgreSQL server a URL names."""
    if not url:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": DATA / "db.sqlite3",
            "OPTIONS": {"init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                        "transaction_mode": "IMMEDIATE", "timeout": 20},
        }
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql"):
        raise ValueError(f"{DATABASE_ENV} must be a postgresql:// URL, got {parts.scheme!r}")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": parts.path.lstrip("/"),
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
        "CONN_MAX_AGE": 60,
    }


SECRET_KEY = _secret_key(DATA) if os.environ.get(DATA_ENV) else "not-a-site: no data folder"
DEBUG = os.environ.get("ARENA_SITE_DEBUG") == "1"
ALLOWED_HOSTS = os.environ.get("ARENA_SITE_HOSTS", "127.0.0.1,localhost,[::1]").split(",")
SECURE = os.environ.get("ARENA_SITE_SECURE") == "1"
"""Behind TLS: secure cookies, HSTS, and the proxy's X-Forwarded-Proto trusted."""

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "arena.site.contest",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files from the same server
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "arena.site.contest.csp.ContentSecurityPolicy",
]
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "sesame.backends.ModelBackend",  # one-time sign-in links from a roster
]
SESAME_ONE_TIME = True
SESAME_MAX_AGE = 7 * 24 * 3600
ROOT_URLCONF = "arena.site.urls"
WSGI_APPLICATION = "arena.site.wsgi.application"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth",
        "django.contrib.messages.context_processors.messages",
        "arena.site.contest.context.contest",
    ]},
}]
DATABASES = {"default": _database(os.environ.get(DATABASE_ENV, ""))}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True
STATIC_URL = "static/"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
"""Static files (htmx, the site's CSS, the admin's) served from the installed packages, as
found at start: no collectstatic, no STATIC_ROOT, and nothing of them in the data folder."""
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
ARENA_SITE_UPLOAD_BYTES = int(os.environ.get("ARENA_SITE_UPLOAD_BYTES") or 2 * 1024 * 1024)
"""An uploaded archive's bytes at most (a .py file: 512 KiB); more is refused with 413."""
ARENA_SITE_UPLOADS_PER_HOUR = int(os.environ.get("ARENA_SITE_UPLOADS_PER_HOUR") or 20)
"""A participant's uploads (taken or refused) in any hour at most; more is refused with 429."""
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if SECURE:
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = 3600
    CSRF_TRUSTED_ORIGINS = [f"https://{host}" for host in ALLOWED_HOSTS]
ARENA_SITE_REVEAL = os.environ.get("ARENA_SITE_REVEAL", "game")
"""When a game's full view (every seat's cards) is public: `game` once played, `season` once the
season is closed, `never` (staff always see it; docs/site.md)."""
ARENA_SITE_HIDE_RESULTS = os.environ.get("ARENA_SITE_HIDE_RESULTS") == "1"
"""A class that hides its results from each other: participants see only their own bots."""
ARENA_SITE_DEADLINE = os.environ.get("ARENA_SITE_DEADLINE", "")
"""The contest's deadline as the organiser words it, shown on the contest page."""
ARENA_SITE_ABOUT = os.environ.get("ARENA_SITE_ABOUT", "")
"""The organiser's own words for the contest page (plain text; paragraphs split by blank lines)."""
GAMES_PER_HOUR = int(os.environ.get("ARENA_SITE_GAMES_PER_HOUR", "30"))
"""Browser games (`/play`) a participant may start in an hour."""
EMAIL_BACKEND = os.environ.get("ARENA_SITE_EMAIL_BACKEND",
                               "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("ARENA_SITE_EMAIL_HOST", "localhost")
DEFAULT_FROM_EMAIL = os.environ.get("ARENA_SITE_EMAIL_FROM", "arena@localhost")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}
