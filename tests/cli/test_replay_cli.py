"""`arena replay`: a game told in words from one view or all, and --verify on a replay and on
a whole results folder (exact output and exit statuses)."""

from __future__ import annotations

import base64
import gzip
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from needs import require
from stumbling import stumbler

import arena
from arena import play_game
from arena.cli.main import cli
from arena.replay import encode_replay, read_replay, replay_lines, write_replay
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

NAMES = ("ana", "bruno")

STORY_ALL = """\
game g1 (class; main, table 1): dice, seed 6
seats: 0 ana, 1 bruno
view: everyone (every die and card shown)
-- round 1: seat 0 (ana) throws --
seat 0 (ana) sees [T 9 K Q T], claims pair T
seat 1 (bruno) looks, sees [T 9 K Q T], rerolls 4 dice, gets [T Q K K T], claims pair A
seat 0 (ana) looks, sees [T Q K K T], rerolls 2 dice, gets [T Q J 9 T], claims two-pair Q 9
seat 1 (bruno) challenges seat 0's two-pair Q 9: the hand is [T Q J 9 T] (pair T), it was a lie
seat 0 (ana) takes a point (1)
seat 0 (ana) is out on points
-- game over --
result:
 1st  seat 1 (bruno)  0 points
 2nd  seat 0 (ana)  1 point
"""

STORY_SEAT_1 = """\
game g1 (class; main, table 1): dice, seed 6
seats: 0 ana, 1 bruno
view: seat 1 (bruno): what it knew, when it knew it
-- round 1: seat 0 (ana) throws --
seat 0 (ana) claims pair T
seat 1 (bruno) looks, sees [T 9 K Q T], rerolls 4 dice, gets [T Q K K T], claims pair A
seat 0 (ana) looks, rerolls 2 dice, claims two-pair Q 9
seat 1 (bruno) challenges seat 0's two-pair Q 9: the hand is [T Q J 9 T] (pair T), it was a lie
seat 0 (ana) takes a point (1)
seat 0 (ana) is out on points
-- game over --
result:
 1st  seat 1 (bruno)  0 points
 2nd  seat 0 (ana)  1 point
"""


Stumbler = stumbler(lambda n: n == 2)


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def _seats(names: tuple[str, ...]) -> list[dict[str, Any]]:
    return [{"name": n, "bot": "random", "origin": "test", "version": "0", "mode": "inline"}
            for n in names]  # fmt: skip


