"""Bots arrive: the upload form at /upload (a signed-in participant, Django's CSRF check) and
POST /api/submit (`arena submit`: a token in the Authorization header, never a cookie).

Both take an upload the same way (`receive`): the participant's hour of uploads is counted
(taken or refused: a flood of bad archives is as limited as one of new versions), the body is
bounded by its length before it is read and kept in memory, the bot's name (its file's stem)
follows the ladder's name rules, the bytes are checked (`archives`) and kept by their sha256
(`store`), and a new `Version` is `received` for the season to check. Nothing here runs or
imports a submission.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.files.uploadhandler import MemoryFileUploadHandler
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_POST

from arena.site.contest import archives, store
from arena.site.contest.accounts import user_of_token
from arena.site.contest.contest import current
from arena.site.contest.models import Bot, UploadAttempt, Version

__all__ = ["Received", "Refused", "UploadForm", "admit", "api_submit", "body_limit", "receive",
           "upload"]

SLACK = 64 * 1024
"""Bytes a request may carry beyond the upload limit: the form's other fields and headers."""


class UploadForm(forms.Form):
    """A bot file, and a command only for an archive of a bot in another language."""

    file = forms.FileField(label="Bot", help_text="a .py file, or a .zip or .tar.gz archive")
    command = forms.CharField(
        required=False, max_length=1000, label="Command",
        help_text="only for an archive of a bot in another language: the words that run it "
                  "from the archive's folder, e.g. node bot.js")


class Refused(Exception):
    """An upload the site does not take: one line, and the HTTP status that says why."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class Received:
    """The version an upload made, or the one that already had its bytes (`new` false)."""

    version: Version
    new: bool

    @property
    def page(self) -> str:
        return f"/bots/{self.version.bot.name}"

    def said(self) -> str:
        """The one line that tells the uploader what happened."""
        version = self.version
        if self.new:
            return f"uploaded {version.entrant}: {version.status}"
        return f"the same bytes as {version.entrant} ({version.status}): no new version"

    def answer(self) -> dict[str, Any]:
        """The API's JSON answer."""
        found = {"bot": self.version.bot.name, "version": self.version.number,
                 "status": self.version.status, "page": self.page}
        return found if self.new else {**found, "same": True, "note": self.said()}


def _limit() -> int:
    return int(getattr(settings, "ARENA_SITE_UPLOAD_BYTES", archives.UPLOAD_LIMIT))


def admit(user: User) -> None:
    """Count one upload against the participant's last hour, or refuse it (429)."""
    per_hour = int(getattr(settings, "ARENA_SITE_UPLOADS_PER_HOUR", 20))
    now = timezone.now()
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()  # one count at a time
        recent = UploadAttempt.objects.filter(user=user)
        recent.filter(at__lte=now - timedelta(hours=1)).delete()
        oldest = recent.order_by("at").values_list("at", flat=True)[:per_hour]
        if len(oldest) >= per_hour:
            minutes = max(1, round((oldest[0] + timedelta(hours=1) - now).total_seconds() / 60))
            raise Refused(f"at most {per_hour} uploads an hour: try again in {minutes} "
                          f"minute{'s' if minutes != 1 else ''}", 429)
        UploadAttempt.objects.create(user=user)


def receive(user: User, filename: str, data: bytes, command: str) -> Received:
    """Take an upload as `user`'s bot named by its file's stem, or refuse it in one line."""
    if len(data) > _limit():
        raise Refused(f"the upload is {len(data):,} bytes, more than the site's limit of "
                      f"{_limit():,}", 413)
    try:
        name, _ = archives.split_name(filename)
        bot = _own_bot(user, name)
        upload = archives.check(filename, data, archives.parse_command(command), _limit())
    except archives.TooLarge as exc:
        raise Refused(str(exc), 413) from None
    except archives.ArchiveError as exc:
        raise Refused(str(exc)) from None
    sha = store.put(data)
    return _record(user, bot, upload, sha, filename, len(data))


def _own_bot(user: User, name: str) -> Bot | None:
    """The participant's bot of this name (a new version), or None (a new bot): refused if
    the ladder's name rules refuse it, or it is another's, or it is disabled."""
    from arena.plugins import default_registry
    from arena.tournament.formats.ladder.validation import name_refusal

    existing = Bot.objects.filter(key=name.casefold()).first()
    mine = existing is not None and existing.owner_id == user.pk
    if existing is not None and mine and existing.name == name:
        if existing.disabled:
            raise Refused(f"the bot {name!a} is disabled by the organiser: it takes no new "
                          "version", 403)
        return existing
    taken = {**dict.fromkeys(default_registry().names(), "the bot"),
             **dict.fromkeys((e.name for e in current().config.entrants),
                             "the organiser's entrant")}
    if existing is not None:
        taken[existing.name] = "your bot" if mine else "another participant's bot"
    why = name_refusal(name, taken)
    if why is not None:
        raise Refused(why)
    return None


