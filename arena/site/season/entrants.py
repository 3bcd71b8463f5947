"""Step 2 of a turn: the ladder's entrants from the site's versions. Each bot not disabled
hands the ladder its newest version that passed check-bot, as the file `entries/<bot>.py`
(the stored bytes); the ladder's own machinery (versions, validation deal, frozen copies,
name rules, rejections) decides the rest. A bot that is gone or disabled has no file, so
the ladder says it `left`.

It guarantees that entries/ holds exactly the wanted files (rewritten only when their bytes
change, atomically), and that the config handed to run_ladder is the contest's with the
entries folder as its submissions, entered as the config loader enters a submissions folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from arena.site.contest.contest import Contest
from arena.site.contest.models import Version
from arena.tournament import results as folder_files
from arena.tournament.config import ENTRANT_NAME_PATTERN, EntrantConfig, TournamentConfig
from arena.tournament.config_load import submitted
from arena.tournament.ladder_log import read_log
from arena.tournament.ladder_versions import digest_of, organised

__all__ = ["PASSED", "entered", "ladder_config", "materialise", "retries", "stored", "wanted"]

Status = Version.Status
PASSED = (Status.WAITING, Status.ACTIVE, Status.REJECTED, Status.RETIRED)
"""The statuses of a version that passed check-bot."""


def stored(contest: Contest, sha256: str) -> Path:
    """An upload's bytes in the data folder's store (store/ab/abcdef...): the one reader the
    season needs of the `uploads` task's content-addressed store."""
    if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
        raise ValueError(f"not a sha256: {sha256!r}")
    return contest.store / sha256[:2] / sha256


def wanted() -> dict[str, Version]:
    """Each bot's version to play, by its name: the newest that passed check-bot, of every
    bot not disabled."""
    found: dict[str, Version] = {}
    passed = (Version.objects.filter(status__in=PASSED, kind="file", bot__disabled=False)
              .select_related("bot", "bot__owner").order_by("bot_id", "-number"))
    for version in passed:
        found.setdefault(version.bot.name, version)
    return found


def materialise(contest: Contest, versions: Mapping[str, Version]) -> bool:
    """entries/ as exactly these versions' files; the ladder's digest of each noted on its
    version; whether a file was written or removed."""
    folder = contest.entries
    folder.mkdir(parents=True, exist_ok=True)
    changed = False
    for stem, version in versions.items():
        path, data = folder / f"{stem}.py", stored(contest, version.sha256).read_bytes()
        if not path.is_file() or path.read_bytes() != data:
            folder_files.write_atomic(path, data)
            changed = True
        digest = digest_of(EntrantConfig(stem, bot=str(path)))
        if version.digest != digest:
            Version.objects.filter(pk=version.pk).update(digest=digest)
            version.digest = digest
    for path in folder.glob("*.py"):
        if path.stem not in versions:
            path.unlink()
            changed = True
    return changed


def ladder_config(contest: Contest, level: str) -> TournamentConfig:
    """The contest's config with the entries folder as its submissions (each file an
    entrant, as the config loader enters them), every entrant at the isolation level."""
    cfg = replace(contest.config, submissions=str(contest.entries))
    mine = organised(cfg).entrants
    cfg = replace(cfg, entrants=mine + entered(cfg, mine))
    return cfg.at_isolation(level)


def entered(cfg: TournamentConfig, mine: tuple[EntrantConfig, ...]) -> tuple[EntrantConfig, ...]:
    """The submissions folder's entrants as arena/tournament/config_load.py enters them (a
    name the alias rule refuses is the ladder's to reject, with why)."""
    return tuple(EntrantConfig(name=stem, bot=bot, mode=cfg.mode, isolation=cfg.isolation)
                 for stem, bot in submitted(cfg.submissions)
                 if ENTRANT_NAME_PATTERN.fullmatch(stem) and all(e.name != stem for e in mine))


def retries(contest: Contest) -> list[str]:
    """The digests the ladder is to try again: a re-run version (the organiser set it back
    to received) that passed check-bot again while its content's last event is a rejection."""
    waiting = Version.objects.filter(status=Status.WAITING).exclude(digest="")
    asked = [v for v in waiting if v.retry_from is not None or v.player]
    if not asked:
        return []
    events = read_log(contest.results)
    last = {str(e["digest"]): (n, str(e["status"])) for n, e in enumerate(events)}
    found = []
    for version in asked:
        seen = last.get(version.digest)
        if version.retry_from is None and seen is not None and seen[1] == "rejected":
            Version.objects.filter(pk=version.pk).update(retry_from=len(events))
            version.retry_from = len(events)
        if version.retry_from is not None:
            found.append(version.digest)
    return found
