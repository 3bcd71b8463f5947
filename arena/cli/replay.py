"""`arena replay` and `arena report`: the thin click layer over arena.replay, arena.report.story
and arena.report.html.

`arena replay FILE` tells one game in plain words, decision by decision, from everyone's
view or from one seat's (`--seat N`: its own dice or cards, when it saw them, and what
was public); `arena replay RESULTS_DIR GAME` does it for the game with that id.
`arena replay FILE --verify` re-applies the game through the rules;
`arena replay RESULTS_DIR --verify` does it for every game of a tournament and also checks
each replay against its games.jsonl line. `arena report RESULTS_DIR` writes report.html,
the replay viewer and its data files.

Exit status: 0 when all is well, 1 when a replay differs from the rules (the first
difference is printed), 2 for a problem the user can fix (one line, `arena.cli.main.fail`).
Nothing here plays games or changes results.
"""

from __future__ import annotations

import contextlib
import difflib
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from arena.cli.main import fail, size_text
from arena.hosts.inline import printable
from arena.replay import Replay, ReplayError, read_listed, read_replay
from arena.report.story import story
from arena.tournament.run.audit import PARALLEL_FROM, GameCheck
from arena.verify import verify_replay

EXIT_DIFFERENT = 1
REPORT_QUIET_BELOW = 1000
"""`arena report` shows no progress for fewer replays: it takes a second or less."""
_NUMBERED = re.compile(r"(.*?)(\d+)")
"""A game id split into its prefix and its number: rr-000042 -> rr-, 42."""
Listed = tuple[Path, object]
"""A replay as a results folder lists it: the folder, and its `replay` (read through
arena.replay.read_listed, which keeps it under the folder's replays/)."""


# --- verifying a folder -------------------------------------------------------------------


def _verify_folder(folder: Path, workers: int | None) -> None:
    from arena.tournament.run import results
    from arena.tournament.run.audit import check_folder

    games_path = folder / results.GAMES
    if not games_path.exists():
        fail(f"{folder} is not a results folder (no {results.GAMES})")
    try:
        lines = list(results.iter_games(games_path))
    except results.ResultsError as exc:
        fail(str(exc))
        return
    with_replay = [line for line in lines if line.get("replay")]
    failed = 0
    for check in _progress(check_folder(folder, with_replay, workers), len(with_replay)):
        if check.problem is not None:
            failed += 1
            click.echo(printable(f"{check.game}: {check.problem}"))
    click.echo(_summary(len(with_replay), failed, len(lines) - len(with_replay)))
    if failed:
        sys.exit(EXIT_DIFFERENT)


def _progress(checks: Iterator[GameCheck], total: int) -> Iterator[GameCheck]:
    if not sys.stderr.isatty() or total < PARALLEL_FROM:
        return checks
    from tqdm import tqdm

    return iter(tqdm(checks, total=total, unit="game", file=sys.stderr, desc="verifying"))


def _summary(checked: int, failed: int, without: int) -> str:
    games = "game" if checked == 1 else "games"
    text = f"{checked} {games} verified"
    if failed:
        text = f"{checked - failed} of {checked} {games} verified; {failed} differ"
    if without:
        text += f" ({without} {'game has' if without == 1 else 'games have'} no replay)"
    return text


def _verify_file(path: Path, listed: Listed | None = None) -> None:
    replay = _read(path, listed)
    difference = verify_replay(replay)
    if difference is not None:
        click.echo(printable(f"{path}: {difference}"))
        sys.exit(EXIT_DIFFERENT)
    about = replay.header.get("game") or {}
    click.echo(printable(
        f"verified: game {about.get('id', '?')} ({replay.header['rules']['id']}, "
        f"{replay.result.get('decisions')} decisions): every event and the result match "
        "the rules"
    ))


def _read(path: Path, listed: Listed | None = None) -> Replay:
    """The replay file the user named, or the one a results folder lists (`listed`)."""
    try:
        return read_listed(*listed) if listed is not None else read_replay(path)
    except ReplayError as exc:
        fail(str(exc))
        raise  # unreachable: fail exits


def _game_in(folder: Path, game: str) -> Listed:
    """The replay of the game with this id, found through the folder's games.jsonl: the
    folder, and the path under it that the folder lists."""
    from arena.tournament.run import results

    games_path = folder / results.GAMES
    if not games_path.exists():
        fail(f"{folder} is not a results folder (no {results.GAMES})")
    ids: list[str] = []
    try:
        for line in results.iter_games(games_path):
            if line.get("id") == game:
                return _replay_of(folder, line)
            ids.append(str(line.get("id")))
    except results.ResultsError as exc:
        fail(str(exc))
    validation = _validation_replay(folder, game)
    if validation is not None:
        return validation
    near = _nearest(game, ids)
    hint = f" (nearest: {', '.join(near)})" if near else ""
    fail(f"{folder} has no game {game!r}{hint}; its {len(ids)} games are listed in {games_path}")
    raise AssertionError  # unreachable: fail exits


def _validation_replay(folder: Path, game: str) -> Listed | None:
    """A ladder's validation game (kept in ladder-log.jsonl, not games.jsonl): its replay
    file, when the log names one."""
    from arena.tournament.formats.ladder.log import read_log

    try:
        events = read_log(folder)
    except (OSError, ValueError):
        return None
    for event in events:
        for played in event.get("validation") or ():
            if played.get("id") == game and played.get("replay"):
                return folder, played["replay"]
    return None


