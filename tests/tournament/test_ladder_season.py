"""Tests for a ladder season beyond `--games N`: a new version's validation deal (a faulty
submission is reported and never scheduled, the version before it stays), content that
comes back, a batch cut by kill -9 finished with the same bytes, `--until-confident K`
and the frozen `--final K`."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_ladder_runs import BOT as GOOD

from arena.cli.main import cli

CONFIG = """\
name: season
rules: dice
options: {max_points: 1}
entrants: [honest, random, bluffer]
submissions: entries/
format: {type: ladder, seats: 2, min_games: 4, batch: BATCH, band: 2}
seed: 5
replays: false
"""
CRASHY = """\
import arena


class Crashy(arena.Bot):
    def act(self, observation: arena.Observation) -> arena.Action:
        return 1 / 0
"""
BROKEN = "import arena\nclass Broken(arena.Bot):\n    def act(self, o) return 1\n"
SLOW = GOOD.replace("    def act", "    def notify(self, event: object) -> None:\n"
                    "        import time\n        time.sleep(0.01)\n\n    def act")
"""A bot that waits at every event it is told, so a signal sent once 3 games are written lands
mid-batch: at 0.02 s an event its 16 games took 1.7 s longer than without waiting, at 0.01
0.7 s (the 13 games after the third still leave the signal well over a second to land, and
every run with it waits, the whole one and the finishing ones alike)."""


def _season(root: Path, batch: int = 2, **bots: str) -> Path:
    (root / "entries").mkdir(exist_ok=True)
    for name, text in bots.items():
        (root / "entries" / f"{name}.py").write_text(text, "utf-8")
    (root / "ladder.yaml").write_text(CONFIG.replace("BATCH", str(batch)), "utf-8")
    return root / "ladder.yaml"


def _run(config: Path, out: Path, *flags: str, code: int = 0) -> list[str]:
    result = CliRunner().invoke(cli, ["run", str(config), "--out", str(out), "-q", *flags])
    assert result.exit_code == code, result.output
    return result.output.splitlines()


def _rejected(lines: list[str]) -> list[str]:
    """The run's rejections, said after the entrants that joined, were replaced or left."""
    return [line for line in lines if line.startswith("rejected ")]


def _ladder(out: Path) -> dict:
    return json.loads((out / "ladder.json").read_text("utf-8"))


def _status(out: Path) -> dict[str, str]:
    return {row["player"]: row["status"] for row in _ladder(out)["versions"]}


def _games(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text("utf-8").splitlines()]


def test_a_faulty_submission_is_reported_and_never_scheduled(tmp_path: Path) -> None:
    config, out = _season(tmp_path, crashy=CRASHY, broken=BROKEN), tmp_path / "out"
    lines = _run(config, out, "--games", "12")
    assert _rejected(lines) == [
        (f"rejected broken@1: cannot start: {out}/versions/broken@1/broken.py: SyntaxError: "
         "expected ':' (broken.py, line 3)"),
        ("rejected crashy@1: crash in its validation game vd-crashy@1-1: ZeroDivisionError: "
         "division by zero"),
    ]
    assert _status(out) == {"bluffer@1": "active", "broken@1": "rejected",
                            "crashy@1": "rejected", "honest@1": "active",
                            "random@1": "active"}  # fmt: skip
    seated = {name for game in _games(out) for name in game["entrants"]}
    assert seated == {"honest@1", "random@1", "bluffer@1"}
    log = (out / "ladder-log.jsonl").read_bytes()
    assert _rejected(_run(config, out, "--games", "4")) == [], "and not said again"
    assert (out / "ladder-log.jsonl").read_bytes() == log, "rejected content is not tried again"
    assert "ZeroDivisionError" in (out / "report.html").read_text("utf-8")


def test_a_rejected_change_keeps_the_version_before_it(tmp_path: Path) -> None:
    config, out = _season(tmp_path, alice=GOOD.replace("VERSION", "one")), tmp_path / "out"
    _run(config, out, "--games", "8")
    (tmp_path / "entries" / "alice.py").write_text(CRASHY, "utf-8")
    lines = _run(config, out, "--games", "8")
    assert _rejected(lines)[0].startswith("rejected alice@2: crash in its validation game "
                                          "vd-alice@2-1:")
    assert _status(out)["alice@1"] == "active" and _status(out)["alice@2"] == "rejected"
    later = _games(out)[8:]
    assert any("alice@1" in g["entrants"] for g in later)
    assert not any("alice@2" in g["entrants"] for g in later)


def test_content_that_comes_back_is_its_old_version_again(tmp_path: Path) -> None:
    config, out = _season(tmp_path, alice=GOOD.replace("VERSION", "one")), tmp_path / "out"
    _run(config, out, "--games", "8")
    (tmp_path / "entries" / "alice.py").unlink()
    _run(config, out, "--games", "8")
    assert _status(out)["alice@1"] == "retired"
    (tmp_path / "entries" / "alice.py").write_text(GOOD.replace("VERSION", "one"), "utf-8")
    _run(config, out, "--games", "8")
    assert _status(out) == {**_status(out), "alice@1": "active"}
    assert "alice@2" not in _status(out)
    assert any("alice@1" in g["entrants"] for g in _games(out)[16:])