def _record(user: User, bot: Bot | None, upload: archives.Upload, sha: str, filename: str,
            size: int) -> Received:
    """The new version (numbered after the bot's last), or the one with these bytes."""
    with transaction.atomic():
        if bot is None:
            try:
                with transaction.atomic():
                    bot = Bot.objects.create(name=upload.name, owner=user)
            except IntegrityError:
                raise Refused(f"the name {upload.name!a} was taken a moment ago: upload "
                              "again", 409) from None
        bot = Bot.objects.select_for_update().get(pk=bot.pk)
        same = bot.versions.filter(sha256=sha).first()
        if same is not None:
            return Received(same, new=False)
        number = 1 + (bot.versions.aggregate(top=Max("number"))["top"] or 0)
        version = Version.objects.create(
            bot=bot, number=number, sha256=sha, kind=upload.kind, command=list(upload.command),
            filename=filename[:255], size=size)
    return Received(version, new=True)


class _InMemory(MemoryFileUploadHandler):
    """Keeps an upload in memory, never in a temporary file: its size is bounded first."""

    def handle_raw_input(self, *args: Any, **kwargs: Any) -> None:
        self.activated = True


def body_limit() -> int:
    """A request's body at most: an upload and its form (the web server refuses more before
    it reads it: `arena serve` gives waitress this as its max_request_body_size)."""
    return _limit() + SLACK


def _oversized(request: HttpRequest) -> bool:
    """Whether the request's body is more than an upload may be (read before the body)."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return True
    return length > body_limit()


def _too_large() -> str:
    return f"the upload is larger than the site's limit of {_limit():,} bytes"


@csrf_exempt  # checked below by csrf_protect, once the body is known to be small enough
@login_required
def upload(request: HttpRequest) -> HttpResponse:
    """The upload form: a signed-in participant's bot file (and command for an archive)."""
    if request.method == "POST" and _oversized(request):
        return _form_page(request, UploadForm(), _too_large(), 413)
    request.upload_handlers = [_InMemory(request)]
    return _upload(request)


@csrf_protect
def _upload(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return _form_page(request, UploadForm(), "", 200)
    try:
        form = UploadForm(request.POST, request.FILES)
    except MultiPartParserError:
        return _form_page(request, UploadForm(), "the upload is not a multipart form", 400)
    if not form.is_valid():
        return _form_page(request, form, "", 400)
    user = request.user
    assert isinstance(user, User)  # login_required
    sent = form.cleaned_data["file"]
    try:
        admit(user)
        received = receive(user, sent.name or "", sent.read(), form.cleaned_data["command"])
    except Refused as exc:
        return _form_page(request, form, str(exc), exc.status)
    messages.info(request, received.said())
    return redirect(received.page)


def _form_page(request: HttpRequest, form: UploadForm, error: str, status: int) -> HttpResponse:
    user = request.user
    bots = Bot.objects.filter(owner=user).order_by("key") if isinstance(user, User) else []
    return render(request, "contest/upload.html",
                  {"form": form, "error": error, "bots": bots}, status=status)


@csrf_exempt  # it takes no cookie: only the token in its Authorization header authorises it
@require_POST
def api_submit(request: HttpRequest) -> HttpResponse:
    """`arena submit`'s address: a token's participant uploads a bot (multipart: file,
    command); JSON back, {"bot", "version", "status", "page"} or {"error"}."""
    secret = _bearer(request)
    user = user_of_token(secret) if secret is not None else None
    if user is None:
        answer = _error("a valid API token is needed (Authorization: Bearer TOKEN; make one "
                        "on your account page)", 401)
        answer["WWW-Authenticate"] = "Bearer"
        return answer
    if _oversized(request):
        return _error(_too_large(), 413)
    request.upload_handlers = [_InMemory(request)]
    try:
        admit(user)
        sent = request.FILES.get("file")
        if sent is None:
            raise Refused("no file: send the bot as the multipart field 'file'")
        received = receive(user, sent.name or "", sent.read(), request.POST.get("command", ""))
    except MultiPartParserError:
        return _error("the upload is not a multipart form", 400)
    except Refused as exc:
        return _error(str(exc), exc.status)
    return JsonResponse(received.answer(), status=201 if received.new else 200)


def _error(message: str, status: int) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


def _bearer(request: HttpRequest) -> str | None:
    """The secret of an `Authorization: Bearer SECRET` header, or None."""
    scheme, _, secret = request.headers.get("Authorization", "").partition(" ")
    secret = secret.strip()
    return secret if scheme.lower() == "bearer" and 0 < len(secret) <= 200 else None

