"""The report and the replay viewer in a real headless Chromium, opened from file:// with no
network: the standings match standings.csv, and stepping through a replay shows what the
replay file says (everyone's view), or only what one seat knew (its view). Screenshots go
to artifacts/ at the repository top. What the browser needs: tests/report/browser.py.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

from browser import ARTIFACTS, shot

from arena.replay import read_replay
from arena.report.html import build_report
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

# --- what the replay file says, step by step ----------------------------------------------


def _steps(lines: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The viewer's steps: one per decision, and one more at each new round or central hand."""
    steps: list[list[dict[str, Any]]] = [[]]
    decided = [False]
    for entry in lines[1:-1]:
        if entry["type"] in ("action", "fault"):
            steps.append([])
            decided.append(True)
        elif entry["type"] == "event":
            event = entry["event"]
            if event["kind"] in ("round", "central") and decided[-1]:
                steps.append([])
                decided.append(False)
            steps[-1].append(event)
    return steps


def _expected(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """After each step: the claim to beat, the scores, and the true dice or central hand."""
    header = lines[0]
    seats = len(header["entrants"])
    cards = header["rules"]["id"] == "cards"
    scores = [header["options"].get("chips", 10) if cards else 0] * seats
    claim: str | None = None
    hand: list[str] | None = None
    out = []
    for events in _steps(lines):
        for e in events:
            kind = e["kind"]
            if kind in ("round", "central"):
                claim = None
            elif kind in ("claim", "pass"):
                claim = e["claim"]
            elif kind == "point":
                scores[e["seat"]] = e["points"]
            elif kind == "accept":
                scores[e["passer"]] += e["reward"]
            elif kind == "pay":
                scores[e["seat"]] -= e["amount"]
                if e["payee"] >= 0:
                    scores[e["payee"]] += e["amount"]
            elif kind == "out" and cards and e["reason"] == "forfeit":
                scores[e["seat"]] = 0
            if kind == "challenge" or (not cards and kind in ("roll", "see", "draw", "deal")):
                hand = e["hand"]
            elif cards and kind in ("see", "hand"):
                hand = e["central"]
        out.append({"claim": claim or "", "scores": list(scores), "hand": hand})
    return out


SHOWN = """() => ({
  step: Number(document.getElementById('app').dataset.step),
  steps: Number(document.getElementById('app').dataset.steps),
  view: document.getElementById('app').dataset.view,
  claim: document.getElementById('claim').dataset.claim,
  scores: [...document.querySelectorAll('#seats .seat')].map(s => Number(s.dataset.score)),
  hand: [...document.querySelectorAll('#hand [data-token]')].map(t => t.dataset.token),
  seats: [...document.querySelectorAll('#seats .seat')].map(
    s => [...s.querySelectorAll('[data-token]')].map(t => t.dataset.token)),
  verdict: !document.getElementById('verdict').hidden,
  final: document.getElementById('final').hidden ? null
    : [...document.querySelectorAll('#final li')].map(li => li.textContent),
})"""


# --- the report ---------------------------------------------------------------------------


def test_the_report_shows_the_standings_of_standings_csv(page: Any, dice_folder: Path) -> None:
    page.goto((dice_folder / "report.html").as_uri())
    with open(dice_folder / "standings.csv", newline="") as handle:
        expected = list(csv.DictReader(handle))
    rows = page.eval_on_selector_all(
        "table.standings tbody tr",
        "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))",
    )
    tie = {"1": "~", "0": ""}  # a statistical tie with the row above is marked
    assert [r[:2] + r[4:6] for r in rows] == [
        [tie[row["tied"]] + row["rank"], row["entrant"], row["games"], row["wins"]]
        for row in expected
    ]
    rates = page.eval_on_selector_all(
        "table.standings tbody tr td:nth-child(3) strong", "cells => cells.map(c => c.textContent)"
    )
    assert rates == [f"{100 * float(row['win_rate']):.1f}%" for row in expected]
    assert page.locator("figure.chart svg").count() == 2
    assert page.locator("table.heat td[data-score]").count() == 6
    shot(page, "report.png", full=True)


def test_the_games_list_filters_by_entrant_and_links_the_viewer(
    page: Any, dice_folder: Path
) -> None:
    page.goto((dice_folder / "report.html").as_uri())
    games = (dice_folder / "games.jsonl").read_text().count("\n")
    assert page.locator("#g-rows tr").count() == min(50, games)
    page.select_option("#f-entrant", label="ana")
    seats = page.eval_on_selector_all("#g-rows tr td:nth-child(3)",
                                      "cells => cells.map(c => c.textContent)")  # fmt: skip
    assert seats and all("ana (" in text for text in seats)
    page.click("#g-rows a >> nth=0")
    page.wait_for_selector("#game:not([hidden])")
    first = page.evaluate("() => document.getElementById('title').textContent")
    assert re.search(f"viewer.html#game={first.split()[-1]}&pack=0(&|$)", page.url)
    assert first.startswith("Game rr-")


# --- the viewer ---------------------------------------------------------------------------


def _open(page: Any, folder: Path, game: str, view: str | None = None) -> None:
    address = (folder / "viewer.html").as_uri() + f"#game={game}&pack=0"
    page.goto(address + (f"&view={view}" if view is not None else ""))
    page.wait_for_selector("#game:not([hidden])")


def _walk(page: Any) -> list[dict[str, Any]]:
    """What the viewer shows at every step, stepping with ArrowRight key events in the page
    (one round trip for the whole game; real key presses are checked separately)."""
    return page.evaluate(
        "() => { const shown = []; const read = " + SHOWN + ";"
        "  for (;;) { const now = read(); shown.push(now);"
        "    if (now.step === now.steps - 1) return shown;"
        "    document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'})); } }"
    )


def _press(page: Any, key: str, times: int) -> None:
    """Send `times` keydown events to the page in one round trip."""
    page.evaluate(
        "([key, times]) => { for (let i = 0; i < times; i++)"
        "  document.dispatchEvent(new KeyboardEvent('keydown', {key})); }",
        [key, times],
    )


def test_stepping_through_a_replay_shows_what_the_replay_file_says(
    page: Any, dice_folder: Path
) -> None:
    lines = read_replay(dice_folder / "replays" / "rr-000002.json.gz").lines()
    expected = _expected(lines)
    assert expected[-1]["scores"] == lines[-1]["scores"]  # the oracle agrees with the result
    _open(page, dice_folder, "rr-000002")
    walked = _walk(page)
    assert len(walked) == len(expected)
    for index, (shown, want) in enumerate(zip(walked, expected, strict=True)):
        assert (shown["step"], shown["steps"], shown["view"]) == (index, len(expected), "all")
        assert shown["claim"] == want["claim"], f"step {index}"
        assert shown["scores"] == want["scores"], f"step {index}"
        assert shown["hand"] == (want["hand"] or ["?"] * 5), f"step {index}"
    names = [e["name"] for e in lines[0]["entrants"]]
    winner = lines[-1]["placements"].index(1)
    assert walked[-1]["final"][0] == (
        f"1stseat {winner} ({names[winner]}): {lines[-1]['scores'][winner]} points"
    )
    shot(page, "viewer-dice-end.png")
    page.keyboard.press("Home")
    assert page.evaluate(SHOWN)["step"] == 0
    challenge = next(i for i, shown in enumerate(walked) if shown["verdict"])
    _press(page, "ArrowRight", challenge - 1)
    page.keyboard.press("ArrowRight")  # a real key press
    assert page.evaluate(SHOWN) == walked[challenge]
    shot(page, "viewer-dice-challenge.png")
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(SHOWN)["step"] == challenge - 1
    page.click("#last")
    assert page.evaluate(SHOWN)["step"] == len(expected) - 1


def _seen_by(lines: list[dict[str, Any]], seat: int) -> list[set[str]]:
    """After each step, every card the seat had been shown: its own, the central hand while
    it held it, face-up cards, and hands shown at a rejection."""
    seen: set[str] = set()
    out = []
    for events in _steps(lines):
        for e in events:
            if e.get("to") not in (None, seat):
                continue
            for key in ("hand", "central", "face_up"):
                seen.update(t for t in e.get(key) or () if t)
        out.append(set(seen))
    return out


def test_one_seats_view_shows_only_what_that_seat_knew(page: Any, cards_folder: Path) -> None:
    lines = read_replay(cards_folder / "replays" / "rr-000001.json.gz").lines()
    expected, seen = _expected(lines), _seen_by(lines, 1)
    _open(page, cards_folder, "rr-000001", view="1")
    walked = _walk(page)
    assert len(walked) == len(expected)
    for index, (shown, want) in enumerate(zip(walked, expected, strict=True)):
        assert shown["view"] == "1" and shown["step"] == index
        assert shown["claim"] == want["claim"] and shown["scores"] == want["scores"]
        tokens = {t for t in shown["hand"] + [t for s in shown["seats"] for t in s] if t != "?"}
        assert tokens <= seen[index], f"step {index}: {tokens - seen[index]} were never shown"
    assert all(shown["seats"][0] == ["?"] * 5 for shown in walked)  # seat 0's own cards
    assert all("?" not in shown["seats"][1] for shown in walked)  # the viewer's own cards
    page.click("#first")
    _press(page, "ArrowRight", 8)
    shot(page, "viewer-cards-seat1.png")
    page.keyboard.press("a")  # everyone's view: seat 0's cards appear
    everyone = page.evaluate(SHOWN)
    assert everyone["view"] == "all" and "?" not in everyone["seats"][0]
    assert page.get_attribute('#views button[data-view="all"]', "aria-pressed") == "true"
    shot(page, "viewer-cards-everyone.png")
    page.keyboard.press("1")
    assert page.evaluate(SHOWN)["view"] == "1"


def test_the_viewer_explains_a_missing_replay(page: Any, dice_folder: Path) -> None:
    page.goto((dice_folder / "viewer.html").as_uri() + "#game=nope&pack=0")
    page.wait_for_selector("#message.error")
    assert page.inner_text("#message") == (
        "Game nope is not in replays/pack-00000.js. Build the report again with "
        "`arena report RESULTS_DIR`."
    )
    page.goto((dice_folder / "viewer.html").as_uri() + "#game=nope&pack=9")
    page.reload()
    page.wait_for_selector("#message.error")
    assert "The replay of game nope is not here (replays/pack-00009.js)" in page.inner_text(
        "#message"
    )


ELIMINATION = Path(__file__).resolve().parents[2] / "configs" / "dice-elimination.yaml"


def test_each_bracket_score_sits_beside_its_own_name_and_the_bracket_fits(
    page: Any, tmp_path: Path
) -> None:
    # The score badges floated right and fell under long names, onto the next row (a final
    # read "2. statistician 25"); the final ranking was cut off to the right.
    text = re.sub(r"(?m)^seed: .*$", "seed: 15", ELIMINATION.read_text())  # the report's seed
    (tmp_path / "cup.yaml").write_text(text)
    run_tournament(load_tournament(tmp_path / "cup.yaml"), tmp_path / "cup", workers=1)
    page.set_viewport_size({"width": 1280, "height": 900})
    build_report(tmp_path / "cup")
    page.goto((tmp_path / "cup" / "report.html").as_uri())
    rows = page.eval_on_selector_all(".match li", """items => items.map(li => {
        const name = li.getBoundingClientRect(), score = li.querySelector('.score');
        const box = score && score.getBoundingClientRect();
        return {score: !!score, same_row: !!box && box.top < name.bottom && box.bottom > name.top};
    })""")
    assert rows and all(row["score"] and row["same_row"] for row in rows)
    bracket = page.eval_on_selector(".bracket", "b => [b.scrollWidth, b.clientWidth]")
    assert bracket[0] <= bracket[1], "the bracket is wider than its section"
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".bracket").first.screenshot(path=str(ARTIFACTS / "bracket.png"))