def _same_folders(one: Path, two: Path) -> None:
    for name in ("games.jsonl", "ladder-batches.jsonl", "ladder-log.jsonl", "ladder.json",
                 "standings.csv"):
        assert (one / name).read_bytes() == (two / name).read_bytes(), name


def test_a_batch_cut_mid_way_is_finished_with_the_same_bytes(tmp_path: Path) -> None:
    """The folder as kill -9 leaves it (the batch logged, some of its games, a torn line)."""
    config = _season(tmp_path, batch=4)
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    _run(config, whole, "--games", "16")
    shutil.copytree(whole, cut)
    lines = (cut / "games.jsonl").read_bytes().splitlines(keepends=True)
    (cut / "games.jsonl").write_bytes(b"".join(lines[:11]) + lines[11][:25])
    (cut / "ladder.json").unlink()
    _run(config, cut, "--games", "5")
    _same_folders(whole, cut)


def _cut_mid_batch(config: Path, out: Path, sig: signal.Signals) -> tuple[int, str, int]:
    """`arena run --games 16` (one 16-game batch) sent `sig` after 3 games: its exit code,
    its stderr and the whole game lines on disk, which show the signal landed mid-batch."""
    process = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config), "--out",
                                str(out), "--games", "16", "-q"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True)  # fmt: skip
    games = out / "games.jsonl"
    deadline = time.monotonic() + 60
    while not (games.exists() and games.read_bytes().count(b"\n") >= 3):
        assert process.poll() is None and time.monotonic() < deadline, "the run did not start"
        time.sleep(0.01)
    os.killpg(process.pid, sig)  # the whole group, as a terminal's Ctrl-C does
    _, stderr = process.communicate(timeout=30)
    done = games.read_bytes().count(b"\n")
    assert 3 <= done < 16, "the signal must land in the middle of the 16-game batch"
    return process.returncode, stderr.decode(), done


