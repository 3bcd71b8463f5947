"""A ladder's report without a browser: what the page is given from ladder.json (ranking
order, provisional marks, unresolved pairs, versions, the final, the chart's lines), that a
rejected version's reason stays text, and that the page needs only ladder.json and
games.jsonl. The folder is tests/report/ladder_season.py's scripted season."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ladder_season import REASON, history_of, ladder_folder

from arena.report.folder import ReportError, read_folder
from arena.report.html import REPORT, build_report
from arena.report.ladder.chart import lines_of
from arena.report.ladder.data import Version, label
from arena.report.ladder.sections import versions_table
from arena.report.live import Live


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = ladder_folder(tmp_path_factory.mktemp("ladder"))
    build_report(folder)
    return folder


def _ladder(folder: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((folder / "ladder.json").read_text())
    return loaded


def _page(folder: Path) -> str:
    return (folder / REPORT).read_text(encoding="utf-8")


def _section(page: str, key: str) -> str:
    found = re.search(rf'<section id="{key}">(.*?)</section>', page, re.DOTALL)
    assert found, f"no section {key}"
    return found.group(1)


def _text(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def test_the_ranking_is_ladder_json_s_order_with_the_provisional_below(season: Path) -> None:
    ranking = _ladder(season)["ranking"]
    view = read_folder(season).ladder
    assert view is not None
    assert [r.player for r in view.ranking] == [r["player"] for r in ranking]
    rows = re.findall(r'<tr data-entrant="([^"]+)"( class="provisional")?>',
                      _section(_page(season), "ranking"))  # fmt: skip
    assert [(name, bool(mark)) for name, mark in rows] == [
        (r["player"], r["provisional"]) for r in ranking
    ]
    provisional = [r for r in ranking if r["provisional"]]
    assert provisional and ranking[-len(provisional):] == provisional  # the season has both
    min_games = _ladder(season)["min_games"]
    assert all(r["rank"] is None and r["games"] < min_games for r in provisional)


def test_a_provisional_row_shows_its_games_of_those_needed(season: Path) -> None:
    ladder = _ladder(season)
    body = _section(_page(season), "ranking")
    for row in ladder["ranking"]:
        row_at = rf'<tr data-entrant="{re.escape(row["player"])}".*?</tr>'
        found = re.search(row_at, body, re.DOTALL)
        assert found
        text = _text(found.group(0))
        games = f"{row['games']} / {ladder['min_games']}" if row["provisional"] else ""
        assert ("provisional" in text) == row["provisional"] and games in text
        assert text.startswith("–" if row["provisional"] else f"{'~ ' * row['tied']}{row['rank']}")
        assert text.endswith(f"{row['elo']:+.0f} {row['low']:+.0f} to {row['high']:+.0f}")


def test_the_ranking_says_what_was_played_and_which_pairs_are_unresolved(season: Path) -> None:
    ladder = _ladder(season)
    body = _section(_page(season), "ranking")
    head = re.search(r'<p class="ld-head" id="ld-line">(.*?)</p>', body)
    assert head and _text(head.group(1)) == (
        f"{ladder['rules']}, {ladder['seats']} seats a table · {ladder['games']:,} games in "
        f"{ladder['batches']} batches · ranked from {ladder['min_games']} games · the top "
        f"{ladder['top']} not yet separated at 95%"
    )
    listed = [_text(item) for item in re.findall(r"<li data-above.*?</li>", body)]
    assert ladder["unresolved"] and listed == [
        f"{label(u['above'])} vs {label(u['below'])} not yet separated (z {u['z']:.2f})"
        for u in ladder["unresolved"]
    ]


def test_the_page_s_top_line_counts_entrants_and_their_versions(season: Path) -> None:
    versions = _ladder(season)["versions"]
    entrants = len({v["entrant"] for v in versions})
    line = re.search(r'<p class="meta">(.*?)</p>', _page(season))
    ladder = _ladder(season)
    games = len((season / "games.jsonl").read_text().splitlines())
    assert line and html.unescape(line.group(1)) == (
        f"{ladder['rules']} · ladder, {ladder['seats']} seats a table · {entrants} entrants, "
        f"{len(versions)} versions · {games:,} games"
    )
    assert '<a href="ladder.json">ladder.json</a>' in _page(season)  # among the folder's files


def test_separated_tops_say_so(season: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(season, tmp_path / "copy")
    ladder = _ladder(copy)
    ladder["unresolved"], ladder["top"] = [], 2
    (copy / "ladder.json").write_text(json.dumps(ladder))
    view = read_folder(copy).ladder
    assert view is not None and view.separated
    ladder["top"] = 4  # only three are ranked: a provisional player is in the top 4
    (copy / "ladder.json").write_text(json.dumps(ladder))
    view = read_folder(copy).ladder
    assert view is not None and not view.separated


def test_a_ladder_before_its_first_rating_says_so(season: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(season, tmp_path / "empty")
    ladder = _ladder(copy)
    ladder.update(ranking=[], unresolved=[], final=None)
    (copy / "ladder.json").write_text(json.dumps(ladder))
    (copy / "ladder-history.jsonl").unlink()
    build_report(copy)
    page = _page(copy)
    assert "not yet separated at 95%" in _section(page, "ranking")
    assert "No active players yet." in page and "No rated players yet." in page


def test_players_link_to_their_entrant_pages_and_games_with_the_at_encoded(season: Path) -> None:
    body = _section(_page(season), "ranking")
    for row in _ladder(season)["ranking"]:
        name = row["player"].replace("@", "%40")
        assert f'href="#entrant={name}"' in body and f'href="#games&amp;entrant={name}"' in body


def test_every_version_is_listed_with_its_status(season: Path) -> None:
    versions = _ladder(season)["versions"]
    body = _section(_page(season), "versions")
    rows = re.findall(r'<tr data-player="([^"]+)" class="v-(\w+)">', body)
    assert rows == [(v["player"], v["status"]) for v in versions]
    assert {v["status"] for v in versions} == {"active", "retired", "rejected"}
    rejected = re.search(r'class="v-rejected">.*?</tr>', body, re.DOTALL)
    assert rejected and f"✗ rejected {REASON}" in _text(rejected.group(0))
    assert 'href="#entrant=frank' not in body  # it never played: it has no page


def test_a_reason_full_of_markup_is_never_markup(season: Path) -> None:
    page = _page(season)
    assert REASON not in page and "<img" not in page and "<script>window" not in page
    assert html.escape(REASON, quote=True) in _section(page, "versions")


def test_the_final_comes_first_with_the_contest_s_result(season: Path) -> None:
    final = _ladder(season)["final"]
    page = _page(season)
    keys = re.findall(r'<section id="([\w-]+)">', page)
    assert keys[:5] == ["final", "ranking", "ladder-games", "ladder-rating", "versions"]
    body = _section(page, "final")
    assert f"{final['played']} of {final['games']} games played (complete)" in _text(body)
    result = re.search(r'<ol class="ld-result" id="ld-result">(.*?)</ol>', body)
    assert result and re.findall(r"<li>.*?>([^<]+)</a></li>", result.group(1)) == [
        label(p) for p in final["ranking"]
    ]


def test_without_a_final_there_is_no_final_section(tmp_path: Path) -> None:
    folder = ladder_folder(tmp_path, final=False)
    build_report(folder)
    assert '<section id="final">' not in _page(folder)


def test_a_bar_per_active_player_and_a_line_per_rated_player(season: Path) -> None:
    ladder = _ladder(season)
    page = _page(season)
    bars = re.findall(r'<div class="ld-bar-row[^"]*" data-entrant="([^"]+)"', page)
    assert bars == [r["player"] for r in ladder["ranking"]]
    drawn = re.findall(r'<g class="ld-player" data-player="([^"]+)"', page)
    rated = {p for b in history_of(season) for p, r in b["ratings"].items() if r is not None}
    assert set(drawn) == rated | {r["player"] for r in ladder["ranking"]}
    assert len(drawn) == len(set(drawn))
    view = read_folder(season).ladder
    assert view is not None
    for row in ladder["ranking"]:  # each active line ends at its rating now
        last = lines_of(view)[row["player"]][-1]
        assert (last.after, last.elo, last.low, last.high) == (
            ladder["games"], row["elo"], row["low"], row["high"])


def test_only_ladder_json_and_games_jsonl_are_needed(tmp_path: Path) -> None:
    folder = ladder_folder(tmp_path, derived=False)
    build_report(folder)
    keys = re.findall(r'<section id="([\w-]+)"', _page(folder))
    assert "ranking" in keys and "versions" in keys and "games" in keys
    assert not {"standings", "crosstable", "ratings", "faults"} & set(keys)
    names = json.loads(re.search(r'id="games-data">(.*?)</script>', _page(folder), re.DOTALL)
                       .group(1))["names"]  # type: ignore[union-attr]
    assert set(names) == {g for v in _ladder(folder)["versions"] if v["games"]
                          for g in [v["player"]]}  # fmt: skip


def test_with_the_derived_tables_the_other_sections_follow_the_ladder_s(season: Path) -> None:
    keys = re.findall(r'<section id="([\w-]+)"', _page(season))
    assert keys.index("versions") < keys.index("standings") < keys.index("games")


def test_a_live_ladder_page_shows_the_ladder_in_progress(season: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(season, tmp_path / "live")
    build_report(copy, live=Live(40, 80, "2026-12-02 19:00 UTC"))
    page = _page(copy)
    assert "Ladder in progress: 40 of 80 games played (50%)" in page
    assert _section(page, "ranking") == _section(_page(season), "ranking")


def test_a_broken_ladder_json_is_one_clear_line(season: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(season, tmp_path / "broken")
    ladder = _ladder(copy)
    del ladder["ranking"][0]["elo"]
    (copy / "ladder.json").write_text(json.dumps(ladder))
    with pytest.raises(ReportError, match=r"ladder.json has no 'elo'") as caught:
        build_report(copy)
    assert "\n" not in str(caught.value)


def test_a_player_with_no_game_yet_shows_no_rating(season: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(season, tmp_path / "new")
    ladder = _ladder(copy)
    newcomer = ladder["ranking"][-1]
    newcomer.update(games=0, faults=0, elo=None, low=None, high=None)
    (copy / "ladder.json").write_text(json.dumps(ladder))
    build_report(copy)
    row = re.search(rf'<tr data-entrant="{re.escape(newcomer["player"])}".*?</tr>',
                    _section(_page(copy), "ranking"), re.DOTALL)  # fmt: skip
    assert row and _text(row.group(0)).endswith(f"0 / {ladder['min_games']} provisional – –")


@given(reason=st.text(min_size=1))
def test_any_reason_is_shown_as_exactly_its_text(reason: str) -> None:
    rejected = Version("frank", 1, "frank@1", "sha256:00", "entries/frank.py", "rejected",
                       reason, 0)  # fmt: skip
    shown = re.search(r'<q class="ld-reason">(.*?)</q>', versions_table([rejected]), re.DOTALL)
    assert shown and html.unescape(shown.group(1)) == reason
    assert "<" not in shown.group(1) and ">" not in shown.group(1)
