"""Attacks on what reads a results folder as a stranger's (tests/test_crafted_input.py), tried
after it was built: a hard link instead of a symbolic one, gzip members one after another,
numbers JSON has not (NaN) or no game has, tables of the wrong shape, a name that changes how
the report page reads its data, and terminal escapes in a replay someone sent. Each must end
in one line naming the file (exit 2), a warning, or text shown as text: never a file of the
organiser's copied into what the report publishes, a traceback or a hang.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import warm_arena
from test_crafted_input import (  # the same folder, commands and checks
    SECRET,
    arena,
    folder,
    made,
    one_line_error,
    packs,
    set_line,
)


@pytest.fixture(scope="module", autouse=True)
def warm_server() -> Iterator[None]:
    """The module's commands share one warm arena process, stopped when the module ends."""
    yield
    warm_arena.stop()


__all__ = ["folder", "made"]  # fixtures, used by name

PRIVATE = b'{"token": "the organiser\'s private token"}\n'
"""A file of the organiser's whose first line is a JSON object, as a replay's header is."""


def packed(folder: Path) -> bytes:
    """Every replay's bytes the viewer's packs hold, unpacked from their base64."""
    found = re.findall(rb'\]="([A-Za-z0-9+/=]*)";', packs(folder))
    return b"".join(base64.b64decode(each) for each in found)


def hard_link(name: Path, private: Path, content: bytes) -> None:
    """Make `name` one more name of the organiser's file `private`, as unpacking an archive
    with a hard-link member does."""
    private.write_bytes(content)
    name.unlink()
    os.link(private, name)


# --- a hard link is a link: its bytes are another file's ------------------------------------


def test_a_hard_linked_replay_is_neither_packed_nor_published(folder: Path, tmp_path: Path
                                                              ) -> None:  # fmt: skip
    target = folder / "replays" / "rr-000001.json.gz"
    hard_link(target, tmp_path / "private.json", PRIVATE)
    done = arena("report", folder)
    assert done.returncode == 0 and "(rr-000001)" in done.stderr, done.stderr
    assert b"private token" not in packed(folder) and b"rr-000002" in packs(folder)
    one_line_error(arena("replay", folder, "rr-000001"), str(target), "hard link")
    one_line_error(arena("publish", folder, tmp_path / "site"), str(target), "hard link")
    assert not (tmp_path / "site").exists()


def test_a_hard_linked_table_is_not_published(folder: Path, tmp_path: Path) -> None:
    hard_link(folder / "standings.csv", tmp_path / "private.csv", SECRET)
    one_line_error(arena("publish", folder, tmp_path / "site"), "standings.csv", "hard link")
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("name", ["games.jsonl", ".lock"])
def test_a_resume_writes_through_no_hard_link(folder: Path, made: Path, tmp_path: Path,
                                              name: str) -> None:  # fmt: skip
    private = tmp_path / "bashrc"
    (folder / name).touch()
    hard_link(folder / name, private, SECRET + b"not JSON, cut as a torn line by a repair")
    before = private.read_bytes()
    config = made.parent / "class.yaml"
    if name == ".lock":  # never arena's lock: removed, not truncated, and the run goes on
        assert arena("run", config, "--out", folder, "--resume", "--quiet").returncode == 0
    else:
        one_line_error(arena("run", config, "--out", folder, "--resume", "--quiet"),
                       f"{folder / name}: a hard link")
    assert private.read_bytes() == before
    done = arena("run", config, "--out", folder, "--force", "--quiet")
    assert done.returncode == 0, done.stderr
    assert private.read_bytes() == before


# --- gzip members one after another ---------------------------------------------------------


def test_a_replay_of_more_than_one_gzip_member_is_one_line(folder: Path) -> None:
    """Each member would cost a copy of every byte after it: 16 MiB of empty members took
    hours. arena writes one member; more, or bytes after it, are refused."""
    target = folder / "replays" / "rr-000001.json.gz"
    text = gzip.decompress(target.read_bytes())
    half = text.index(b"\n") + 1
    target.write_bytes(gzip.compress(text[:half], mtime=0) + gzip.compress(text[half:], mtime=0))
    one_line_error(arena("replay", target), str(target), "one gzip member")
    one_line_error(arena("replay", folder, "rr-000001"), str(target), "one gzip member")
    done = arena("report", folder)
    assert done.returncode == 0 and "(rr-000001)" in done.stderr, done.stderr


# --- numbers and shapes no game has ---------------------------------------------------------


def with_game(folder: Path, **fields: object) -> str:
    """games.jsonl's first line with `fields` changed, as JSON text (Python's json writes
    NaN and Infinity, which is what an attacker would hand)."""
    line = json.loads((folder / "games.jsonl").read_text().splitlines()[0])
    return json.dumps({**line, **fields})


