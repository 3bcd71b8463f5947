"""Crafted input: a results folder from someone else (a participant's, a published one) and a
config from a stranger. Each attack must end in one line naming the file and what is wrong
(exit 2), never a hang, a traceback, memory running out, or a file outside the folder copied
into what the report publishes.

The commands run in a child process with its memory capped and a timeout, so an attack that
still worked would fail the test instead of taking the machine down (forked from a process
that imported arena once: tests/warm_arena.py).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import struct
import subprocess
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import warm_arena
from warm_arena import run_arena

from arena.replay import ReplayError, encode_replay, read_replay
from arena.tournament.load import load_tournament
from arena.tournament.run.results import ResultsError, iter_games
from arena.tournament.run.runner import run_tournament

MEMORY = 1 << 30
"""The address space a command may use here: far more than it needs, far less than an
attack takes."""
SECRET = b"the organiser's private key\n"

CONFIG = """\
name: class
rules: dice
options: {max_points: 2}
entrants: [random, {bot: random, alias: ana}, {bot: random, alias: bruno}]
format: {type: round-robin, seats: 2, games: 1}
seed: 3
workers: 1
"""


@pytest.fixture(scope="module", autouse=True)
def warm_server() -> Iterator[None]:
    """The module's commands share one warm arena process, stopped when the module ends."""
    yield
    warm_arena.stop()


def arena(*args: object, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run `arena ARGS` in a child with capped memory; a hang fails with TimeoutExpired (the
    child is forked from a warm process: tests/warm_arena.py)."""
    return run_arena(*args, timeout=timeout, memory=MEMORY)


def one_line_error(done: subprocess.CompletedProcess[str], *parts: str) -> str:
    """The error line of a command that failed as it should: exit 2, one line, no traceback."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: "), done.stderr[-2000:]
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("made")
    (root / "class.yaml").write_text(CONFIG)
    run_tournament(load_tournament(root / "class.yaml"), root / "out", workers=1)
    return root / "out"


@pytest.fixture
def folder(made: Path, tmp_path: Path) -> Path:
    """A copy of a finished results folder, for one attack."""
    return Path(shutil.copytree(made, tmp_path / "results", ignore=shutil.ignore_patterns(".lock")))


def set_line(folder: Path, number: int, text: str) -> None:
    """Replace line `number` (1-based) of the folder's games.jsonl."""
    lines = (folder / "games.jsonl").read_text().splitlines()
    lines[number - 1] = text
    (folder / "games.jsonl").write_text("\n".join(lines) + "\n")


def set_replay(folder: Path, number: int, replay: object) -> None:
    line = json.loads((folder / "games.jsonl").read_text().splitlines()[number - 1])
    set_line(folder, number, json.dumps({**line, "replay": replay}))


def packs(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted((folder / "replays").glob("pack-*.js")))


# --- item 15: a replay path that leads out of the folder, or to a device ----------------------


@pytest.mark.parametrize("listed", ["/dev/zero", "replays/../../outside.json.gz", "{outside}",
                                    "replays/../games.jsonl", 7, ["replays/x"]])
def test_a_replay_listed_outside_replays_is_refused_by_every_reader(
    folder: Path, tmp_path: Path, listed: object
) -> None:
    outside = tmp_path / "outside.json.gz"
    outside.write_bytes(gzip.compress(SECRET))
    if isinstance(listed, str):
        listed = listed.format(outside=outside)
    set_replay(folder, 1, listed)
    where = f"{folder / 'games.jsonl'}:1: "
    for command in (("report", folder), ("replay", folder, "rr-000001"),
                    ("replay", folder, "--verify")):  # fmt: skip
        line = one_line_error(arena(*command), where, "replays/")
        assert "replay" in line
    assert SECRET not in packs(folder)
    assert not list((folder / "replays").glob("pack-*.js"))


def test_a_replay_named_on_the_command_line_must_be_a_regular_file(tmp_path: Path) -> None:
    one_line_error(arena("replay", "/dev/zero"), "/dev/zero: ", "not a regular file")
    one_line_error(arena("replay", "/dev/zero", "--verify"), "/dev/zero: ", "not a regular file")
    os.mkfifo(tmp_path / "fifo.json.gz")
    one_line_error(arena("replay", tmp_path / "fifo.json.gz", "--verify", timeout=20),
                   "fifo.json.gz: ", "not a regular file")


