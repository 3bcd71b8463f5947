"""The HTML report: one self-contained page, the viewer's data files, and the bluffing
statistics read from the replays (pinned against a full JSON parse)."""

from __future__ import annotations

import base64
import csv
import gzip
import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from peak_memory import peak
from stumbling import stumbler

import arena
import arena.report.scan
import arena.report.viewer
import arena.tournament.run.results
from arena import hands, play_game
from arena.cli.main import cli
from arena.replay import encode_replay, read_replay, replay_lines
from arena.report.bluffing import BluffStats, bluff_stats
from arena.report.charts import interval_chart
from arena.report.folder import ReportError
from arena.report.html import REPORT, VIEWER, build_report
from arena.report.scan import scan_replay
from arena.report.viewer import pack_name, pack_script
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

ROUND_ROBIN = """\
name: class
rules: {rules}
options: {options}
entrants: [random, {{bot: random, alias: ana}}, {{bot: random, alias: bruno}}]
format: {{type: round-robin, seats: {seats}, games: 1}}
seed: 5
workers: 1
replays: {replays}
"""

ELIMINATION = """\
name: cup
rules: dice
options: {max_points: 1}
entrants: [random, {bot: random, alias: ana}, {bot: random, alias: bruno},
           {bot: random, alias: carla}]
format: {type: elimination, seats: 2, games: 1}
seed: 2
workers: 1
"""


def _tournament(root: Path, text: str) -> Path:
    config = root / "t.yaml"
    config.write_text(text)
    run_tournament(load_tournament(config), root / "out", workers=1)
    return root / "out"


@pytest.fixture(scope="module")
def dice_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    text = ROUND_ROBIN.format(rules="dice", options="{max_points: 2}", seats=2, replays="true")
    folder = _tournament(tmp_path_factory.mktemp("dice"), text)
    build_report(folder)
    return folder


def _page(folder: Path) -> str:
    return (folder / REPORT).read_text(encoding="utf-8")


def _games(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]


# --- the page -----------------------------------------------------------------------------


def test_the_report_is_one_page_that_needs_no_network(dice_folder: Path) -> None:
    page = _page(dice_folder)
    assert page.startswith("<!doctype html>")
    assert "<style>" in page and "<script>" in page
    assert not re.search(r"""\b(?:src|href)\s*=\s*["']?(?:https?:)?//""", page)
    assert not re.search(r"<link\b|@import|url\(", page)
    assert "http://" not in page and "https://" not in page


_TIE_ABBR = (
    '<abbr class="tie" title="95% Elo interval overlaps the one above: a statistical tie">~</abbr>'
)