def _lines(rules: str = "dice", players: list[Any] | None = None, seed: int = 6,
           options: dict[str, Any] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    players = players or ["random", "random"]
    options = {"max_points": 1} if options is None else options
    record = play_game(rules, players, seed=seed, options=options)
    about = {"id": "g1", "stage": "main", "table": 1, "tournament": "class"}
    names = NAMES if len(players) == 2 else tuple(f"p{i}" for i in range(len(players)))
    return replay_lines(record, about, _seats(names))


@pytest.fixture
def small_game(tmp_path: Path) -> Path:
    path = tmp_path / "g1.json.gz"
    write_replay(path, _lines())
    return path


def test_replay_tells_the_game_with_everything_shown(small_game: Path) -> None:
    assert run("replay", str(small_game)) == (0, STORY_ALL)
    assert run("replay", str(small_game), "--all") == (0, STORY_ALL)


def test_replay_from_one_seat_shows_only_what_it_knew_when_it_knew_it(small_game: Path) -> None:
    assert run("replay", str(small_game), "--seat", "1") == (0, STORY_SEAT_1)


def test_verify_accepts_a_faithful_replay(small_game: Path) -> None:
    assert run("replay", str(small_game), "--verify") == (
        0,
        "verified: game g1 (dice, 8 decisions): every event and the result match the rules\n",
    )


def test_verify_names_the_first_difference_of_a_tampered_replay(tmp_path: Path) -> None:
    lines = _lines(seed=4)
    assert lines[1] == {"type": "chance", "outcome": [11, 13, 10, 10, 14]}
    lines[1]["outcome"][1] = 12  # the thrower's king becomes a queen in the chance line
    path = tmp_path / "tampered.json.gz"
    path.write_bytes(encode_replay(lines))
    code, output = run("replay", str(path), "--verify")
    assert (code, output) == (1, (
        f"{path}: line 4: event "
        '{"hand": ["J", "K", "T", "T", "A"], "kind": "roll", "seat": 0, "to": 0} differs from '
        "the rules' "
        '{"hand": ["J", "Q", "T", "T", "A"], "kind": "roll", "seat": 0, "to": 0}\n'
    ))  # fmt: skip


def test_faults_are_told_where_they_happened(tmp_path: Path) -> None:
    lines = _lines(players=["random", Stumbler], options={"max_points": 2,
                                                          "on_fault": "penalty"})  # fmt: skip
    path = tmp_path / "fault.json.gz"
    write_replay(path, lines)
    code, output = run("replay", str(path))
    assert code == 0
    assert "seat 1 (bruno) FAULT crash: RuntimeError: stumbled\n" in output
    assert "seat 1 (bruno) is penalised for fault 1\n" in output


@pytest.mark.parametrize("rules", ["dice-cards", "cards"])
def test_a_seat_view_never_shows_another_seats_private_cards(tmp_path: Path, rules: str) -> None:
    lines = _lines(rules, ["random"] * 3, seed=7, options={})
    path = tmp_path / "game.json.gz"
    write_replay(path, lines)
    private = [e["event"] for e in lines if e["type"] == "event" and "to" in e["event"]]
    assert private, "the game must have private events to hide"
    for seat in range(3):
        code, output = run("replay", str(path), "--seat", str(seat))
        assert code == 0
        mine = [line for line in output.splitlines() if line.startswith(f"seat {seat} ")]
        theirs = [line for line in output.splitlines() if not line.startswith(f"seat {seat} ")]
        assert any(" sees [" in line or " keeps [" in line for line in mine)
        # another seat's turn never shows what it saw or kept
        assert not any(" sees [" in line or " keeps [" in line or " gets [" in line
                       for line in theirs)  # fmt: skip



def test_a_player_out_of_chips_is_told_in_plain_words(tmp_path: Path) -> None:
    lines = _lines("cards", ["random"] * 3, seed=1, options={"chips": 5})
    path = tmp_path / "game.json.gz"
    write_replay(path, lines)
    code, told = run("replay", str(path))
    assert code == 0
    assert "seat 2 (p2) is out of chips\n" in told
    code, played = run("play", "--rules", "cards", "--bots", "random,random,random",
                       "--seed", "1", "--option", "chips=5")  # fmt: skip
    assert code == 0
    assert "seat 2 (random) is out of chips\n" in played
    assert "out out" not in told + played


# The replay viewer (arena/report/static/viewer.js) run by Node on a small stand-in for the page: it
# opens the game at its last step, and its story pane's lines are printed as JSON.
VIEWER_HARNESS = """
const fs = require("fs"), vm = require("vm");
const [viewer, packed, steps] = process.argv.slice(2);
class Node { constructor(tag) { this.tag = tag; this.children = []; this.dataset = {};
  this.style = {}; this._text = ""; }
  get textContent() { return this._text + this.children.map((c) => c.textContent).join(""); }
  set textContent(text) { this._text = String(text); this.children = []; }
  appendChild(child) { this.children.push(child); return child; }
  setAttribute() {} addEventListener() {} replaceWith() {} closest() { return null; } }
const nodes = {}, head = new Node("head");
const document = { head, title: "",
  getElementById: (id) => nodes[id] || (nodes[id] = new Node("div")),
  createElement: (tag) => new Node(tag), createTextNode: (text) => ({ textContent: text }),
  addEventListener() {} };
const window = { ARENA_REPLAY: { g1: fs.readFileSync(packed, "utf8") } };
head.appendChild = (script) => setTimeout(() => script.onload(), 0);
const context = { window, document, location: { hash: "#game=g1&pack=0&step=" + steps },
  history: { replaceState() {} }, URLSearchParams, Uint8Array, Blob, Response, atob,
  DecompressionStream, setTimeout, clearInterval, setInterval, console };
vm.runInNewContext(fs.readFileSync(viewer, "utf8"), context);
const done = () => nodes.app && nodes.app.dataset.step !== undefined;
const wait = setInterval(() => { if (!done() && !(nodes.message && nodes.message._text)) return;
  clearInterval(wait);
  console.log(JSON.stringify(done() ? nodes.log.children.map((item) => item.textContent)
                                    : [nodes.message._text])); }, 10);
"""


def test_the_viewer_says_out_of_chips_in_plain_words(tmp_path: Path) -> None:
    require(shutil.which("node"), "needs Node.js to run the viewer (apt-get install nodejs)")
    lines = _lines("cards", ["random"] * 3, seed=1, options={"chips": 5})
    packed = tmp_path / "g1.b64"
    packed.write_text(base64.b64encode(encode_replay(lines)).decode())
    harness = tmp_path / "harness.js"
    harness.write_text(VIEWER_HARNESS)
    viewer = Path(arena.__file__).parent / "report" / "static" / "viewer.js"
    shown = subprocess.run(["node", str(harness), str(viewer), str(packed), str(len(lines))],
                           capture_output=True, text=True, check=True, timeout=60)  # fmt: skip
    told = json.loads(shown.stdout)
    assert "seat 2 (p2) is out of chips" in told
    assert not [line for line in told if "out out" in line]

# --- results folders ----------------------------------------------------------------------

CONFIG = """\
name: class
rules: dice
options: {max_points: 2}
entrants: [random, {bot: random, alias: ana}, {bot: random, alias: bruno}]
format: {type: round-robin, seats: 2, games: 1}
seed: 3
workers: 1
"""


@pytest.fixture(scope="module")
def results_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("results")
    config = root / "class.yaml"
    config.write_text(CONFIG)
    run_tournament(load_tournament(config), root / "out", workers=1)
    return root / "out"


def _copy(folder: Path, target: Path) -> Path:
    import shutil

    shutil.copytree(folder, target, ignore=shutil.ignore_patterns(".lock"))
    return target


def test_verify_a_results_folder_checks_every_game(results_folder: Path) -> None:
    assert run("replay", str(results_folder), "--verify") == (0, "6 games verified\n")


def test_verify_a_folder_reports_each_game_that_differs(
    results_folder: Path, tmp_path: Path
) -> None:
    folder = _copy(results_folder, tmp_path / "copy")
    replay = folder / "replays" / "rr-000002.json.gz"
    lines = read_replay(replay).lines()
    lines[-1] = {**lines[-1], "scores": [9, 9]}
    replay.write_bytes(encode_replay(lines))
    games = (folder / "games.jsonl").read_text().splitlines()
    fifth = json.loads(games[4])
    fifth["placements"] = fifth["placements"][::-1]
    games[4] = json.dumps(fifth)
    (folder / "games.jsonl").write_text("\n".join(games) + "\n")
    code, output = run("replay", str(folder), "--verify")
    assert code == 1
    first, second, summary = output.splitlines()
    assert first.startswith("rr-000002: line ") and "result scores [9, 9] differs" in first
    assert second == (
        f"rr-000005: games.jsonl has placements {fifth['placements']!r}, "
        f"the replay {fifth['placements'][::-1]!r}"
    )
    assert summary == "4 of 6 games verified; 2 differ"


def test_verify_a_folder_counts_a_missing_replay_as_a_difference(
    results_folder: Path, tmp_path: Path
) -> None:
    folder = _copy(results_folder, tmp_path / "copy")
    (folder / "replays" / "rr-000003.json.gz").unlink()
    code, output = run("replay", str(folder), "--verify")
    assert code == 1
    assert output.splitlines()[0].startswith("rr-000003: ")
    assert "cannot read" in output.splitlines()[0]
    assert output.splitlines()[-1] == "5 of 6 games verified; 1 differ"


def test_verify_a_folder_on_two_processes_gives_the_same_answer(tmp_path: Path) -> None:
    """A folder of more games than are verified in one process (cli_replay.PARALLEL_FROM)."""
    config = tmp_path / "many.yaml"
    config.write_text(
        "name: many\nrules: dice\noptions: {max_points: 1}\n"
        "entrants: [random, {bot: random, alias: r2}, {bot: random, alias: r3}]\n"
        "format: {type: round-robin, seats: 2, games: 34}\n"
    )
    run_tournament(load_tournament(config), tmp_path / "out", workers=1)
    for workers in ("1", "2"):
        assert run("replay", str(tmp_path / "out"), "--verify", "--workers", workers) == (
            0, "204 games verified\n")  # fmt: skip



def test_a_game_of_a_results_folder_is_named_by_its_id(results_folder: Path) -> None:
    replay = results_folder / "replays" / "rr-000004.json.gz"
    for options in ((), ("--seat", "1")):
        told = run("replay", str(results_folder), "rr-000004", *options)
        assert told == run("replay", str(replay), *options)
        assert told[0] == 0 and told[1].startswith("game rr-000004 (class; main, table 2)")
    verified = run("replay", str(results_folder), "rr-000004", "--verify")
    assert verified == run("replay", str(replay), "--verify")
    assert verified[0] == 0 and verified[1].startswith("verified: game rr-000004 (dice, ")


def test_a_game_without_a_replay_says_so(results_folder: Path, tmp_path: Path) -> None:
    folder = _copy(results_folder, tmp_path / "copy")
    games = (folder / "games.jsonl").read_text().splitlines()
    first = {**json.loads(games[0]), "replay": None}
    (folder / "games.jsonl").write_text("\n".join([json.dumps(first), *games[1:]]) + "\n")
    (folder / "replays" / "rr-000001.json.gz").unlink()
    result = CliRunner().invoke(cli, ["replay", str(folder), "rr-000001"])
    assert (result.exit_code, result.output) == (2, (
        f"arena: error: {folder}: game rr-000001 has no replay (the tournament was run with "
        "replays: false)\n"))  # fmt: skip

ERRORS = [
    (("nowhere.json.gz",), "nowhere.json.gz: no such replay file or results folder"),
    (("{game}", "--seat", "2"), "--seat 2: this game has seats 0 to 1"),
    (("{game}", "--seat", "1", "--all"),
     "--seat and --all contradict each other; choose one view"),
    (("{game}", "--seat", "1", "--verify"), "--verify checks the whole game; leave out --seat"),
    (("{folder}",),
     ("{folder} is a results folder: name one of its games (arena replay {folder} rr-000001; "
      "every id is in {folder}/games.jsonl), or add --verify to check every game")),
    (("{folder}", "rr-00004"),
     ("{folder} has no game 'rr-00004' (nearest: rr-000003, rr-000004, rr-000005); its 6 "
      "games are listed in {folder}/games.jsonl")),
    (("{folder}", "rr-000009"),
     ("{folder} has no game 'rr-000009' (nearest: rr-000004, rr-000005, rr-000006); its 6 "
      "games are listed in {folder}/games.jsonl")),
    (("{folder}", "final"),
     "{folder} has no game 'final'; its 6 games are listed in {folder}/games.jsonl"),
    (("{game}", "rr-000004"),
     ("{game} is a replay file; a game id goes with a results folder (arena replay "
      "RESULTS_DIR GAME)")),
    (("{empty}", "rr-000004"), "{empty} is not a results folder (no games.jsonl)"),
    (("{folder}/config.yaml",),
     "{folder}/config.yaml:1: not JSON: Expecting value: line 1 column 1 (char 0)"),
    (("{empty}", "--verify"), "{empty} is not a results folder (no games.jsonl)"),
    (("{empty}",), "{empty} holds no games yet (no games.jsonl)"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "message"), ERRORS)
def test_replay_errors_are_one_line_with_status_2(
    args: tuple[str, ...], message: str, small_game: Path, results_folder: Path, tmp_path: Path
) -> None:
    places = {"game": str(small_game), "folder": str(results_folder), "empty": str(tmp_path)}
    argv = [a.format(**places) for a in args]
    result = CliRunner().invoke(cli, ["replay", *argv])
    assert result.exit_code == 2
    assert result.output == f"arena: error: {message.format(**places)}\n"


def test_a_folder_without_games_says_it_holds_none_yet(
    results_folder: Path, tmp_path: Path
) -> None:
    parent = tmp_path / "results"
    _copy(results_folder, parent / "x")
    told = CliRunner().invoke(cli, ["replay", str(parent)])
    assert (told.exit_code, told.output) == (2, (
        f"arena: error: {parent} holds no games yet (no games.jsonl); results folders in it: "
        f"{parent / 'x'}\n"))  # fmt: skip
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "games.jsonl").write_text("")
    told = CliRunner().invoke(cli, ["replay", str(tmp_path / "new")])
    assert (told.exit_code, told.output) == (2, (
        f"arena: error: {tmp_path / 'new'} is a results folder that holds no games yet "
        f"({tmp_path / 'new' / 'games.jsonl'} is empty)\n"))  # fmt: skip


def test_the_replay_file_is_gzip_json_lines(small_game: Path) -> None:
    # The story is read from the file, not from memory: the same bytes give the same story.
    text = gzip.decompress(small_game.read_bytes()).decode()
    plain = small_game.with_name("g1.jsonl")
    plain.write_text(text)
    assert run("replay", str(plain)) == (0, STORY_ALL)
