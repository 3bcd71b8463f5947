"""Step 2 of a turn: the ladder's entrants from the site's versions. Each bot not disabled
hands the ladder its newest version that passed check-bot (arena.site.season.unpacked): a
`.py` file as `entries/<bot>.py`, a Python bot folder as `entries/<bot>/`, both in the
ladder's submissions folder; a command bot as a `command:` entrant added to the config, its
files unpacked in the data folder's `commands/<sha256>/` (so its command, and with it the
ladder's digest of it, names its content). The ladder's own machinery (versions, validation
deal, frozen copies, name rules, rejections) decides the rest. A bot that is gone or
disabled is not handed over, so the ladder says it `left`.

It guarantees that entries/ holds exactly the wanted files and folders (written only when
they are not that version's already), and that the config handed to run_ladder is the
contest's with the entries folder as its submissions, entered as the config loader enters a
submissions folder, and the command bots after them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from arena.site.contest.contest import Contest
from arena.site.contest.models import Version
from arena.site.contest.store import StoreError
from arena.site.season.unpacked import is_command, placed, remove
from arena.tournament.config import ENTRANT_NAME_PATTERN, EntrantConfig, TournamentConfig
from arena.tournament.config.load import submitted
from arena.tournament.formats.ladder.log import read_log
from arena.tournament.formats.ladder.versions import digest_of, organised

__all__ = ["PASSED", "entered", "ladder_config", "materialise", "note_digests", "retries",
           "wanted"]

Status = Version.Status
PASSED = (Status.WAITING, Status.ACTIVE, Status.REJECTED, Status.RETIRED)
"""The statuses of a version that passed check-bot."""


def wanted() -> dict[str, Version]:
    """Each bot's version to play, by its name: the newest that passed check-bot, of every
    bot not disabled."""
    found: dict[str, Version] = {}
    passed = (Version.objects.filter(status__in=PASSED, bot__disabled=False)
              .select_related("bot", "bot__owner").order_by("bot_id", "-number"))
    for version in passed:
        found.setdefault(version.bot.name, version)
    return found


def materialise(contest: Contest, versions: Mapping[str, Version]
                ) -> tuple[tuple[EntrantConfig, ...], str]:
    """entries/ as exactly these versions' files and bot folders, and commands/ as their
    command bots' folders; the command bots' entrants, and the trouble of a version whose
    stored bytes could not be read (the site's, not the bot's: it is left out this turn)."""
    entries, commands = contest.entries, contest.data / "commands"
    entries.mkdir(parents=True, exist_ok=True)
    kept, ordered, trouble = set(), [], ""
    for stem, version in versions.items():
        command = is_command(version)
        path = commands / version.sha256 if command else entries / stem
        try:
            entrant = placed(contest, version, path)
        except (StoreError, OSError) as exc:  # its place as it was: not the bot's doing
            trouble = trouble or f"{version.entrant} cannot be handed to the ladder: {exc}"
            kept |= {f"{stem}.py", stem, f".{stem}.sha256"}
            continue
        if command:
            ordered.append(entrant)
        kept |= {path.name, f".{path.name}.sha256"} if version.kind == "archive" else \
            {f"{stem}.py"}
    for folder in (entries, commands):
        for path in folder.iterdir() if folder.is_dir() else ():
            if path.name not in kept:
                remove(path)
    return tuple(ordered), trouble


def ladder_config(contest: Contest, level: str,
                  commands: Sequence[EntrantConfig] = ()) -> TournamentConfig:
    """The contest's config with the entries folder as its submissions (each file or bot
    folder an entrant, as the config loader enters them), then the command bots, every
    entrant at the isolation level."""
    cfg = replace(contest.config, submissions=str(contest.entries))
    mine = organised(cfg).entrants
    cfg = replace(cfg, entrants=mine + entered(cfg, mine) + tuple(
        replace(e, mode="command") for e in commands if all(m.name != e.name for m in mine)))
    return cfg.at_isolation(level)


def note_digests(cfg: TournamentConfig, versions: Mapping[str, Version]) -> None:
    """The ladder's digest of each version as `cfg` enters it, noted on the version (the
    ladder's log names content by it)."""
    for entrant in cfg.entrants:
        version = versions.get(entrant.name)
        if version is None:
            continue
        digest = digest_of(entrant)
        if version.digest != digest:
            Version.objects.filter(pk=version.pk).update(digest=digest)
            version.digest = digest


def entered(cfg: TournamentConfig, mine: tuple[EntrantConfig, ...]) -> tuple[EntrantConfig, ...]:
    """The submissions folder's entrants as arena/tournament/config/load.py enters them (a
    name the alias rule refuses is the ladder's to reject, with why)."""
    return tuple(EntrantConfig(name=stem, bot=bot, mode=cfg.mode, isolation=cfg.isolation,
                               start_timeout=cfg.start_timeout)
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
