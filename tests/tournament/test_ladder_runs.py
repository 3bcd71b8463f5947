"""Tests for arena/tournament/formats/ladder/season.py through `arena run --games N`:
entrants added, replaced and removed between runs of one folder (games.jsonl only grows,
versions are frozen copies, the ranking follows), the same bytes on 1 or 2 workers, and the CLI's
one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from arena.cli.main import cli

CONFIG = """\
name: season
rules: dice
options: {max_points: 1}
entrants: [honest, random, ENTRANTS]
submissions: entries/
format: {type: ladder, seats: 2, min_games: 4, batch: 2, band: 2}
seed: 5
replays: false
"""
BOT = """\
import arena


class Alice(arena.Bot):
    \"\"\"VERSION\"\"\"

    def act(self, observation: arena.Observation) -> arena.Action:
        return arena.random_action(observation.legal, self.rng)
"""


def _season(root: Path, entrants: str = "bluffer") -> Path:
    (root / "entries").mkdir(exist_ok=True)
    (root / "ladder.yaml").write_text(CONFIG.replace("ENTRANTS", entrants), encoding="utf-8")
    return root / "ladder.yaml"


def _play(config: Path, out: Path, games: int, *extra: str) -> dict:
    result = CliRunner().invoke(cli, ["run", str(config), "--out", str(out), "--games",
                                      str(games), "-q", *extra])
    assert result.exit_code == 0, result.output
    return json.loads((out / "ladder.json").read_text(encoding="utf-8"))


def _ranked(ladder: dict) -> set[str]:
    return {row["player"] for row in ladder["ranking"]}


def _status(ladder: dict) -> dict[str, str]:
    return {row["player"]: row["status"] for row in ladder["versions"]}


def test_entrants_join_are_replaced_and_leave_while_the_log_only_grows(tmp_path: Path) -> None:
    config, out = _season(tmp_path), tmp_path / "out"
    first = _play(config, out, 8)
    assert first["games"] == 8 and _ranked(first) == {"honest@1", "random@1", "bluffer@1"}
    log = (out / "games.jsonl").read_bytes()

    (tmp_path / "entries" / "alice.py").write_text(BOT.replace("VERSION", "one"), "utf-8")
    joined = _play(config, out, 8)
    assert joined["games"] == 16 and "alice@1" in _ranked(joined)
    assert (out / "games.jsonl").read_bytes().startswith(log)
    log = (out / "games.jsonl").read_bytes()

    (tmp_path / "entries" / "alice.py").write_text(BOT.replace("VERSION", "two"), "utf-8")
    replaced = _play(config, out, 8)
    assert (out / "games.jsonl").read_bytes().startswith(log)
    assert "alice@2" in _ranked(replaced) and "alice@1" not in _ranked(replaced)
    assert _status(replaced)["alice@1"] == "retired" and _status(replaced)["alice@2"] == "active"
    kept = {row["player"]: row["games"] for row in replaced["versions"]}
    assert kept["alice@1"] == sum("alice@1" in line for line in log.decode().splitlines()) > 0
    assert '"""one"""' in (out / "versions" / "alice@1" / "alice.py").read_text("utf-8")
    assert '"""two"""' in (out / "versions" / "alice@2" / "alice.py").read_text("utf-8")
    log = (out / "games.jsonl").read_bytes()

    _season(tmp_path, entrants="statistician")
    left = _play(config, out, 8)
    assert left["games"] == 32 and (out / "games.jsonl").read_bytes().startswith(log)
    assert _ranked(left) == {"honest@1", "random@1", "statistician@1", "alice@2"}
    assert _status(left)["bluffer@1"] == "retired"
    after = [json.loads(line) for line in (out / "games.jsonl").read_text("utf-8").splitlines()]
    assert not any("bluffer@1" in g["entrants"] for g in after[24:])
    assert "alice v2" in (out / "report.html").read_text("utf-8")


def test_one_or_two_workers_write_the_same_bytes(tmp_path: Path) -> None:
    config = _season(tmp_path)
    (tmp_path / "entries" / "alice.py").write_text(BOT.replace("VERSION", "one"), "utf-8")
    _play(config, tmp_path / "one", 12, "--workers", "1")
    _play(config, tmp_path / "two", 12, "--workers", "2")
    for name in ("games.jsonl", "ladder.json", "ladder-log.jsonl", "standings.csv"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_the_ladder_flags_are_refused_in_one_line(tmp_path: Path) -> None:
    config = _season(tmp_path)
    runner = CliRunner()
    cases = [
        ([], ("arena: error: a ladder needs --games N: how many more games to play into its "
             "folder")),
        (["--games", "2", "--resume"], ("arena: error: a ladder always continues its folder: "
                                       "drop --resume/--force (or choose a new --out)")),
        (["--final", "3", "--games", "2"], ("arena: error: --final plays the final's whole "
                                           "round robin: drop --games/--until-confident")),
    ]
    for extra, line in cases:
        result = runner.invoke(cli, ["run", str(config), "--out", str(tmp_path / "o"), *extra])
        assert (result.exit_code, result.output.strip()) == (2, line)
    for flag in ("--games", "--until-confident", "--final"):
        other = runner.invoke(cli, ["run", "configs/quickstart.yaml", flag, "3"])
        assert (other.exit_code, other.output.strip().splitlines()[-1]) == (
            2, f"arena: error: {flag} is for a ladder; this tournament plays its whole schedule")



def test_a_symlink_in_the_submissions_folder_is_no_submission(tmp_path: Path) -> None:
    """An attack: `entries/sneak.py` linked to an organiser's file would be copied, content
    and all, into the frozen copy, then loaded (its text in the fault) as a bot."""
    config, out = _season(tmp_path), tmp_path / "out"
    private = tmp_path / "private.py"
    private.write_text("SECRET = 'the organiser seed'\n", "utf-8")
    (tmp_path / "entries" / "sneak.py").symlink_to(private)
    ladder = _play(config, out, 4)
    assert "sneak@1" not in _ranked(ladder) and "sneak@1" not in _status(ladder)
    copied = [p for p in (out / "versions").rglob("*") if p.is_file()]
    assert not [p for p in copied if b"organiser seed" in p.read_bytes()]
