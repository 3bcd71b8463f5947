"""`arena publish`: a results folder made fit for any web server. Only files known to be
public are copied (an allow-list), and of those only the fields known to be public: the
folder's secret seed, the bots' code (a ladder's versions/, its logs with their sources),
the lock, what the bots wrote to stderr (kept at the end of a fault message for their
authors), tracebacks and local paths stay behind. The report and the viewer are then built
in the copy by the report's own builder, from the copy alone, so no page can show what the
copy does not hold. The results folder is only read.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from arena.report.built import forget_built
from arena.report.folder import ReportError, game_problem
from arena.report.html import build_report
from arena.report.ladder.data import LADDER
from arena.tournament.config import ConfigError
from arena.tournament.config.yaml_lines import read_yaml
from arena.tournament.run import results as folder_files
from arena.tournament.run import safe_read

__all__ = ["PublishError", "Published", "public_replay", "publish"]

TABLES = ("standings.csv", "standings.md", "ratings.json", "crosstable.csv", "stages.json",
          folder_files.GRADES, folder_files.LOAD)
"""Derived tables and load.json, names and numbers only: copied as they are."""
CONFIG_KEYS = frozenset(("name", "rules", "options", "format", "limits", "isolation", "mode",
                         "replays", "grades", "entrants"))
"""What of config.yaml the report's header reads; never `seed`, `output`, `submissions`."""
ENTRANT_KEYS = frozenset(("alias", "bot", "command", "mode", "options"))
GAME_KEYS = frozenset(("id", "stage", "table", "seed", "entrants", "placements", "scores",
                       "faults", "decisions", "replay"))
"""A games.jsonl line's fields (its `seed` is the game's, derived from the secret by HMAC)."""
FAULT_KEYS = frozenset(("seat", "kind", "message", "sent", "decision", "seconds", "outside",
                        "type"))
HEADER_KEYS = frozenset(("type", "format", "version", "game", "rules", "options", "seed",
                         "entrants", "limits"))
SEAT_KEYS = frozenset(("seat", "name", "bot", "command", "origin", "version", "mode",
                       "isolation"))
LINE_TYPES = frozenset(("header", "chance", "action", "fault", "event", "result"))
STDERR = "; stderr: "
"""Where a fault message's tail of the bot's stderr begins (arena/hosts/pipe_lines.py)."""
_TOKEN = re.compile(r"[^\s'\"(),;]+")


class PublishError(Exception):
    """A folder that cannot be published, or a place it cannot go; the message says which."""


@dataclass(frozen=True, slots=True)
class Published:
    """Where the copy went, how many files and bytes it has, and what was left behind."""

    path: Path
    files: int
    bytes: int
    games: int
    left_out: tuple[str, ...]
    archive: Path | None


def publish(folder: str | os.PathLike[str], out: str | os.PathLike[str], *,
            force: bool = False, archive: bool = False) -> Published:
    """Copy the public part of a results folder to `out` and build its report there; with
    `archive`, a .zip of it beside it too."""
    root, target = Path(folder), Path(out)
    _check_places(root, target, force)
    building = target.parent / f".{target.name}.publishing-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    try:
        games = _copy_public(root, building)
        try:
            build_report(building)
            forget_built(building)  # a rebuild's shortcut, of no use to a reader
        except ReportError as exc:  # said of the folder the user named, not of the copy
            raise PublishError(str(exc).replace(str(building), str(root))) from None
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    if target.exists():
        shutil.rmtree(target) if target.is_dir() and not target.is_symlink() else target.unlink()
    building.rename(target)
    zipped = Path(shutil.make_archive(str(target), "zip", target)) if archive else None
    files = [p for p in target.rglob("*") if p.is_file()]
    left = sorted(p.name + ("/" if p.is_dir() else "") for p in root.iterdir()
                  if not (target / p.name).exists())
    return Published(target, len(files), sum(p.stat().st_size for p in files), games,
                     tuple(left), zipped)


