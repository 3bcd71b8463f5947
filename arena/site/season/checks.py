"""Step 1 of a turn: arena's own check-bot on each received upload, oldest first, in the
sandbox at the contest's isolation level (a bot process, never inline, never in the site's
web process), on the contest's rule set and limits.

It guarantees that a version leaves RECEIVED only with a verdict: WAITING with its
checklist, or FAILED_CHECK with its checklist and the one line its author can act on; a
failure of this machine (no sandbox, no room) leaves it RECEIVED and says so in the
season's status, never blaming the bot. A machine whose strongest level is `none` checks
(and so enters) no upload unless the config says `isolation: none`: a stranger's code run
as the site's own user would read its database and secret key.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from django.utils import timezone

from arena.checkbot import Checklist, check_bot
from arena.entrants import EntrantError, Reference
from arena.site.contest.contest import Contest
from arena.site.contest.models import Version
from arena.site.season.entrants import stored
from arena.site.season.mail import tell

__all__ = ["check_received", "checked"]

Status = Version.Status
UNWALLED = ("check-bot could not run here: this machine has no sandbox for participants' "
            "uploads (arena doctor says what to install), and an upload run without one "
            "reaches the site's database and secret key; the config's isolation: none runs "
            "them anyway")
"""Why uploads wait on a machine without walls, unless the organiser chose `isolation: none`."""


def check_received(contest: Contest, level: str) -> tuple[int, str]:
    """Check every received file version, oldest first; how many, and this machine's
    trouble if a check could not run (those versions stay received)."""
    if level == "none" and contest.config.isolation != "none":
        return 0, UNWALLED
    done = 0
    received = (Version.objects.filter(status=Status.RECEIVED, kind="file")
                .select_related("bot", "bot__owner").order_by("uploaded", "pk"))
    for version in received:
        Version.objects.filter(pk=version.pk).update(status=Status.CHECKING)
        try:
            result = checked(contest, version, level)
        except (OSError, RuntimeError) as exc:  # the machine's, not the bot's
            Version.objects.filter(pk=version.pk).update(status=Status.RECEIVED)
            return done, f"check-bot could not run here: {exc}"
        _record(version, result)
        done += 1
    return done, ""


def checked(contest: Contest, version: Version, level: str) -> Checklist | str:
    """check-bot's checklist of the version's stored bytes (a copy named as its bot), or the
    one line why it could not be checked at all (a bot that plays other rules)."""
    with tempfile.TemporaryDirectory(prefix="arena-check-") as folder:
        path = Path(folder) / f"{version.bot.name}.py"
        path.write_bytes(stored(contest, version.sha256).read_bytes())
        reference = replace(Reference.parse(str(path)), mode="process", isolation=level)
        try:
            return check_bot(reference, [contest.config.rules], contest.config.limits)
        except EntrantError as exc:
            return str(exc).replace(str(path), path.name)


def _record(version: Version, result: Checklist | str) -> None:
    """The verdict, its checklist and, for a failure, the line to act on and one mail."""
    if isinstance(result, str):
        lines, problem = [{"ok": False, "text": result}], result
    else:
        lines = [{"ok": line.passed, "text": line.text} for line in result.lines]
        if result.footer:
            lines.append({"ok": None, "text": result.footer})
        failed = [line.text for line in result.lines if line.passed is False]
        problem = failed[0] if failed else ""
    version.checklist, version.problem, version.checked = lines, problem, timezone.now()
    version.status = Status.FAILED_CHECK if problem else Status.WAITING
    version.save(update_fields=["checklist", "problem", "checked", "status"])
    if problem:
        tell(version, f"{version.bot.name} version {version.number} failed check-bot: {problem}")