def test_a_symlinked_replay_is_never_read_nor_published(folder: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.json.gz"
    shutil.copy(folder / "replays" / "rr-000002.json.gz", outside)
    outside.write_bytes(outside.read_bytes())
    target = folder / "replays" / "rr-000001.json.gz"
    target.unlink()
    target.symlink_to(outside)
    one_line_error(arena("replay", folder, "rr-000001"), str(target), "symbolic link")
    done = arena("replay", folder, "--verify")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stdout.splitlines()[0].startswith(f"rr-000001: {target}: ")
    assert "symbolic link" in done.stdout.splitlines()[0]
    done = arena("report", folder)
    assert done.returncode == 0, done.stderr
    assert "warning: 1 replay files are missing or unreadable (rr-000001)" in done.stderr
    assert outside.read_bytes() not in packs(folder)


def everything(place: Path) -> dict[str, bytes]:
    """Each file below a folder and its bytes, links not followed."""
    return {p.relative_to(place).as_posix(): p.read_bytes() for p in sorted(place.rglob("*"))
            if p.is_file() and not p.is_symlink()}


def test_a_symlinked_replays_folder_is_not_followed(folder: Path, tmp_path: Path) -> None:
    elsewhere = Path(shutil.move(folder / "replays", tmp_path / "elsewhere"))
    (folder / "replays").symlink_to(elsewhere)
    before = everything(elsewhere)
    one_line_error(arena("replay", folder, "rr-000001"), "symbolic link")
    one_line_error(arena("report", folder), f"{folder / 'replays'}: a symbolic link")
    assert everything(elsewhere) == before  # no pack written where the link leads


def test_a_symlinked_chances_folder_is_not_written_through(folder: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (folder / "replays" / "chances").symlink_to(elsewhere)
    one_line_error(arena("report", folder), f"{folder / 'replays' / 'chances'}: a symbolic link")
    assert everything(elsewhere) == {}


def test_a_symlinked_page_is_replaced_not_written_through(folder: Path, tmp_path: Path) -> None:
    outside = tmp_path / "bashrc"
    outside.write_bytes(SECRET)
    for page in ("report.html", "viewer.html", "viewer-rules.js"):
        (folder / page).unlink(missing_ok=True)
        (folder / page).symlink_to(outside)
    done = arena("report", folder)
    assert done.returncode == 0, done.stderr
    assert outside.read_bytes() == SECRET
    assert not (folder / "report.html").is_symlink()
    assert "<html" in (folder / "report.html").read_text()


def test_a_pack_that_is_a_device_or_a_link_is_replaced_unread(folder: Path, tmp_path: Path
                                                              ) -> None:  # fmt: skip
    pack = folder / "replays" / "pack-00000.js"
    pack.symlink_to("/dev/zero")  # read whole to compare, it would fill the memory
    done = arena("report", folder, timeout=30)
    assert done.returncode == 0, done.stderr
    assert not pack.is_symlink() and b"ARENA_REPLAY" in pack.read_bytes()


@pytest.mark.parametrize("name", ["games.jsonl", ".lock", "replays"])
def test_a_resume_or_a_fresh_start_writes_through_no_symlink(
    folder: Path, made: Path, tmp_path: Path, name: str
) -> None:
    outside = tmp_path / "bashrc"
    if name == "replays":
        outside.mkdir()
        shutil.rmtree(folder / name)
    else:
        outside.write_bytes(SECRET + b"not JSON, cut as a torn line by a repair")
        (folder / name).unlink(missing_ok=True)
    (folder / name).symlink_to(outside)
    before = everything(outside) if outside.is_dir() else outside.read_bytes()
    config = made.parent / "class.yaml"
    if name == ".lock":  # never arena's lock: removed, and the run goes on
        assert arena("run", config, "--out", folder, "--resume", "--quiet").returncode == 0
    else:
        one_line_error(arena("run", config, "--out", folder, "--resume", "--quiet"),
                       f"{folder / name}: a symbolic link")
    assert (everything(outside) if outside.is_dir() else outside.read_bytes()) == before
    done = arena("run", config, "--out", folder, "--force", "--quiet")  # starts over: the
    assert done.returncode == 0, done.stderr  # link is removed, not followed
    assert (everything(outside) if outside.is_dir() else outside.read_bytes()) == before
    assert not (folder / name).is_symlink()


def test_a_fifo_listed_as_a_replay_does_not_hang(folder: Path) -> None:
    target = folder / "replays" / "rr-000001.json.gz"
    target.unlink()
    os.mkfifo(target)
    one_line_error(arena("replay", folder, "rr-000001", timeout=20), str(target),
                   "not a regular file")
    done = arena("report", folder, timeout=30)
    assert done.returncode == 0 and "(rr-000001)" in done.stderr, done.stderr


def test_a_games_log_that_is_a_device_is_refused(folder: Path) -> None:
    (folder / "games.jsonl").unlink()
    (folder / "games.jsonl").symlink_to("/dev/zero")
    for command in (("report", folder), ("replay", folder, "rr-000001"),
                    ("replay", folder, "--verify")):  # fmt: skip
        one_line_error(arena(*command), "games.jsonl", "not a regular file")


# --- item 16: a gzip bomb ---------------------------------------------------------------------


HEADER = b'{"type":"header","format":"arena-replay","version":1}\n'


def bomb(unpacked: int) -> bytes:
    """A gzip stream of a replay's header and then `unpacked` bytes of spaces, made without
    holding them or packing each MiB: a full flush makes every packed MiB the same bytes, so
    one is packed and repeated, and the trailer's CRC-32 and size are those of all of it (a
    valid stream to its end; 0.5 s of CPU for 2 GiB, 5.9 s packing each MiB)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    start = packer.compress(HEADER) + packer.flush(zlib.Z_FULL_FLUSH)
    chunk = b" " * (1 << 20)
    packed = packer.compress(chunk) + packer.flush(zlib.Z_FULL_FLUSH)
    count, crc = unpacked >> 20, zlib.crc32(HEADER)
    for _ in range(count):
        crc = zlib.crc32(chunk, crc)
    size = (len(HEADER) + (count << 20)) & 0xFFFFFFFF
    return start + packed * count + packer.flush()[:-8] + struct.pack("<II", crc, size)


@pytest.fixture(scope="module")
def big_bomb() -> bytes:
    """2 MB of gzip that unpacks to 2 GiB."""
    data = bomb(2 << 30)
    assert len(data) < 3 << 20
    return data


def test_a_gzip_bomb_is_unpacked_no_further_than_the_cap(folder: Path, big_bomb: bytes) -> None:
    with pytest.raises(ReplayError, match=r"^replay: cannot read: unpacks to more than 64 MiB"):
        read_replay(bomb(256 << 20))
    data = big_bomb
    target = folder / "replays" / "rr-000001.json.gz"
    target.write_bytes(data)
    one_line_error(arena("replay", folder, "rr-000001"), str(target), "unpacks to more than")
    one_line_error(arena("replay", target, "--verify"), str(target), "unpacks to more than")
    done = arena("replay", folder, "--verify")
    assert done.returncode == 1 and "unpacks to more than 64 MiB" in done.stdout, done.stderr
    done = arena("report", folder)
    assert done.returncode == 0 and "(rr-000001)" in done.stderr, done.stderr


def test_a_replay_file_larger_than_the_cap_is_not_read_whole(tmp_path: Path) -> None:
    big = tmp_path / "big.json.gz"
    with open(big, "wb") as handle:
        handle.truncate(17 << 20)
    with pytest.raises(ReplayError, match=r"big.json.gz: cannot read: larger than 16 MiB"):
        read_replay(big)


# --- item 17: JSON of the wrong shape or nested too deep -------------------------------------


@pytest.mark.parametrize(("first", "why"), [
    ("5", "line 1 is not an arena-replay header"),
    ("[1, 2]", "line 1 is not an arena-replay header"),
    ("[" * 100_000 + "]" * 100_000, "nested deeper than 64"),
], ids=["a number", "a list", "nested 100,000 deep"])  # fmt: skip
def test_a_replay_whose_first_line_is_not_a_header_is_one_line(
    folder: Path, first: str, why: str
) -> None:
    target = folder / "replays" / "rr-000001.json.gz"
    rest = gzip.decompress(target.read_bytes()).split(b"\n", 1)[1]
    target.write_bytes(gzip.compress(first.encode() + b"\n" + rest))
    one_line_error(arena("replay", target), str(target), why)
    one_line_error(arena("replay", folder, "rr-000001", "--verify"), str(target), why)
    done = arena("report", folder)
    assert done.returncode == 0 and "(rr-000001)" in done.stderr, done.stderr
    done = arena("replay", folder, "--verify")
    assert done.returncode == 1 and why in done.stdout.splitlines()[0], done.stdout


def test_a_replay_line_nested_deep_is_one_line(tmp_path: Path) -> None:
    lines = read_replay(encode_replay([{"type": "header", "format": "arena-replay",
                                        "version": 1}, {"type": "result"}]))
    assert lines.result == {"type": "result"}
    deep = b'{"type":"header","format":"arena-replay","version":1}\n' + b"[" * 5000 + b"]" * 5000
    with pytest.raises(ReplayError, match=r"replay:2: nested deeper than 64"):
        read_replay(deep + b'\n{"type":"result"}\n')


@pytest.mark.parametrize(("line", "why"), [
    ("[" * 100_000 + "]" * 100_000, "nested deeper than 64"),
    ('{"a":' * 100 + "1" + "}" * 100, "nested deeper than 64"),
    ("5", "not a JSON object"),
    ('{"id": "rr-000001", "replay": "replays/x.json.gz"' + " " * (5 << 20) + "}",
     "longer than 4 MiB"),
], ids=["nested 100,000 deep", "nested 100 deep", "a number", "5 MiB long"])  # fmt: skip
def test_a_games_line_of_the_wrong_shape_is_one_line(folder: Path, line: str, why: str) -> None:
    set_line(folder, 2, line)
    where = f"{folder / 'games.jsonl'}:2: "
    with pytest.raises(ResultsError, match=why):
        list(iter_games(folder / "games.jsonl"))
    for command in (("report", folder), ("replay", folder, "rr-000004"),
                    ("replay", folder, "--verify")):  # fmt: skip
        one_line_error(arena(*command), where, why)


def test_a_games_log_of_one_endless_line_is_read_no_further_than_the_cap(folder: Path) -> None:
    with open(folder / "games.jsonl", "wb") as handle:
        handle.truncate(1 << 30)  # a gigabyte of zero bytes, and no newline
    one_line_error(arena("replay", folder, "--verify"), "games.jsonl:1: ", "longer than 4 MiB")


# --- item 18: YAML that expands or nests without end ---------------------------------------

LAUGHS = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}' if prev else 'lol'] * 9)}]\n"
    for prev, name in zip(["", *"abcdefgh"], "abcdefghi", strict=True)
) + "name: laughs\nrules: dice\nentrants: [random, honest]\nformat: {type: round-robin}\n"


def test_a_billion_laughs_config_is_refused_at_once(tmp_path: Path) -> None:
    config = tmp_path / "laughs.yaml"
    config.write_text(LAUGHS)
    assert len(LAUGHS) < 700
    line = one_line_error(arena("validate", config, timeout=15), f"{config}:", "aliases")
    assert "more than 100,000 values" in line


def test_an_option_nested_20000_deep_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "deep.yaml"
    config.write_text("name: deep\nrules: dice\nentrants: [random, honest]\n"
                      "options: {max_points: " + "[" * 20_000 + "]" * 20_000 + "}\n")
    one_line_error(arena("validate", config, timeout=30), f"{config}:4:", "nested deeper than 50")
    block = "".join(f"{'  ' * i}k{i}:\n" for i in range(2000))
    config.write_text(block + f"{'  ' * 2000}v: 1\n")
    one_line_error(arena("validate", config, timeout=30), f"{config}:", "nested deeper than 50")


@pytest.mark.parametrize("config", [LAUGHS, "a: " + "[" * 20_000 + "]" * 20_000 + "\n"],
                         ids=["a billion laughs", "nested 20,000 deep"])
def test_the_config_a_results_folder_keeps_is_read_as_boundedly(folder: Path, config: str) -> None:
    (folder / "config.yaml").write_text(config)
    one_line_error(arena("report", folder, timeout=30), "config.yaml")


# --- the class: every other file of the folder goes through the same reader ----------------


@pytest.mark.parametrize(("name", "why"), [
    ("ratings.json", "not a regular file"), ("standings.csv", "not a regular file"),
    ("ratings.json", "nested deeper than 64"), ("crosstable.csv", "larger than 64 MiB"),
], ids=["ratings.json is /dev/zero", "standings.csv is /dev/zero", "ratings.json nested deep",
        "crosstable.csv of 65 MiB"])  # fmt: skip
def test_the_folders_other_files_are_read_boundedly(folder: Path, name: str, why: str) -> None:
    path = folder / name
    path.unlink()
    if why == "not a regular file":
        path.symlink_to("/dev/zero")
    elif why.startswith("nested"):
        path.write_text("[" * 100_000 + "]" * 100_000)
    else:
        with open(path, "wb") as handle:
            handle.truncate(65 << 20)
    one_line_error(arena("report", folder), name, why)


def test_a_ladder_log_is_read_boundedly(folder: Path) -> None:
    log = folder / "ladder-log.jsonl"
    log.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    one_line_error(arena("replay", folder, "v-000001"), "has no game 'v-000001'")
    log.write_text(json.dumps({"validation": [{"id": "v-000001", "replay": "/dev/zero"}]}) + "\n")
    one_line_error(arena("replay", folder, "v-000001"), "/dev/zero", "not a file under replays/")


def test_the_report_writes_through_no_symlink_it_finds(folder: Path, tmp_path: Path) -> None:
    outside = tmp_path / "bashrc"
    outside.write_bytes(SECRET)
    (folder / "replays" / ".pack-00000.js.tmp").symlink_to(outside)
    done = arena("report", folder)
    assert done.returncode == 0, done.stderr
    assert outside.read_bytes() == SECRET
    assert b"ARENA_REPLAY" in (folder / "replays" / "pack-00000.js").read_bytes()


def test_a_resume_s_repair_cuts_a_last_line_nested_deep_instead_of_crashing(
    folder: Path,
) -> None:
    from arena.tournament.run.results import repair_games

    games = folder / "games.jsonl"
    kept = games.stat().st_size
    with open(games, "a") as handle:
        handle.write("[" * 100_000 + "]" * 100_000 + "\n")
    assert repair_games(games) == 200_001
    assert games.stat().st_size == kept