def _check_places(root: Path, target: Path, force: bool) -> None:
    """Refuse what is not a results folder, and an `out` that would mix with it or
    overwrite something unasked."""
    if not root.is_dir():
        raise PublishError(f"{root}: no such results folder")
    for name in (folder_files.GAMES, folder_files.CONFIG):
        if not (root / name).is_file():
            raise PublishError(f"{root}: not a results folder (no {name}; `arena run` writes "
                               "one)")
    here, there = root.resolve(), target.resolve()
    if there == here or here in there.parents:
        raise PublishError(f"{target}: inside the results folder {root}; publish it elsewhere")
    if there in here.parents:
        raise PublishError(f"{target}: holds the results folder {root}; publish it elsewhere")
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise PublishError(f"{target}: exists and is not a folder")
    if target.is_dir() and any(target.iterdir()):
        if not force:
            raise PublishError(f"{target}: exists and is not empty (--force replaces it)")
        if (target / folder_files.SECRET).exists():
            raise PublishError(f"{target}: is a results folder (it has a secret); "
                               "--force replaces only a published copy")


def _copy_public(root: Path, out: Path) -> int:
    """Write the public files into `out`; return the games copied."""
    for name in TABLES:
        if os.path.lexists(root / name):  # a link is refused, not skipped
            (out / name).write_bytes(_read(root / name))
    if os.path.lexists(root / LADDER):
        ladder = _json(root / LADDER)
        (out / LADDER).write_text(json.dumps(_walk(ladder, public_text), indent=1) + "\n")
    (out / folder_files.CONFIG).write_text(_public_config(root / folder_files.CONFIG))
    (out / folder_files.REPLAYS).mkdir()
    games = 0
    with open(out / folder_files.GAMES, "w", encoding="utf-8") as log:
        for number, game in enumerate(_lines(root / folder_files.GAMES), 1):
            line = _public_game(root, out, game, number)
            log.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")
            games += 1
    played = (root / folder_files.GAMES).stat()
    os.utime(out / folder_files.GAMES, ns=(played.st_atime_ns, played.st_mtime_ns))
    return games  # with the log's time: the report's header says it is when the games ended


def _public_game(root: Path, out: Path, game: Mapping[str, Any], number: int
                 ) -> dict[str, Any]:
    """A games.jsonl line's public fields, its replay copied beside it."""
    shape = game_problem(game)  # named here, not in the copy the report is built in
    if shape is not None:
        raise PublishError(f"{root / folder_files.GAMES}:{number}: not a game ({shape})")
    line = {k: v for k, v in game.items() if k in GAME_KEYS}
    line["faults"] = [_public_fault(f) for f in game.get("faults") or ()]
    replay = game.get("replay")
    if replay is None:
        return line
    problem = safe_read.listed_problem(replay)
    if problem is not None:
        raise PublishError(f"{root / folder_files.GAMES}:{number}: {problem}")
    if not os.path.lexists(root / replay):
        line["replay"] = None  # the report shows the game without a viewer link
        return line
    body = public_replay(_replay_lines(root, replay))
    (out / replay).parent.mkdir(parents=True, exist_ok=True)  # parts checked: no '..'
    (out / replay).write_bytes(gzip.compress(body.encode(), mtime=0))
    return line


def public_replay(values: Iterable[Any]) -> str:
    """A replay's lines (their JSON values) as the public may read them: the text of the
    published copy, which a contest site's viewer serves too."""
    lines = [_public_line(value) for value in values]
    return "".join(json.dumps(x, separators=(",", ":"), ensure_ascii=False) + "\n"
                   for x in lines if x is not None)


def _public_line(line: Any) -> dict[str, Any] | None:
    """One replay line's public fields; a line of an unknown type is left out."""
    if not isinstance(line, dict) or line.get("type") not in LINE_TYPES:
        return None
    kind = line["type"]
    if kind == "header":
        header = {k: v for k, v in line.items() if k in HEADER_KEYS}
        header["entrants"] = [_public_seat(s) for s in line.get("entrants") or ()]
        return header
    if kind == "fault":
        return _public_fault(line)
    if kind == "result":
        return {**line, "faults": [_public_fault(f) for f in line.get("faults") or ()]}
    return line


def _public_seat(seat: Any) -> dict[str, Any]:
    """A replay header's seat: the bot's name and kind, its paths cut to the file's name."""
    kept: dict[str, Any] = _walk({k: v for k, v in dict(seat).items() if k in SEAT_KEYS},
                                 public_text)
    return kept


def _public_fault(fault: Any) -> dict[str, Any]:
    """A fault's kind and seat, and its message without the bot's stderr or a traceback."""
    kept: dict[str, Any] = _walk({k: v for k, v in dict(fault).items() if k in FAULT_KEYS},
                                 public_text)
    return kept