def test_the_standings_rows_follow_standings_csv(dice_folder: Path) -> None:
    with open(dice_folder / "standings.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    shown = re.findall(r'<tr data-entrant="([^"]+)"><td class=num>(<abbr class="tie"[^>]*>~'
                       r"</abbr>)?<span[^>]*>(\d+)</span>", _page(dice_folder))  # fmt: skip
    assert shown == [
        (row["entrant"], _TIE_ABBR if row["tied"] == "1" else "", row["rank"]) for row in rows
    ]


def test_every_game_is_listed_and_linked_to_the_viewer(dice_folder: Path) -> None:
    found = re.search(r'<script type="application/json" id="games-data">(.*?)</script>',
                      _page(dice_folder), re.DOTALL)  # fmt: skip
    assert found
    data = json.loads(found.group(1))
    games = _games(dice_folder)
    assert [g[0] for g in data["games"]] == [g["id"] for g in games]
    assert all(g[8] == 0 for g in data["games"])  # every game is in the viewer's first pack
    for row, game in zip(data["games"], games, strict=True):
        assert [data["names"][i] for i in row[3]] == game["entrants"]
        assert row[4] == game["placements"] and row[5] == game["scores"]


PACK_LINE = re.compile(rb'window\.ARENA_REPLAY\[("(?:[^"\\]|\\.)*")\]="([A-Za-z0-9+/=]*)";')


def _packed(folder: Path, pack: int) -> dict[str, bytes]:
    """The games in one viewer data pack, with their replay bytes."""
    script = (folder / "replays" / pack_name(pack)).read_bytes()
    head, *games = script.splitlines()
    assert head == b"window.ARENA_REPLAY=window.ARENA_REPLAY||{};"
    out = {}
    for line in games:
        found = PACK_LINE.fullmatch(line)
        assert found, line
        out[json.loads(found.group(1))] = base64.b64decode(found.group(2), validate=True)
    return out


def test_the_viewer_and_its_data_packs_are_written(dice_folder: Path) -> None:
    viewer = (dice_folder / VIEWER).read_text()
    assert "/*STYLE*/" not in viewer and "/*SCRIPT*/" not in viewer
    assert "DecompressionStream" in viewer and "ARENA_REPLAY" in viewer
    packed = _packed(dice_folder, 0)
    games = _games(dice_folder)
    assert list(packed) == [g["id"] for g in games]
    for game in games:
        assert packed[game["id"]] == (dice_folder / game["replay"]).read_bytes()
    assert sorted(p.name for p in (dice_folder / "replays").glob("*.js")) == [pack_name(0)]


def test_games_are_packed_in_log_order_a_hundred_at_a_time(
    dice_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(dice_folder, copy, ignore=shutil.ignore_patterns(".lock"))
    monkeypatch.setattr(arena.report.viewer, "PACK", 4)
    build_report(copy)
    ids = [g["id"] for g in _games(dice_folder)]
    assert list(_packed(copy, 0)) == ids[:4] and list(_packed(copy, 1)) == ids[4:]
    data = re.search(r'id="games-data">(.*?)</script>', _page(copy), re.DOTALL)
    assert data and [g[8] for g in json.loads(data.group(1))["games"]] == [0, 0, 0, 0, 1, 1]
    before = (copy / "replays" / pack_name(0)).stat().st_mtime_ns
    build_report(copy)  # an unchanged pack is not written again
    assert (copy / "replays" / pack_name(0)).stat().st_mtime_ns == before


def test_the_ratings_chart_and_heat_map_are_inline_svg_and_cells(dice_folder: Path) -> None:
    page = _page(dice_folder)
    assert page.count('<figure class="chart">') == 2
    assert page.count('<circle class="est"') == 6  # 3 entrants x (Elo, OpenSkill)
    cells = re.findall(r'data-score="([0-9.]+)"><a href="[^"]*">(\d+)%<small>', page)
    assert len(cells) == 6  # 3 entrants, each against 2 others
    assert all(round(100 * float(score)) == int(shown) for score, shown in cells)


def test_rebuilding_gives_the_same_bytes(dice_folder: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(dice_folder, copy, ignore=shutil.ignore_patterns(".lock"))
    build_report(copy)
    assert (copy / REPORT).read_bytes() == (dice_folder / REPORT).read_bytes()


def test_reading_the_replays_on_two_processes_changes_nothing(
    dice_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena.report.viewer, "PACK", 2)
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    for copy in (serial, parallel):
        shutil.copytree(dice_folder, copy, ignore=shutil.ignore_patterns(".lock"))
    build_report(serial, workers=1)
    monkeypatch.setattr(arena.report.scan, "PARALLEL_FROM", 1)
    summary = build_report(parallel, workers=2)
    assert summary.replays == len(_games(dice_folder))
    assert (parallel / REPORT).read_bytes() == (serial / REPORT).read_bytes()
    for pack in range(3):
        assert _packed(parallel, pack) == _packed(serial, pack)


def test_a_missing_or_broken_replay_is_reported_and_left_unlinked(
    dice_folder: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(dice_folder, copy, ignore=shutil.ignore_patterns(".lock"))
    (copy / "replays" / "rr-000002.json.gz").unlink()
    (copy / "replays" / "rr-000003.json.gz").write_bytes(b"\x1f\x8bnot gzip at all")
    summary = build_report(copy)
    assert summary.missing == ("rr-000002", "rr-000003")
    assert summary.replays == len(_games(dice_folder)) - 2
    assert "rr-000002" not in _packed(copy, 0) and "rr-000003" not in _packed(copy, 0)
    data = re.search(r'id="games-data">(.*?)</script>', _page(copy), re.DOTALL)
    assert data
    packs = {g[0]: g[8] for g in json.loads(data.group(1))["games"]}
    assert (packs["rr-000001"], packs["rr-000002"], packs["rr-000003"]) == (0, -1, -1)
    result = CliRunner().invoke(cli, ["report", str(copy)])
    assert result.exit_code == 0
    assert "warning: 2 replay files are missing or unreadable (rr-000002, rr-000003)" in (
        result.output
    )


def test_without_replays_the_report_still_shows_the_tables(tmp_path: Path) -> None:
    text = ROUND_ROBIN.format(rules="dice", options="{max_points: 1}", seats=2, replays="false")
    folder = _tournament(tmp_path, text)
    summary = build_report(folder)
    assert summary.replays == 0
    page = _page(folder)
    assert "bluffing statistics need replay files" in page
    assert '<table class="standings data">' in page


def test_an_elimination_shows_its_bracket(tmp_path: Path) -> None:
    folder = _tournament(tmp_path, ELIMINATION)
    build_report(folder)
    page = _page(folder)
    stages = json.loads((folder / "stages.json").read_text())
    assert '<section id="bracket">' in page
    for stage in stages["stages"]:
        assert f"<h3>{stage['name']}</h3>" in page
    winner = stages["ranking"][0]
    assert f'<div class="stage final"><h3>final ranking</h3><ol><li>{winner}</li>' in page


def test_a_round_robin_has_no_bracket(dice_folder: Path) -> None:
    assert '<section id="bracket">' not in _page(dice_folder)


def test_an_unfinished_folder_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "games.jsonl").write_text("")
    with pytest.raises(ReportError, match=r"not a finished results folder \(no standings.csv, "
                                          r"ratings.json, crosstable.csv\)"):  # fmt: skip
        build_report(tmp_path)


def test_arena_report_prints_where_the_page_is(dice_folder: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(dice_folder, copy, ignore=shutil.ignore_patterns(".lock"))
    result = CliRunner().invoke(cli, ["report", str(copy)])
    assert result.exit_code == 0
    size = (copy / REPORT).stat().st_size
    assert result.output == (
        f"report: {copy / REPORT} ({size / 1024:,.0f} KB; 6 games, 6 with a replay in the "
        "viewer)\n"
    )
    result = CliRunner().invoke(cli, ["report", str(tmp_path / "nothing")])
    assert (result.exit_code, result.output) == (
        2, f"arena: error: {tmp_path / 'nothing'}: no such results folder\n")  # fmt: skip


# --- streaming: the games are never all held ------------------------------------------------


def _copy(folder: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns(".lock"))
    return copy


def _write_games(folder: Path, games: list[dict[str, Any]]) -> None:
    (folder / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))


def _games_data(folder: Path) -> str:
    found = re.search(r'id="games-data">(.*?)</script>', _page(folder), re.DOTALL)
    assert found
    return found.group(1)


def test_the_list_of_games_is_the_compact_json_of_every_game(
    dice_folder: Path, tmp_path: Path
) -> None:
    copy = _copy(dice_folder, tmp_path)
    games = _games(copy)
    games[1]["stage"] = "sémi</script>"  # non-ASCII kept, every "<" escaped
    games[2]["entrants"][0] = "guest"  # a name the standings do not know comes last
    _write_games(copy, games)
    (copy / "replays" / "rr-000004.json.gz").unlink()
    build_report(copy)
    table = (copy / "standings.csv").read_text().splitlines()
    standings = [row["entrant"] for row in csv.DictReader(table)]
    stages = list(dict.fromkeys(g["stage"] for g in games))
    names = [*standings, "guest"]
    rows = [
        [g["id"], stages.index(g["stage"]), g["table"], [names.index(n) for n in g["entrants"]],
         g["placements"], g["scores"], len(g["faults"]), g["decisions"],
         -1 if g["id"] == "rr-000004" else 0]
        for g in games
    ]  # fmt: skip
    document = {"names": names, "stages": stages, "score": "points", "games": rows}
    expected = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
    assert _games_data(copy) == expected.replace("<", "\\u003c")


def test_fault_examples_are_the_first_three_of_each_kind_linked_to_the_viewer_at_the_fault(
    dice_folder: Path, tmp_path: Path
) -> None:
    copy = _copy(dice_folder, tmp_path)
    games = _games(copy)
    for i, g in enumerate(games):
        g["faults"] = [{"seat": 0, "kind": "crash", "message": f"boom <{i}>"}]
    _write_games(copy, games)
    (copy / "replays" / "rr-000002.json.gz").unlink()
    rows = list(csv.DictReader((copy / "standings.csv").read_text().splitlines()))
    for row in rows:
        row["crash"] = str(sum(g["entrants"][0] == row["entrant"] for g in games))
    with (copy / "standings.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    build_report(copy)
    page = _page(copy)
    shown: dict[str, list[str]] = {}
    for i, g in enumerate(games):
        listed = shown.setdefault(g["entrants"][0], [])
        if len(listed) < 3:
            link = g["id"] if g["id"] == "rr-000002" else (
                f'<a href="viewer.html#game={g["id"]}&amp;pack=0&amp;fault=0&amp;back=faults">'
                f'{g["id"]}</a>')  # fmt: skip
            listed.append(f'<li data-kind="crash">{link} <b>crash</b>: boom &lt;{i}&gt;</li>')
    for name, listed in shown.items():
        assert f'<ul class="examples">{"".join(listed)}</ul>' in page, name


def test_the_bracket_links_every_knockout_game(tmp_path: Path) -> None:
    folder = _tournament(tmp_path, ELIMINATION)
    build_report(folder)
    page = _page(folder)
    stages = json.loads((folder / "stages.json").read_text())
    knockout = [g for s in stages["stages"] for t in s["tables"] for g in t["games"]]
    assert knockout
    for number, game_id in enumerate(knockout):
        assert f'<a href="viewer.html#game={game_id}&amp;pack={number // 100}">' in page



def test_the_report_reads_the_games_without_holding_them(tmp_path: Path) -> None:
    text = ROUND_ROBIN.format(rules="dice", options="{max_points: 1}", seats=2, replays="false")
    folder = _tournament(tmp_path, text)
    first = _games(folder)[0]
    _write_games(folder, [{**first, "id": f"rr-{i:06d}"} for i in range(1, 5001)])
    build_report(folder, workers=1)  # first use: static files read, modules imported
    built = peak(lambda: build_report(folder, workers=1))
    held = peak(lambda: list(arena.tournament.run.results.iter_games(folder / "games.jsonl")))
    assert held > 4_000_000
    assert built < held / 8
    assert len(json.loads(_games_data(folder))["games"]) == 5000


# --- bluffing statistics ------------------------------------------------------------------


Stumbler = stumbler(lambda n: n % 4 == 0)


GAMES = {
    "dice": (["random", Stumbler, "random"], {"on_fault": "penalty", "max_faults": 3}),
    "dice-cards": (["random", "random", "random", "random"], {"straight_over_full": True}),
    "cards": (["random", Stumbler, "random"], {"on_fault": "penalty", "max_faults": 3}),
}


def _replay_text(rules: str, seed: int) -> tuple[bytes, list[dict[str, Any]]]:
    players, options = GAMES[rules]
    record = play_game(rules, players, seed=seed, options=options)
    seats = [{"name": f"p{i}", "bot": "x", "origin": "t", "version": "0", "mode": "inline"}
             for i in range(len(players))]  # fmt: skip
    lines = replay_lines(record, {"id": f"{rules}-{seed}"}, seats)
    return encode_replay(lines), lines


def _parsed_tally(lines: list[dict[str, Any]]) -> Counter[tuple[Any, ...]]:
    """The claim and challenge events, found by reading every line as JSON."""
    found: Counter[tuple[Any, ...]] = Counter()
    for line in lines:
        event = line.get("event") if line.get("type") == "event" else None
        if not event or event["kind"] not in ("claim", "pass", "challenge"):
            continue
        found[(
            event["kind"].encode(), str(event["seat"]).encode(),
            str(event.get("claimant", "")).encode(), event["claim"].encode(),
            {True: b"true", False: b"false", None: b""}[event.get("blind")],
            {True: b"true", False: b"false", None: b""}[event.get("holds")],
        )] += 1  # fmt: skip
    return found


@pytest.mark.parametrize("rules", sorted(GAMES))
@pytest.mark.parametrize("seed", [1, 2])
def test_the_fast_scan_finds_exactly_what_a_full_parse_finds(rules: str, seed: int) -> None:
    raw, lines = _replay_text(rules, seed)
    import gzip

    names, found = scan_replay(gzip.decompress(raw))
    assert names == tuple(f"p{i}" for i in range(len(GAMES[rules][0])))
    expected = _parsed_tally(lines)
    assert sum(expected.values()) > 5
    assert any(key[0] == b"challenge" for key in expected)
    assert found == expected


def test_bluff_statistics_add_up_claims_and_challenges() -> None:
    tally = {
        ("claim", "ana", "", "pair 9", False, False): 3,  # index 6 in the dice claims
        ("claim", "ana", "", "three A", True, False): 1,
        ("claim", "bruno", "", "high A", False, False): 2,
        ("challenge", "bruno", "ana", "pair 9", False, True): 2,  # ana's claim held twice
        ("challenge", "bruno", "ana", "three A", False, False): 1,  # ana was caught once
        ("challenge", "ana", "bruno", "high A", False, True): 1,
    }
    ana, bruno, nobody = bluff_stats(tally, ["ana", "bruno", "carla"], "dice", False)
    space = [str(c) for c in hands.claims("dice")]
    assert ana == BluffStats(
        "ana", claims=4, blind=1,
        claim_index_total=3 * space.index("pair 9") + space.index("three A"),
        categories=(("pair", 3), ("three", 1)),
        challenged=3, held=2, challenges=1, right=0,
    )  # fmt: skip
    assert (ana.held_rate, ana.right_rate) == (2 / 3, 0.0)
    assert bruno.challenges == 3 and bruno.right == 1 and bruno.challenged == 1 and bruno.held == 1
    assert nobody == BluffStats("carla")
    assert nobody.mean_claim_index is None and nobody.held_rate is None


def test_the_report_counts_every_claim_in_the_replays(dice_folder: Path) -> None:
    claims: Counter[str] = Counter()
    for game in _games(dice_folder):
        replay = read_replay(dice_folder / game["replay"])
        names = [e["name"] for e in replay.header["entrants"]]
        for line in replay.log:
            if line["type"] == "event" and line["event"]["kind"] == "claim":
                claims[names[line["event"]["seat"]]] += 1
    page = _page(dice_folder)
    for name, count in claims.items():
        assert re.search(rf'<tr data-entrant="{name}"><td class=name>{name}</td>'
                         rf"<td class=num>{count:,}</td>", page)  # fmt: skip


def test_pack_script_round_trips_the_bytes(tmp_path: Path) -> None:
    raw = bytes(range(256))
    (tmp_path / "replays").mkdir()
    (tmp_path / "replays" / pack_name(7)).write_bytes(pack_script([('odd "id"', raw), ("b", b"")]))
    assert _packed(tmp_path, 7) == {'odd "id"': raw, "b": b""}


def test_interval_chart_places_higher_estimates_further_right() -> None:
    svg = interval_chart("Elo", [("a", -50.0, 10.0, 70.0), ("b", -120.0, -40.0, 40.0)],
                         reference=0.0)  # fmt: skip
    centres = [float(x) for x in re.findall(r'<circle class="est" cx="([0-9.]+)"', svg)]
    assert len(centres) == 2 and centres[0] > centres[1]
    assert '<line class="ref"' in svg and ">+10 " in svg
    assert "no rated entrants" in interval_chart("Elo", [])


# --- what orders the standings ------------------------------------------------------------


def _ranked_by(page: str) -> str:
    found = re.search(r'<p class="note" id="ranked-by">(.*?)</p>', page)
    assert found, "the standings say what orders them"
    return found.group(1)


def test_a_round_robin_report_says_it_ranks_by_elo_and_marks_ties(tmp_path: Path) -> None:
    text = ROUND_ROBIN.format(rules="dice", options="{max_points: 1}", seats=3, replays="false")
    folder = _tournament(tmp_path, text)
    build_report(folder)
    page = _page(folder)
    assert _ranked_by(page).startswith("Ranked by Elo, a Bradley–Terry fit")
    rows = list(csv.DictReader((folder / "standings.csv").read_text().splitlines()))
    elos = [float(row["elo"]) for row in rows]
    assert elos == sorted(elos, reverse=True)
    assert page.count(_TIE_ABBR) == sum(row["tied"] == "1" for row in rows) > 0


def test_an_elimination_report_ranks_by_the_bracket_and_scores_each_match(tmp_path: Path) -> None:
    folder = _tournament(tmp_path, ELIMINATION.replace("games: 1", "games: 3"))
    build_report(folder)
    page = _page(folder)
    stages = json.loads((folder / "stages.json").read_text())
    assert _ranked_by(page).startswith("Ranked by the bracket")
    first = re.search(r'<tr data-entrant="([^"]+)">', page)
    assert first and first.group(1) == stages["ranking"][0]
    final = stages["stages"][-1]["tables"][0]
    assert sum(final["points"]) == 3
    champion, runner_up = final["ranking"]
    assert (
        f'<li class="through">{champion} <b class="score">{final["points"][0]}</b></li>'
        f'<li class="out">{runner_up} <b class="score">{final["points"][1]}</b></li>'
    ) in page


def test_tens_are_written_t_in_the_report_as_in_claims_and_the_terminal(tmp_path: Path) -> None:
    """Every claim of these replays is `three T`, so each entrant's mean claim is that."""
    text = ROUND_ROBIN.format(rules="dice", options="{max_points: 1}", seats=2, replays="true")
    folder = _tournament(tmp_path, text)
    claim = b'{"type":"event","event":{"kind":"claim","seat":0,"claim":"three T","blind":false}}\n'
    for path in (folder / "replays").glob("*.json.gz"):
        header = gzip.decompress(path.read_bytes()).split(b"\n", 1)[0]
        path.write_bytes(gzip.compress(header + b"\n" + claim))
    build_report(folder, viewer=False)
    page = _page(folder)
    assert page.count("<td class=mean>three T<small>") == 3
    assert "three 10" not in page


GAUNTLET = """\
name: league
rules: dice
options: {max_points: 1}
entrants: [random, {bot: random, alias: ana}, honest, {bot: random, alias: bruno}]
format: {type: gauntlet, seats: 2, games: 2, champions: [random, honest]}
seed: 3
workers: 1
"""


def test_a_gauntlet_ranks_its_challengers_and_shows_its_champions_apart(tmp_path: Path) -> None:
    folder = _tournament(tmp_path, GAUNTLET)
    build_report(folder)
    page = _page(folder)
    section = page[page.index('<section id="standings">'):page.index("</section>")]
    ranked, apart = section.split('<h3 id="champions">')
    assert re.findall(r'<tr data-entrant="([^"]+)">', ranked) == [
        row["entrant"] for row in csv.DictReader((folder / "standings.csv").open())
        if row["rank"]]
    assert sorted(re.findall(r'<tr data-entrant="([^"]+)">', ranked)) == ["ana", "bruno"]
    assert re.findall(r'<tr data-entrant="([^"]+)">', apart) == ["random", "honest"]
    assert apart.startswith("Champions</h3>") and "never played each other" in apart
    assert "medal" not in apart


def _with_faults(folder: Path, tmp_path: Path, faulty: dict[str, int]) -> str:
    """The report of a copy of the folder whose standings give these entrants crashes."""
    copy = _copy(folder, tmp_path)
    rows = list(csv.DictReader((copy / "standings.csv").read_text().splitlines()))
    for row in rows:
        row["crash"] = str(faulty.get(row["entrant"], 0))
    with (copy / "standings.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    build_report(copy)
    page = _page(copy)
    return page[page.index('<section id="faults">'):]


def test_the_faults_table_lists_only_the_entrants_with_faults(
    dice_folder: Path, tmp_path: Path
) -> None:
    shown = _with_faults(dice_folder, tmp_path / "one", {"ana": 2})
    table = shown[:shown.index("</table>")]
    assert re.findall(r'<tr data-entrant="([^"]+)">', table) == ["ana"]
    none = _with_faults(dice_folder, tmp_path / "none", {})
    assert "<table" not in none[:none.index("</section>")]
    assert re.search(r'<p class="ok">No faults[.:]', none)
