"""Step 1 of a turn: arena's own check-bot on each received upload, oldest first, in the
sandbox at the contest's isolation level (a bot process, never inline, never in the site's
web process), on the contest's rule set and limits: a `.py` file, a Python bot folder or a
command bot, each as it will play (arena.site.season.unpacked), named by its bot.

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
from arena.entrants import EntrantError
from arena.site.contest.archives import ArchiveError
from arena.site.contest.contest import Contest
from arena.site.contest.models import Version
from arena.site.contest.store import StoreError
from arena.site.season.heart import beat_while
from arena.site.season.mail import tell
from arena.site.season.unpacked import placed

__all__ = ["check_received", "checked"]

Status = Version.Status
UNWALLED = ("check-bot could not run here: this machine has no sandbox for participants' "
            "uploads (arena doctor says what to install), and an upload run without one "
            "reaches the site's database and secret key; the config's isolation: none runs "
            "them anyway")
"""Why uploads wait on a machine without walls, unless the organiser chose `isolation: none`."""


def check_received(contest: Contest, level: str) -> tuple[int, str]:
    """Check every received version, oldest first; how many, and this machine's trouble if
    a check could not run (those versions stay received): check-bot's stops the checks, a
    store entry that no longer holds its bytes only its own version's. Without a sandbox no
    upload is checked unless the organiser's config says `isolation: none`."""
    if level == "none" and contest.config.isolation != "none":
        return 0, UNWALLED
    done, trouble = 0, ""
    received = (Version.objects.filter(status=Status.RECEIVED)
                .select_related("bot", "bot__owner").order_by("uploaded", "pk"))
    waiting = list(received)
    for version in waiting:
        beat_while(f"checking: {done} of {len(waiting)} uploads checked")
        Version.objects.filter(pk=version.pk).update(status=Status.CHECKING)
        try:
            result = checked(contest, version, level)
        except StoreError as exc:  # the site's, not the bot's: the others are checked
            Version.objects.filter(pk=version.pk).update(status=Status.RECEIVED)
            trouble = trouble or f"{version.entrant} cannot be checked: {exc}"
            continue
        except (OSError, RuntimeError) as exc:  # the machine's, not the bot's
            Version.objects.filter(pk=version.pk).update(status=Status.RECEIVED)
            return done, f"check-bot could not run here: {exc}"
        _record(version, result)
        done += 1
    return done, trouble


def checked(contest: Contest, version: Version, level: str) -> Checklist | str:
    """check-bot's checklist of the version's stored bytes (a copy named as its bot), or the
    one line why it could not be checked at all (a bot that plays other rules, an archive
    the site's checks no longer take)."""
    with tempfile.TemporaryDirectory(prefix="arena-check-") as folder:
        path = Path(folder) / version.bot.name
        try:
            entrant = placed(contest, version, path)
        except ArchiveError as exc:
            return str(exc)
        reference = replace(entrant.reference, isolation=level,
                            mode="command" if entrant.command is not None else "process",
                            start_timeout=contest.config.start_timeout)
        try:
            return check_bot(reference, [contest.config.rules], contest.config.limits)
        except EntrantError as exc:
            return str(exc).replace(folder + "/", "")


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