def _public_config(path: Path) -> str:
    """config.yaml without its seed, output or anything the header does not read."""
    try:  # bounded: aliases and depth (arena/tournament/config/yaml_lines.py)
        config = read_yaml(_read(path).decode("utf-8"), str(path))
    except (ConfigError, UnicodeDecodeError) as exc:
        raise PublishError(f"{path}: not a config ({str(exc).splitlines()[0]})") from None
    if not isinstance(config, dict):
        raise PublishError(f"{path}: not a config (a mapping)")
    kept = {k: v for k, v in config.items() if k in CONFIG_KEYS}
    if isinstance(kept.get("entrants"), list):
        kept["entrants"] = [{k: v for k, v in e.items() if k in ENTRANT_KEYS}
                            if isinstance(e, dict) else e for e in kept["entrants"]]
    return yaml.safe_dump(_walk(kept, public_path), sort_keys=True, allow_unicode=True)


def public_text(text: str) -> str:
    """A message as the public may read it: its first line, without the bot's stderr, each
    path cut to its last part."""
    return public_path(text.split("\n", 1)[0].split(STDERR, 1)[0])


def public_path(text: str) -> str:
    """Each word with a '/' and a letter in it cut to its last part: 'cmd:python3
    /home/ana/bot.py' is 'cmd:python3 bot.py'."""
    def last(match: re.Match[str]) -> str:
        word = match.group(0)
        if "/" not in word or not re.search("[A-Za-z]", word):
            return word
        head = word.split(":", 1)[0] + ":" if re.match(r"[a-z]+:[^/]", word) else ""
        return head + (word.rstrip("/").rsplit("/", 1)[-1] or word)
    return _TOKEN.sub(last, text)


def _walk(value: Any, change: Callable[[str], str]) -> Any:
    """Every string in a JSON value changed by `change`, keys kept."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [_walk(v, change) for v in value]
    if isinstance(value, dict):
        return {k: _walk(v, change) for k, v in value.items()}
    return value


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    """games.jsonl's games, one at a time, read as a stranger's (a regular file, lines of
    bounded length and depth); a line that is not a JSON object is an error."""
    try:
        handle = safe_read.open_regular(path, follow=False)
    except safe_read.Unreadable as exc:
        raise PublishError(f"{path}: cannot read: {exc}") from None
    number = 0
    with handle:
        try:
            for number, text in enumerate(safe_read.lines(handle), 1):
                if text.strip():
                    yield _game(path, number, text)
        except safe_read.Unreadable as exc:  # the line after `number`: too long, not UTF-8
            raise PublishError(f"{path}:{number + 1}: not a game ({exc})") from None


def _game(path: Path, number: int, text: str) -> dict[str, Any]:
    try:
        return safe_read.json_object(text)
    except safe_read.Unreadable as exc:
        raise PublishError(f"{path}:{number}: not a game ({exc})") from None


def _replay_lines(root: Path, listed: str) -> list[Any]:
    """The JSON values of a replay's lines: a regular file under the folder's replays/,
    reached through no symbolic link, read and unpacked within safe_read's caps."""
    path = root / listed
    try:
        text = safe_read.unpack(safe_read.replay_bytes(listed, root)).decode("utf-8")
    except (safe_read.Unreadable, UnicodeDecodeError) as exc:
        raise PublishError(f"{path}: cannot read: {exc}") from None
    return [_replay_line(path, number, line)
            for number, line in enumerate(text.splitlines(), 1) if line.strip()]


def _replay_line(path: Path, number: int, line: str) -> Any:
    try:
        return safe_read.json_value(line)
    except safe_read.Unreadable as exc:
        raise PublishError(f"{path}:{number}: not a replay ({exc})") from None


def _json(path: Path) -> Any:
    """A whole JSON file, at most safe_read.FILE_BYTES long and DEPTH deep."""
    try:
        return safe_read.json_file(path, follow=False)
    except safe_read.Unreadable as exc:
        raise PublishError(str(exc)) from None


def _read(path: Path) -> bytes:
    """A regular file's bytes, at most safe_read.FILE_BYTES of them (the error names it)."""
    try:
        return safe_read.read_file(path, follow=False)
    except safe_read.Unreadable as exc:
        raise PublishError(str(exc)) from None
