"""The end of a run reads games.jsonl once (issue 34): the audit's pass feeds the derived
tables' totals, and the standings are the same bytes as from a pass of their own."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.tournament.load import load_tournament
from arena.tournament.run import results, safe_read
from arena.tournament.run.derived import write_derived
from arena.tournament.run.runner import Run, run_tournament

CONFIGS = {
    "round-robin": "format: {type: round-robin, seats: 2, games: 2}",
    "elimination": "format: {type: elimination, seats: 2, games: 1, seeding: 1}",
    "graded": "format: {type: round-robin, seats: 2, games: 2}\ngrades: [pass: random, "
              "merit: honest]",
}


def _config(tmp_path: Path, form: str) -> Path:
    path = tmp_path / "t.yaml"
    path.write_text("name: t\nrules: dice\nentrants: [random, honest, {bot: random, alias: "
                    f"ana}}, {{bot: honest, alias: bo}}]\n{CONFIGS[form]}\nseed: 3\nworkers: 1\n")
    return path


@pytest.mark.parametrize("form", sorted(CONFIGS))
def test_the_end_of_a_run_reads_the_log_once_and_writes_the_same_tables(
    form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = load_tournament(_config(tmp_path, form))
    reads: list[int] = []
    real, finish = safe_read.open_regular, Run._finish
    ending = [False]

    def counted(path: Path, *args: object, **kwargs: object) -> object:
        if Path(path).name == results.GAMES and ending[0]:
            reads.append(1)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    def end(run: Run, resumed: int) -> object:
        ending[0] = True  # the last game is played: what the end reads from here
        return finish(run, resumed)

    monkeypatch.setattr(safe_read, "open_regular", counted)
    monkeypatch.setattr(Run, "_finish", end)
    folder = tmp_path / "t"
    run_tournament(cfg, folder, workers=1)
    if form != "elimination":  # an elimination's log is out of id order: sorted, read again
        assert len(reads) == 1
    monkeypatch.setattr(safe_read, "open_regular", real)
    again = tmp_path / "again"
    shutil.copytree(folder, again, ignore=shutil.ignore_patterns(".lock"))
    from arena.tournament.formats.registry import plan_for

    plan = plan_for(cfg)
    placements = {str(g["id"]): g["placements"] for g in results.iter_games(again / results.GAMES)}
    write_derived(again, cfg, plan, placements)  # the tables from a pass of their own
    names = ("ratings.json", "crosstable.csv", *((results.GRADES, results.GRADE_SHEET)
                                                  if form == "graded" else ()))
    for name in names:  # the totals' own (no format's order), the grades from the same pass
        assert (again / name).read_bytes() == (folder / name).read_bytes(), name


def test_the_end_refuses_a_game_the_log_holds_twice_and_names_one_it_lost(
    tmp_path: Path,
) -> None:
    from arena.tournament.run.audit import WrittenGames, audit_log, written

    lines = [f'{{"id":"g{n}","entrants":["a","b"],"placements":[1,2]}}' for n in (1, 2, 3)]
    kept, played = WrittenGames(), {f"g{n}": (1, 2) for n in (1, 2, 3)}
    for number, line in enumerate(lines, 1):
        kept[f"g{number}"] = written(line, None)
    log = tmp_path / results.GAMES

    def audited(*order: int) -> str | None:
        log.write_text("".join(lines[i] + "\n" for i in order))
        return audit_log(tmp_path, played, 1, replays=False, written=kept)

    assert audited(0, 1, 2) is None
    assert audited(0, 1, 1, 2) == f"{log}:3: game 'g2' is not one this run played"
    assert audited(0, 2) == f"{log}: game g2 that this run played is missing"
    assert audited(0, 2, 1) is None  # the order is the runner's to keep, not the audit's


def test_what_a_run_wrote_is_kept_as_it_was_given() -> None:
    from arena.tournament.run.audit import WrittenGames, written

    kept = WrittenGames()
    kept["b"], kept["a"] = written("b", None), written("a", b"replay")
    kept["b"] = written("b2", b"replay 2")  # a game played again: in its place
    assert list(kept) == ["b", "a"] and len(kept) == 2
    assert kept["a"] == written("a", b"replay") and kept["b"] == written("b2", b"replay 2")
    assert kept.get("c") is None
