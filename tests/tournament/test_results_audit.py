"""Results a bot cannot rewrite: before the standings are written, at a run's end and at a
resume, every game of games.jsonl is checked against its replay and against what the run
played; a rewritten log or replay stops the run with one line naming the game and the file,
and no standings are written (issue 13)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from cli_support import invoke_cli as _invoke
from cli_support import write_config as _write

from arena.tournament.run import results

ZOO = Path(__file__).resolve().parents[1] / "hosts" / "zoo"
SMALL = """
    name: small
    rules: dice
    entrants:
      - random
      - honest
      - statistician
    format: {type: round-robin, seats: 2, games: 2}
    workers: 1
"""


def _finished(tmp_path: Path) -> tuple[Path, Path]:
    config, out = _write(tmp_path, SMALL), tmp_path / "out"
    ran = _invoke("run", config, "--out", out, "-q")
    assert ran.exit_code == 0, ran.output
    return config, out


def _lines(out: Path) -> list[dict[str, object]]:
    return list(results.iter_games(out / results.GAMES))


def _rewrite(out: Path, lines: list[dict[str, object]]) -> None:
    text = "".join(json.dumps(g, separators=(",", ":")) + "\n" for g in lines)
    (out / results.GAMES).write_text(text)


def _refused_resume(config: Path, out: Path) -> str:
    for name in results.DERIVED:
        (out / name).unlink()
    again = _invoke("run", config, "--out", out, "--resume", "-q")
    assert again.exit_code == 2, again.output
    assert not any((out / name).exists() for name in results.DERIVED), "no standings"
    return again.output


def test_a_bot_that_rewrites_games_jsonl_during_the_run_gets_no_standings(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    config = _write(tmp_path, f"""
        name: forged
        rules: dice
        entrants:
          - bot: {ZOO / 'forger.py'}
            alias: forger
            mode: inline
            options: {{log: {out / results.GAMES}}}
          - random
          - bot: random
            alias: other
        format: {{type: round-robin, seats: 2, games: 3}}
        seed: 4
        workers: 1
    """)
    ran = _invoke("run", config, "--out", out, "-q")
    lines = _lines(out)
    forged = [g for g in lines if g["entrants"] == ["forger", "random"]
              and g["placements"] == [1, 2]]
    assert forged, "the forger rewrote no game: the test shows nothing"
    assert ran.exit_code == 2, ran.output
    first = next(n for n, g in enumerate(lines, 1) if "forger" in g["entrants"]  # type: ignore[operator]
                 and g["placements"] != _placements_in_replay(out, g))
    game = lines[first - 1]["id"]
    assert (f"arena: error: {out / results.GAMES}:{first}: game {game} has placements "
            in ran.output), ran.output
    assert "no standings are written" in ran.output
    assert not (out / "standings.md").exists() and "| rank" not in ran.output
    innocent = [g for g in lines if "forger" not in g["entrants"]]  # type: ignore[operator]
    assert innocent and all(g["faults"] == [] for g in innocent)
    assert all(g["placements"] == _placements_in_replay(out, g) for g in innocent)


def _placements_in_replay(out: Path, game: dict[str, object]) -> list[int]:
    with gzip.open(out / str(game["replay"]), "rt") as handle:
        last = handle.read().splitlines()[-1]
    return list(json.loads(last)["placements"])


def test_a_finished_folder_whose_log_was_edited_resumes_to_no_standings(tmp_path: Path) -> None:
    config, out = _finished(tmp_path)
    lines = _lines(out)
    lines[4]["placements"] = lines[4]["placements"][::-1]  # type: ignore[index]
    lines[4]["scores"] = lines[4]["scores"][::-1]  # type: ignore[index]
    _rewrite(out, lines)
    said = _refused_resume(config, out)
    assert said == (
        f"arena: error: {out / results.GAMES}:5: game {lines[4]['id']} does not match "
        f"{out / str(lines[4]['replay'])}: games.jsonl has placements "
        f"{lines[4]['placements']!r}, the replay {lines[4]['placements'][::-1]!r}; "  # type: ignore[index]
        "the results were changed outside this run, so no standings are written\n"
    )


def test_a_game_a_bot_appends_to_the_log_during_the_run_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    config = _write(tmp_path, f"""
        name: appended
        rules: dice
        entrants:
          - bot: {ZOO / 'forger.py'}
            alias: forger
            mode: inline
            options: {{log: {out / results.GAMES}, append: true}}
          - random
        format: {{type: round-robin, seats: 2, games: 1}}
        workers: 1
    """)
    ran = _invoke("run", config, "--out", out, "-q")
    assert ran.exit_code == 2, ran.output
    number = next(n for n, g in enumerate(_lines(out), 1) if g["id"] == "rr-999999")
    assert ran.output.endswith(
        f"arena: error: {out / results.GAMES}:{number}: game 'rr-999999' is not one this run "
        "played; the results were changed outside this run, so no standings are written\n"
    ), ran.output
    assert not (out / "standings.md").exists()


def test_a_rewritten_replay_is_refused(tmp_path: Path) -> None:
    config, out = _finished(tmp_path)
    game = _lines(out)[2]
    path = out / str(game["replay"])
    with gzip.open(path, "rt") as handle:
        text = handle.read().splitlines()
    text[-1] = json.dumps({**json.loads(text[-1]), "scores": [9, 9]})
    with gzip.open(path, "wt") as handle:
        handle.write("\n".join(text) + "\n")
    said = _refused_resume(config, out)
    assert said.startswith(f"arena: error: {out / results.GAMES}:3: game {game['id']} does "
                           f"not match {path}: "), said



def _forger_run(tmp_path: Path, name: str, cheat: str) -> tuple[Path, Any]:
    """A 3-game run of the forger, inline, with one of its cheats on: its folder and result."""
    out = tmp_path / "out"
    config = _write(tmp_path, f"""
        name: {name}
        rules: dice
        entrants:
          - bot: {ZOO / 'forger.py'}
            alias: forger
            mode: inline
            options: {{log: {out / results.GAMES}, {cheat}: true}}
          - random
        format: {{type: round-robin, seats: 2, games: 3}}
        seed: 4
        workers: 1
    """)
    return out, _invoke("run", config, "--out", out, "-q")


def test_a_bot_that_blames_its_opponents_in_the_log_gets_no_standings(tmp_path: Path) -> None:
    out, ran = _forger_run(tmp_path, "blamed", "blame")
    lines = _lines(out)
    assert any(g["faults"] for g in lines), "the forger blamed no one: the test shows nothing"
    assert ran.exit_code == 2, ran.output
    assert ran.output.endswith(
        f"arena: error: {out / results.GAMES}:1: game {lines[0]['id']} is not the line this "
        "run wrote; the results were changed outside this run, so no standings are written\n"
    )


def test_a_bot_that_slows_its_opponents_in_their_replays_gets_no_standings(
    tmp_path: Path,
) -> None:
    out, ran = _forger_run(tmp_path, "slowed", "slow")
    first = _lines(out)[0]
    with gzip.open(out / str(first["replay"]), "rt") as handle:
        assert '"seconds":0.9}' in handle.read(), "no replay was rewritten: the test shows nothing"
    assert ran.exit_code == 2, ran.output
    assert ran.output.endswith(
        f"arena: error: {out / results.GAMES}:1: game {first['id']} does not match "
        f"{out / str(first['replay'])}: the file is not the one this run wrote; the results "
        "were changed outside this run, so no standings are written\n"
    )