@pytest.fixture(scope="module")
def slow_season(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The slow season's config, its 16 games played whole beside it (whole/): played once
    for the two tests that cut it, as they only read it (each cuts its own folder beside it:
    the ladder's log names the entries' folder, so the cut runs share this one)."""
    config = _season(tmp_path_factory.mktemp("season"), batch=8, slow=SLOW)
    _run(config, config.parent / "whole", "--games", "16")
    return config


def test_resume_after_kill_9_in_the_middle_of_a_batch(slow_season: Path) -> None:
    config = slow_season
    whole, killed = config.parent / "whole", config.parent / "killed"
    code, _, done = _cut_mid_batch(config, killed, signal.SIGKILL)
    assert code == -signal.SIGKILL
    _run(config, killed, "--games", str(16 - done))
    _same_folders(whole, killed)


def test_ctrl_c_in_the_middle_of_a_batch_exits_130_and_the_next_run_goes_on(
        slow_season: Path) -> None:
    config = slow_season
    whole, stopped = config.parent / "whole", config.parent / "stopped"
    code, stderr, done = _cut_mid_batch(config, stopped, signal.SIGINT)
    assert code == 130 and stderr == (
        "arena: warning: the config writes seed: 5 and 'slow' is not arena's own: a bot that "
        "knows the seed foresees every die; for a contest leave seed: out (arena draws a "
        "secret one and keeps it in the results folder's secret)\n"
        f"arena: interrupted: {done} games are saved in {stopped}; run the same command "
        "again to go on (it first finishes the batch it cut)\n")
    _run(config, stopped, "--games", str(16 - done))
    _same_folders(whole, stopped)


def test_until_confident_stops_once_the_top_is_separated(tmp_path: Path) -> None:
    config, out = _season(tmp_path), tmp_path / "out"
    lines = _run(config, out, "--until-confident", "1", "--games", "2000")
    ladder = _ladder(out)
    assert lines[-1] == "the top 1 are separated at 95%"
    assert ladder["games"] < 2000 and ladder["ranking"][0]["player"] == "honest@1"
    again = _run(config, out, "--until-confident", "1", "--games", "2000")
    assert again[-1] == lines[-1] and _ladder(out)["games"] == ladder["games"], "nothing to play"


def test_until_confident_names_the_unresolved_pairs_when_the_budget_runs_out(
    tmp_path: Path,
) -> None:
    config, out = _season(tmp_path), tmp_path / "out"
    lines = _run(config, out, "--until-confident", "3", "--games", "12", code=1)
    ladder = _ladder(out)
    assert ladder["games"] == 12
    index = lines.index("the top 3 are not separated at 95% when the budget ran out:")
    told = lines[index + 1:]
    assert told and all(line.startswith(("  unresolved: ", "  provisional: ")) for line in told)
    ranked = [r["player"] for r in ladder["ranking"] if not r["provisional"]]
    for line in told:
        if line.startswith("  unresolved: "):
            above, _, rest = line.removeprefix("  unresolved: ").partition(" vs ")
            assert ranked.index(rest.split(" (z = ")[0]) == ranked.index(above) + 1


def test_the_final_freezes_the_top_and_plays_every_pair_at_every_rotation(
    tmp_path: Path,
) -> None:
    config, out = _season(tmp_path), tmp_path / "out"
    _run(config, out, "--games", "24")
    top = [r["player"] for r in _ladder(out)["ranking"][:3]]
    lines = _run(config, out, "--final", "3")
    finals = [g for g in _games(out) if g["stage"] == "final"]
    assert [g["id"] for g in finals] == [f"fn-{n:06d}" for n in range(1, 7)]
    pairs = [tuple(g["entrants"]) for g in finals]
    assert pairs == [seats for i, a in enumerate(top) for b in top[i + 1:]
                     for seats in ((a, b), (b, a))]  # fmt: skip
    assert all(finals[n]["seed"] == finals[n + 1]["seed"] for n in (0, 2, 4))
    final = _ladder(out)["final"]
    assert (final["top"], final["games"], final["played"], final["complete"]) == (top, 6, 6, True)
    assert sorted(final["ranking"]) == sorted(top)
    places = ", ".join(f"{n}. {p}" for n, p in enumerate(final["ranking"], 1))
    assert lines[-1] == f"final (6 games): {places}"
    assert _run(config, out, "--final", "3")[-1] == lines[-1] and len(_games(out)) == 30
    refused = CliRunner().invoke(cli, ["run", str(config), "--out", str(out), "--games", "2"])
    assert (refused.exit_code, refused.output.strip()) == (2, (
        f"arena: error: {out}: the season's final of the top 3 is frozen; no more ladder "
        "games: run --final 3 to finish or show it"))


def test_a_final_needs_its_players_ranked(tmp_path: Path) -> None:
    config, out = _season(tmp_path), tmp_path / "out"
    _run(config, out, "--games", "4")
    result = CliRunner().invoke(cli, ["run", str(config), "--out", str(out), "--final", "3"])
    assert (result.exit_code, result.output.strip()) == (2, (
        "arena: error: --final 3: 1 of its 3 players are ranked (a player is after 4 games); "
        "play more games first"))
    assert not (out / "ladder-final.json").exists()


def test_the_report_of_a_real_season_shows_its_final_and_its_rejections(tmp_path: Path) -> None:
    config, out = _season(tmp_path, crashy=CRASHY), tmp_path / "out"
    _run(config, out, "--games", "24")
    _run(config, out, "--final", "3")
    page = (out / "report.html").read_text("utf-8")
    final = page.index('<section id="final">')
    assert final < page.index('<section id="ranking">')
    winner = _ladder(out)["final"]["ranking"][0].replace("@", " v")
    assert winner in page[final:page.index("</section>", final)]
    assert "crash in its validation game vd-crashy@1-1: ZeroDivisionError" in page


def test_a_bot_folder_is_a_submission_frozen_without_its_symlinks(tmp_path: Path) -> None:
    config, out = _season(tmp_path), tmp_path / "out"
    dora = tmp_path / "entries" / "dora"
    dora.mkdir()
    (dora / "helpers.py").write_text("import arena\n\n\ndef pick(legal, rng):\n"
                                     "    return arena.random_action(legal, rng)\n")
    (dora / "bot.py").write_text(GOOD.replace("import arena", "import arena\nimport helpers")
                                 .replace("arena.random_action(observation.legal, self.rng)",
                                          "helpers.pick(observation.legal, self.rng)"))
    secret = tmp_path / "secret.txt"
    secret.write_text("the organiser's seed\n", "utf-8")
    (dora / "notes.txt").symlink_to(secret)
    _run(config, out, "--games", "12")
    assert _status(out)["dora@1"] == "active"
    assert any("dora@1" in g["entrants"] for g in _games(out))
    frozen = out / "versions" / "dora@1" / "dora"
    assert sorted(p.name for p in frozen.iterdir()) == ["bot.py", "helpers.py"]


def test_a_bot_folder_without_its_bot_is_rejected_not_a_config_error(tmp_path: Path) -> None:
    config, out = _season(tmp_path), tmp_path / "out"
    (tmp_path / "entries" / "empty").mkdir()
    lines = _run(config, out, "--games", "4")
    copy = out / "versions" / "empty@1" / "empty"
    assert _rejected(lines) == [(f"rejected empty@1: cannot start: bot folder '{copy}' has no "
                                f"bot.py: looked at {copy.resolve()}/bot.py")]
