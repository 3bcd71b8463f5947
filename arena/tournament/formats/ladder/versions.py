"""A ladder's versions: what makes one (its digest), its frozen copy in the results folder,
and the log events when entrants join, change, leave or come back (issue 17).

It guarantees that a version is its content (the same content is the same version, so a
returning entrant is reactivated, and content once rejected is never scheduled), that a
frozen copy holds only the submission's own files (never what a symlink points at), and
that the events are a function of the log and the config alone; and that a submission whose
file name may not be an entrant's (validation.name_refusal) is logged as rejected,
once for its content, under its file's name, and is never a version. It must not play
games: new content comes back as candidates, which the runner validates before they are
logged.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.plugins import default_registry
from arena.tournament.config import EntrantConfig, TournamentConfig
from arena.tournament.config.load import submitted
from arena.tournament.formats.ladder.log import LOG, read_log, versions_now
from arena.tournament.formats.ladder.validation import name_refusal, shown

__all__ = ["Candidate", "accepted", "append", "changes", "digest_of", "freeze",
           "organised", "player_entrants"]

Event = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Candidate:
    """New content of an entrant, to be validated before it is logged as a version."""

    entrant: EntrantConfig
    player: str
    version: int
    digest: str
    copy: str | None
    """Its frozen copy, relative to the results folder (None: a built-in bot)."""

    def event(self, status: str, reason: str | None, after: int, **extra: Any) -> Event:
        """The log's line for this version once it is accepted or rejected (a command
        entrant's with its command: what it plays once the config names another)."""
        command = self.entrant.command
        return {"entrant": self.entrant.name, "version": self.version, "player": self.player,
                "digest": self.digest, "source": self.entrant.bot or "", "copy": self.copy,
                "status": status, "reason": reason, "after": after,
                **({"command": list(command)} if command is not None else {}), **extra}


def organised(cfg: TournamentConfig) -> TournamentConfig:
    """The config with only the organiser's entrants: a submission's trouble is its own
    (rejected at its validation), never a config error that stops the season."""
    if cfg.submissions is None:
        return cfg
    inbox = Path(cfg.submissions).resolve()
    mine = tuple(e for e in cfg.entrants
                 if not (e.bot and Path(e.bot).resolve().parent == inbox))
    return replace(cfg, entrants=mine)


def digest_of(entrant: EntrantConfig) -> str:
    """What makes a version: sha256 over a bot file's bytes or a folder's files (by path)
    and its options, else over the reference, so other options are another version."""
    hasher = hashlib.sha256()
    path = Path(entrant.bot or "")
    if entrant.bot and path.is_file():
        hasher.update(path.read_bytes())
    elif entrant.bot and path.is_dir():
        for part in _own_files(path):
            hasher.update(part.relative_to(path).as_posix().encode() + b"\0" + part.read_bytes())
    else:
        hasher.update(repr(entrant.reference).encode())
        return "sha256:" + hasher.hexdigest()
    if entrant.options:
        hasher.update(b"\0options\0" + repr(sorted(entrant.options.dict().items())).encode())
    return "sha256:" + hasher.hexdigest()


def _own_files(folder: Path) -> list[Path]:
    """A folder's regular files, never through a symlink (a link is not the bot's own)."""
    found, todo = [], [folder]
    while todo:
        for part in sorted(todo.pop().iterdir()):
            if part.is_symlink():
                continue
            if part.is_dir():
                todo.append(part)
            elif part.is_file():
                found.append(part)
    return sorted(found)


def freeze(folder: Path, player: str, entrant: EntrantConfig) -> str | None:
    """Copy a bot file or folder to versions/<player>/ (once); its path from `folder`."""
    path = Path(entrant.bot or "")
    if not (entrant.bot and (path.is_file() or path.is_dir())):
        return None
    target = folder / "versions" / player / path.name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            for part in _own_files(path):
                copy = target / part.relative_to(path)
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(part, copy)
        else:
            shutil.copyfile(path, target)
    return target.relative_to(folder).as_posix()