def _nearest(game: str, ids: Sequence[str], count: int = 3) -> list[str]:
    """The ids a mistyped one most likely meant (same prefix, closest number; else the most
    similar text), in the folder's order."""
    wanted = _NUMBERED.fullmatch(game)
    if wanted:
        prefix, number = wanted.group(1), int(wanted.group(2))
        same = [(abs(int(m.group(2)) - number), i)
                for i, m in enumerate(map(_NUMBERED.fullmatch, ids)) if m and m[1] == prefix]
        if same:
            return [ids[i] for i in sorted(i for _, i in sorted(same)[:count])]
    return difflib.get_close_matches(game, ids, n=count)


def _first_game(folder: Path) -> str | None:
    """The id of a folder's first game, for an example command; None when there is none."""
    from arena.tournament.run import results

    with contextlib.suppress(results.ResultsError):
        for line in results.iter_games(folder / results.GAMES):
            return str(line.get("id"))
    return None


def _name_a_game(folder: Path) -> None:
    """Fail, telling how to name one of the folder's games, or that it holds none yet."""
    from arena.tournament.run import results

    games_path = folder / results.GAMES
    if not games_path.is_file():
        inside = sorted(str(p.parent) for p in folder.glob(f"*/{results.GAMES}"))[:3]
        hint = f"; results folders in it: {', '.join(inside)}" if inside else ""
        fail(f"{folder} holds no games yet (no {results.GAMES}){hint}")
    first = _first_game(folder)
    if first is None:
        fail(f"{folder} is a results folder that holds no games yet ({games_path} is empty)")
    fail(f"{folder} is a results folder: name one of its games (arena replay {folder} "
         f"{first}; every id is in {games_path}), or add --verify to check every game")


def _replay_of(folder: Path, line: Mapping[str, Any]) -> Listed:
    """Where a games.jsonl line's replay is, or a clear error when the game has none."""
    if not line.get("replay"):
        fail(f"{folder}: game {line['id']} has no replay (the tournament was run with "
             "replays: false)")  # fmt: skip
    return folder, line["replay"]


# --- the commands -------------------------------------------------------------------------


@click.command(name="replay")
@click.argument("path", type=click.Path(path_type=Path), metavar="FILE|RESULTS_DIR")
@click.argument("game", required=False, metavar="[GAME]")
@click.option("--seat", type=int, default=None, metavar="N",
              help="Tell the game as seat N knew it: its own dice or cards, when it saw them.")
@click.option("--all", "everyone", is_flag=True,
              help="Tell the game with every die and card shown (the default).")
@click.option("--verify", is_flag=True,
              help="Re-apply the game through the rules and compare every event and the "
                   "result; with a results folder, every game.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Processes for verifying a results folder (default: one per core).")
def replay(path: Path, game: str | None, seat: int | None, everyone: bool, verify: bool,
           workers: int | None) -> None:  # fmt: skip
    """Tell a recorded game in words; --verify checks it (or a tournament) against the rules.

    FILE is a replay (results/NAME/replays/GAME.json.gz); RESULTS_DIR GAME is the game
    with that id in a results folder (arena replay results/NAME rr-000001); RESULTS_DIR
    alone, with --verify, checks every game of a tournament. Exit status 1 when a replay
    differs from the rules.
    """
    if not path.exists():
        fail(f"{path}: no such replay file or results folder")
    listed: Listed | None = None
    if game is not None:
        if not path.is_dir():
            fail(f"{path} is a replay file; a game id goes with a results folder "
                 "(arena replay RESULTS_DIR GAME)")  # fmt: skip
        listed = _game_in(path, game)
        path = listed[0] / str(listed[1])
    if seat is not None and everyone:
        fail("--seat and --all contradict each other; choose one view")
    if verify:
        if seat is not None:
            fail("--verify checks the whole game; leave out --seat")
        if listed is None and path.is_dir():
            _verify_folder(path, workers)
        else:
            _verify_file(path, listed)
        return
    if listed is None and path.is_dir():
        _name_a_game(path)
    loaded = _read(path, listed)
    seats = len(loaded.header.get("entrants") or ())
    if seat is not None and not 0 <= seat < seats:
        fail(f"--seat {seat}: this game has seats 0 to {seats - 1}")
    try:
        lines = story(loaded, seat)
    except ReplayError as exc:
        fail(str(exc))
    for line in lines:
        click.echo(line)


@click.command(name="report")
@click.argument("folder", type=click.Path(path_type=Path), metavar="RESULTS_DIR")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Processes reading the replays of a big tournament (default: one per core).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no progress lines.")
def report(folder: Path, workers: int | None, quiet: bool) -> None:
    """Write report.html and the replay viewer into a results folder.

    RESULTS_DIR/report.html is one page that opens offline: standings, ratings, head to
    head, bluffing, faults, the bracket, and every game linked to RESULTS_DIR/viewer.html.
    While the replays are read, stderr shows how far it is: a bar on a terminal, else a
    line every tenth of them or every minute (none below 1,000 replays).
    """
    from arena.cli.progress import meter
    from arena.report.folder import ReportError
    from arena.report.html import build_report

    if not folder.is_dir():
        fail(f"{folder}: no such results folder")
    reading = meter("report", "replay", quiet=quiet)

    def progress(done: int, total: int) -> None:
        if total >= REPORT_QUIET_BELOW:
            reading.show(done, total)

    try:
        with contextlib.closing(reading):
            summary = build_report(folder, workers=workers, progress=progress)
    except ReportError as exc:
        fail(str(exc))
        return
    size = size_text(summary.bytes)
    click.echo(f"report: {summary.path} ({size}; {summary.games:,} games, "
               f"{summary.replays:,} with a replay in the viewer)")
    if summary.missing:
        shown = ", ".join(map(printable, summary.missing[:3])) + \
            (", ..." if len(summary.missing) > 3 else "")
        click.echo(f"warning: {len(summary.missing)} replay files are missing or unreadable "
                   f"({shown}); check them with `arena replay {folder} --verify`", err=True)