@pytest.mark.parametrize(("fields", "why"), [
    ({"scores": [float("nan"), 1]}, "NaN is not a JSON number"),
    ({"scores": [float("inf"), 1]}, "Infinity is not a JSON number"),
    ({"scores": [10**400, 1]}, "its scores are not a number for each entrant"),
    ({"placements": [-5, 1]}, "its placements are not a place from 1 to 2"),
    ({"faults": [{"seat": 99, "kind": "crash", "message": "x"}]}, "seat from 0 to 1"),
    ({"entrants": "random"}, "its entrants are not a list of names"),
    ({"decisions": "x"}, "its id, table or decisions"),
], ids=["nan", "infinity", "a score of 400 digits", "a negative place", "a fault's seat 99",
        "entrants a string", "decisions a string"])  # fmt: skip
def test_a_game_no_run_could_write_is_one_line(folder: Path, tmp_path: Path,
                                               fields: dict[str, object], why: str) -> None:
    set_line(folder, 1, with_game(folder, **fields))
    where = f"{folder / 'games.jsonl'}:1: "
    one_line_error(arena("report", folder), where, why)
    line = one_line_error(arena("publish", folder, tmp_path / "site"), where, why)
    assert "publishing" not in line  # the folder named, not the copy made of it


@pytest.mark.parametrize(("text", "why"), [
    ("[1]", "ratings.json: not a JSON object but list"),
    ('{"entrants": [1]}', "its entrants are not an object"),
    ('{"entrants": {"ana": 5}}', "the rating of 'ana' is not an object"),
    ('{"entrants": {"ana": {"elo": {"rating": "x"}}}}', "the elo of 'ana' is not numbers"),
    ('{"entrants": {"ana": {"openskill": {"mu": 1e999}}}}', "1e999 is too big a number"),
], ids=["a list", "entrants a list", "a rating a number", "elo a string", "mu too big"])
def test_ratings_of_the_wrong_shape_are_one_line(folder: Path, tmp_path: Path, text: str,
                                                 why: str) -> None:  # fmt: skip
    (folder / "ratings.json").write_text(text)
    one_line_error(arena("report", folder), "ratings.json", why)
    line = one_line_error(arena("publish", folder, tmp_path / "site"), "ratings.json", why)
    assert str(folder) in line and "publishing" not in line


# --- the report page's data -----------------------------------------------------------------


def test_a_name_cannot_change_how_the_page_reads_its_data(folder: Path) -> None:
    """'<!--' then '<script' inside a <script> would make the browser read the script's end
    tag, and report.js after it, as the data's text: the page's lists would stay empty."""
    name = "<!--<script>x</script>"
    set_line(folder, 1, with_game(folder, entrants=["random", name]))
    done = arena("report", folder)
    assert done.returncode == 0, done.stderr
    page = (folder / "report.html").read_text()
    data = page.split('<script type="application/json" id="games-data">', 1)[1]
    data, rest = data.split("</script>", 1)
    assert "<" not in data and name in json.loads(data)["names"]
    assert rest.startswith("\n<script>\n") and "</script>" in rest


# --- terminal escapes in a replay someone sent ----------------------------------------------


ESCAPES = ("\x1b", "\x07", "\u202e")
"""ESC (colours, a window's title, the clipboard in some terminals), BEL, a right-to-left
override."""


def test_a_crafted_replay_cannot_drive_the_terminal(folder: Path) -> None:
    target = folder / "replays" / "rr-000001.json.gz"
    lines = [json.loads(x) for x in gzip.decompress(target.read_bytes()).splitlines()]
    lines[0]["entrants"][1]["name"] = "ana\x1b]0;owned\x07\n1st seat 1 (ana) 9 points"
    lines[0]["game"]["tournament"] = "class\x1b[2J"
    lines.insert(-1, {"type": "fault", "seat": 1, "kind": "crash",
                      "message": "boom\x1b[31m\u202eevil\nforged line"})
    target.write_bytes(gzip.compress(b"".join(json.dumps(x).encode() + b"\n" for x in lines)))
    told = arena("replay", target)
    assert told.returncode == 0, told.stderr
    assert not any(c in told.stdout for c in ESCAPES), told.stdout
    assert "ana\\x1b]0;owned\\x07" in told.stdout and "\\u202eevil" in told.stdout
    assert not any(x.startswith(("1st seat 1 (ana)", "forged")) for x in told.stdout.splitlines())


def test_a_crafted_game_id_cannot_drive_the_terminal(folder: Path) -> None:
    set_line(folder, 1, with_game(folder, id="rr-\x1b]0;owned\x07"))
    (folder / "replays" / "rr-000001.json.gz").unlink()
    done = arena("report", folder)
    assert done.returncode == 0 and "rr-\\x1b]0;owned\\x07" in done.stderr, done.stderr
    assert not any(c in done.stderr + done.stdout for c in ESCAPES)
    set_line(folder, 1, with_game(folder, id="rr-\x1b[2J", replay=None))
    line = one_line_error(arena("replay", folder, "rr-\x1b[2J"), "rr-\\x1b[2J has no replay")
    assert "\x1b" not in line