def changes(folder: Path, cfg: TournamentConfig, played: int,
            retry: Collection[str] = ()) -> tuple[list[Event], list[Candidate]]:
    """The log's next events that need no game (removals, returns of known content) and
    the new content to validate, from the log and the config's entrants; content once
    rejected is not tried again unless its digest is in `retry` (the organiser's re-run)."""
    events = read_log(folder)
    now = versions_now(events)
    refused = _refused(cfg, events)
    wanted = {e.name: e for e in cfg.entrants if e.bot not in refused}
    new: list[Event] = [e for path, why in refused.items() for e in _refusal(events, path, why,
                                                                            played)]
    candidates: list[Candidate] = []
    for name, entrant in wanted.items():
        digest, last = digest_of(entrant), now.get(name)
        if last is not None and last["digest"] == digest and last["status"] == "active":
            continue
        known = [e for e in events if e["entrant"] == name and e["digest"] == digest]
        if any(e["status"] == "rejected" for e in known):
            if digest not in retry:
                continue
            known = [e for e in known if e["status"] != "rejected"]
        if known:  # content seen before and accepted: that version comes back
            new += _retire(last, "replaced", played)
            new.append({**known[-1], "status": "active", "reason": None, "after": played})
            continue
        version = 1 + max((e["version"] for e in events if e["entrant"] == name), default=0)
        player = f"{name}@{version}"
        candidates.append(Candidate(entrant, player, version, digest,
                                    freeze(folder, player, entrant)))
    for name, last in sorted(now.items()):
        if name not in wanted:
            new += _retire(last, "removed", played)
    return new, candidates


def _refused(cfg: TournamentConfig, events: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each submission refused by its name (by its path), and why: the alias rule, then no
    name that is, or differs only in case from, a bot's, an organiser's entrant's, a name
    the ladder has taken or another new submission's. A name the ladder took stays its own."""
    found = submitted(cfg.submissions)
    mine = {str(e["entrant"]) for e in events if e["status"] != "rejected"}
    kept = {e.bot: e.name for e in cfg.entrants if e.bot}
    taken = {**dict.fromkeys(default_registry().names(), "the bot"),
             **dict.fromkeys(mine, "the ladder's entrant"),
             **dict.fromkeys((e.name for e in organised(cfg).entrants),
                             "the organiser's entrant")}
    refused = {}
    for stem, path in found:
        if stem in mine and kept.get(path) == stem:
            continue
        others = {**{s: "the new submission" for s, _ in found if s != stem and s not in mine},
                  **taken}
        why = name_refusal(stem, others)
        if why is not None:
            refused[path] = why
    return refused


def _refusal(events: Sequence[Mapping[str, Any]], path: str, why: str,
             played: int) -> list[Event]:
    """A refused submission's rejection, logged under its file's name (once for its content)."""
    entrant = EntrantConfig(shown(Path(path).name)[1:-1], bot=path)
    digest, name = digest_of(entrant), entrant.name
    if any(e["entrant"] == name and e["digest"] == digest for e in events):
        return []
    version = 1 + max((e["version"] for e in events if e["entrant"] == name), default=0)
    return [Candidate(entrant, f"{name}@{version}", version, digest, None)
            .event("rejected", why, played)]


def _retire(last: Mapping[str, Any] | None, reason: str, played: int) -> list[Event]:
    """The event that retires an entrant's active version (none if it has none)."""
    if last is None or last["status"] != "active":
        return []
    return [{**last, "status": "retired", "reason": reason, "after": played}]


def accepted(candidate: Candidate, folder: Path, played: int, **extra: Any) -> list[Event]:
    """The events of a validated candidate: its entrant's active version retired, it active."""
    last = versions_now(read_log(folder)).get(candidate.entrant.name)
    return [*_retire(last, "replaced", played), candidate.event("active", None, played, **extra)]


def append(folder: Path, events: Sequence[Event]) -> None:
    """Add events to the log, one line each, in one write."""
    if events:
        with open(folder / LOG, "a", encoding="utf-8") as handle:
            handle.write("".join(json.dumps(e, sort_keys=True) + "\n" for e in events))


def player_entrants(folder: Path, cfg: TournamentConfig,
                    events: Sequence[Mapping[str, Any]]) -> dict[str, EntrantConfig]:
    """Every accepted version as it plays: its frozen copy, else (a built-in) the config's
    entrant of that content, else its source as the config would name it. A rejected one
    is left out: it never plays, so no worker loads it."""
    wanted = {e.name: e for e in cfg.entrants}
    found: dict[str, EntrantConfig] = {}
    for event in events:
        if event["status"] == "rejected":
            continue
        player, entrant = str(event["player"]), wanted.get(str(event["entrant"]))
        if entrant is not None and digest_of(entrant) != event["digest"]:
            entrant = None
        base = entrant or _logged(player, event, cfg)
        copy = event.get("copy")
        found[player] = replace(base, name=player,
                                bot=str(folder / copy) if copy else base.bot)
    return found


def _logged(player: str, event: Mapping[str, Any], cfg: TournamentConfig) -> EntrantConfig:
    """A version as its log event names it: its command, else its source file or folder."""
    if "command" in event:
        return EntrantConfig(player, command=tuple(map(str, event["command"])), mode="command",
                             isolation=cfg.isolation, start_timeout=cfg.start_timeout)
    return EntrantConfig(player, bot=str(event["source"]) or None, mode=cfg.mode,
                         isolation=cfg.isolation, start_timeout=cfg.start_timeout)

