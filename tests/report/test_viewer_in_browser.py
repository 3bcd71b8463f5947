"""The replay viewer explains decisions and works on a phone, in a real headless Chromium:
the chance shown beside each claim and response equals a brute-force count of the hands the
deciding seat could not see; bluffs, rerolls and swaps are marked; the chance chart, the
story lines, the speed, the next and previous game and the fault and back addresses work;
the step controls never move; at 390 px nothing scrolls sideways. Screenshots go to
artifacts/viewer-*.png. What the browser needs: tests/report/browser.py.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from browser import shot

from arena import hands
from arena.replay import read_replay
from arena.report import viewer
from arena.report.html import build_report
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

NAMES = ["random", "{bot: random, alias: ana}", "{bot: random, alias: bruno}",
         "{bot: random, alias: carla}", "{bot: random, alias: dario}"]  # fmt: skip
CONFIG = """\
name: {name}
rules: {rules}
options: {options}
entrants: [{entrants}]
format: {{type: round-robin, seats: {seats}, games: 1}}
seed: {seed}
workers: 1
"""
FEWEST = {"dice": 2, "dice-cards": 2, "cards": 3}
"""The smallest table of each rule set (cards: 3 players)."""
SHORT = {"dice": "{max_points: 2}", "dice-cards": "{max_points: 2}", "cards": "{}"}


def _played(root: Path, rules: str, seats: int, *, entrants: list[str] | None = None,
            options: str | None = None, seed: int = 5) -> Path:  # fmt: skip
    """A small played round robin of random bots (as many as seats, at least 3), reported."""
    name = f"{rules}-{seats}"
    chosen = entrants or NAMES[: max(3, seats)]
    config = root / f"{name}.yaml"
    config.write_text(CONFIG.format(name=name, rules=rules, seats=seats, seed=seed,
                                    options=options or SHORT[rules], entrants=", ".join(chosen)))
    run_tournament(load_tournament(config), root / name, workers=1)
    build_report(root / name)
    return root / name


@pytest.fixture(scope="session")  # before the browser: see conftest
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], Path]:
    root = tmp_path_factory.mktemp("viewer")
    return {(rules, seats): _played(root, rules, seats)
            for rules in ("dice", "dice-cards", "cards") for seats in (2, 3, 5)
            if seats >= FEWEST[rules]}  # fmt: skip


def _games(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]


def _lines(folder: Path, game: dict[str, Any]) -> list[dict[str, Any]]:
    return read_replay(folder / game["replay"]).lines()


def _open(page: Any, folder: Path, game: str, extra: str = "", pack: int = 0) -> None:
    page.goto((folder / "viewer.html").as_uri() + f"#game={game}&pack={pack}{extra}")
    page.wait_for_selector("#game:not([hidden])")


def _steps_of(lines: list[dict[str, Any]], kind: str = "action") -> list[int]:
    """The viewer's step of each decision (action line), or of each fault: one step per action
    or fault line, and one more at a new round or central hand after a decision."""
    steps, decided, out = 0, False, []
    for entry in lines[1:-1]:
        if entry["type"] in ("action", "fault"):
            steps += 1
            decided = True
            if entry["type"] == kind:
                out.append(steps)
        elif entry["type"] == "event" and entry["event"]["kind"] in NEW_STEP and decided:
            steps += 1
            decided = False
    return out


def _decision_steps(lines: list[dict[str, Any]]) -> list[int]:
    return _steps_of(lines)


NEW_STEP = ("round", "central")


SHOWN_CHANCES = """() => Object.fromEntries([...document.querySelectorAll('#log li')]
  .filter(li => li.querySelector('.chance'))
  .map(li => [li.dataset.step, {text: li.querySelector('.chance').textContent,
                                bluff: !!li.querySelector('.bluff')}]))"""


def _shown(page: Any, folder: Path, game: str, view: str = "") -> dict[int, dict[str, Any]]:
    """The chance (and bluff mark) on each step's story line, read at the game's last step."""
    _open(page, folder, game, view + "&step=100000")
    return {int(k): v for k, v in page.evaluate(SHOWN_CHANCES).items()}


# --- the chance a claim holds, counted by brute force ---------------------------------------

FACES = ("9", "T", "J", "Q", "K", "A")
DECK = tuple(rank + suit for rank in "23456789TJQKA" for suit in "cdhs")
LIMIT = 40_000
"""Most hands a test position may count one by one (a fresh 5 cards would be millions)."""


class _Knows:
    """What one seat knows of the hand, followed from the events it was shown: the tokens it
    last saw by position, the sets of positions others rerolled (or swapped) since, each
    with its number of equally likely ways, and the cards it knows are not there."""

    def __init__(self, seat: int, rules: str) -> None:
        self.seat, self.rules = seat, rules
        self.own: tuple[str, ...] = ()
        self.gone: set[str] = set()
        self.fresh()

    def fresh(self) -> None:
        self.hand: list[str] | None = None
        self.unknown: dict[frozenset[int], int] = {frozenset(): 1}
        self.seen: set[str] = set()
        self.tainted = False  # a reshuffle or face-up cards: not counted here

    def take(self, e: dict[str, Any]) -> None:
        kind, to = e["kind"], e.get("to")
        if to not in (None, self.seat):
            return
        if kind in ("round", "central"):
            self.fresh()
        elif kind == "reshuffle":
            self.tainted = True
        elif kind == "challenge":
            self.gone.update(e["hand"])
        if to == self.seat and self.rules == "cards":
            if "hand" in e:
                self.own = tuple(e["hand"])
            if "central" in e:
                self.hand, self.unknown = list(e["central"]), {frozenset(): 1}
        elif to == self.seat and "hand" in e:
            self.hand, self.unknown = list(e["hand"]), {frozenset(): 1}
            self.seen.update(e["hand"])
        changed = e.get("count") if kind == "reroll" else e.get("swapped")
        if kind in ("reroll", "pass") and e["seat"] != self.seat and changed:
            self._rerolled(changed)
        if kind == "pass" and any(e["face_up"]):
            self.tainted = True

    def _rerolled(self, count: int) -> None:
        """Someone else rerolled (swapped) `count` positions, any of them equally likely."""
        after: dict[frozenset[int], int] = {}
        for positions, ways in self.unknown.items():
            for chosen in itertools.combinations(range(5), count):
                key = positions | frozenset(chosen)
                after[key] = after.get(key, 0) + ways
        self.unknown = after

    def pool(self) -> list[str]:
        """The tokens an unseen position may hold (cards: one of each, not repeated)."""
        if self.rules == "dice":
            return list(FACES)
        if self.rules == "dice-cards":
            return [c for c in DECK if c not in self.seen]
        known = set(self.hand or ())
        return [c for c in DECK if c not in known and c not in self.own and c not in self.gone]

    def size(self) -> int:
        """How many hands the count would list."""
        if self.hand is None:
            return self._draws(5)
        return sum(self._draws(len(positions)) for positions in self.unknown)

    def _draws(self, unseen: int) -> int:
        pool = len(self.pool())
        return pool**unseen if self.rules == "dice" else math.comb(pool, unseen)

    def chance(self, claim: hands.Value) -> Fraction:
        """The share of the equally likely hands, as this seat knows them, worth the claim."""
        hand = self.hand or [""] * 5
        unknown = self.unknown if self.hand is not None else {frozenset(range(5)): 1}
        total = Fraction(0)
        for positions, ways in unknown.items():
            total += ways * self._share(hand, sorted(positions), claim)
        return total / sum(unknown.values())

    def _share(self, hand: list[str], positions: list[int], claim: hands.Value) -> Fraction:
        worths = _worths(self.rules, tuple(hand), tuple(positions), tuple(self.pool()),
                         claim.straight_over_full)  # fmt: skip
        hits = sum(ways for worth, ways in worths.items() if worth >= claim)
        return Fraction(hits, sum(worths.values()))


@functools.lru_cache(maxsize=64)
def _worths(rules: str, hand: tuple[str, ...], positions: tuple[int, ...], pool: tuple[str, ...],
            sof: bool) -> Counter[hands.Value]:  # fmt: skip
    """How many of the hands a seat could not tell apart are worth each value, every hand
    valued one by one by the referee's valuation; once for all the claims made while the seat
    knew the same (each claim is then a count), the tokens read once."""
    token = hands.rank_of if rules == "dice" else hands.card_id
    value = hands.dice_value if rules == "dice" else hands.cards_value
    known = [0 if at in positions else token(t) for at, t in enumerate(hand)]
    draws = (itertools.product(map(token, pool), repeat=len(positions)) if rules == "dice"
             else itertools.combinations(map(token, pool), len(positions)))  # fmt: skip
    worths: Counter[hands.Value] = Counter()
    for drawn in draws:
        tokens = list(known)
        for position, drawn_token in zip(positions, drawn, strict=True):
            tokens[position] = drawn_token
        worths[value(tokens, sof)] += 1
    return worths


def _worth(rules: str, tokens: list[str], sof: bool) -> hands.Value:
    """The value of 5 dice or cards by the rules (the referee's valuation, not the bots')."""
    if rules == "dice":
        return hands.dice_value([hands.rank_of(t) for t in tokens], sof)
    return hands.cards_value([hands.card_id(t) for t in tokens], sof)


def _counted(lines: list[dict[str, Any]]) -> Iterator[tuple[int, Fraction]]:
    """(decision, chance) of every claim and response small enough to count hand by hand."""
    rules = lines[0]["rules"]["id"]
    sof = bool(lines[0]["options"].get("straight_over_full"))
    knows = [_Knows(seat, rules) for seat in range(len(lines[0]["entrants"]))]
    decision, claim = -1, None
    for entry in lines[1:-1]:
        if entry["type"] == "action":
            decision += 1
            seat = knows[entry["seat"]]
            responds = entry["action"]["type"] in ("challenge", "look", "accept")
            if responds and claim is not None and _countable(seat):
                yield decision, seat.chance(claim)
        if entry["type"] != "event":
            continue
        e = entry["event"]
        if e["kind"] in ("round", "central"):
            claim = None
        if e["kind"] in ("claim", "pass"):
            claim = hands.parse_claim(e["claim"], sof)
            if _countable(knows[e["seat"]]):
                yield decision, knows[e["seat"]].chance(claim)
        for seat in knows:
            seat.take(e)


def _countable(seat: _Knows) -> bool:
    return not seat.tainted and seat.size() <= LIMIT


@pytest.mark.parametrize(("rules", "seats", "between"), [
    ("dice", 2, 3), ("dice", 5, 3), ("dice-cards", 3, 3), ("dice-cards", 5, 3), ("cards", 3, 3),
    ("cards", 5, 0),  # five private hands unseen: the uncertain cases are too many to list
])  # fmt: skip
def test_the_chance_shown_is_the_share_of_the_hands_the_seat_could_not_tell_apart(
    page: Any, folders: dict[tuple[str, int], Path], rules: str, seats: int, between: int
) -> None:
    folder = folders[(rules, seats)]
    checked, uncertain = 0, 0
    for game in _games(folder):
        if checked >= 12 and uncertain >= between:
            break
        lines = _lines(folder, game)
        steps = _decision_steps(lines)
        shown = _shown(page, folder, game["id"])
        for decision, chance in _counted(lines):
            text = shown[steps[decision]]["text"]
            assert text.startswith("chance ") and text.endswith("%"), text
            thousandths = Fraction(text.removeprefix("chance ").removesuffix("%")) * 10
            assert abs(thousandths / 1000 - chance) <= Fraction(1, 2000), (
                f"{game['id']} decision {decision}: shown {text}, counted {float(chance):.5f}")
            checked += 1
            uncertain += 0 < chance < 1
    assert checked >= 12 and uncertain >= between, (checked, uncertain)


def test_one_seats_view_shows_only_that_seats_chances(
    page: Any, folders: dict[tuple[str, int], Path]
) -> None:
    folder = folders[("dice", 3)]
    game = _games(folder)[0]
    lines = _lines(folder, game)
    steps = _decision_steps(lines)
    actions = [entry for entry in lines if entry["type"] == "action"]
    everyone = _shown(page, folder, game["id"])
    mine = _shown(page, folder, game["id"], "&view=1")
    assert mine and set(mine) < set(everyone)
    assert {steps.index(k) for k in mine} == {
        steps.index(k) for k in everyone if actions[steps.index(k)]["seat"] == 1}


# --- bluffs, rerolls and swaps ----------------------------------------------------------------


def _bluffs(lines: list[dict[str, Any]]) -> dict[int, bool]:
    """Each claim's decision, and whether the true hand was worth less than the claim."""
    rules = lines[0]["rules"]["id"]
    sof = bool(lines[0]["options"].get("straight_over_full"))
    hand: list[str] = []
    decision, out, held = -1, {}, {}
    for entry in lines[1:-1]:
        if entry["type"] == "action":
            decision += 1
        if entry["type"] != "event":
            continue
        e = entry["event"]
        if rules == "cards" and e.get("central") and e["kind"] in ("see", "hand"):
            hand = e["central"]
        elif rules != "cards" and "hand" in e and e["kind"] != "challenge":
            hand = e["hand"]
        if e["kind"] in ("claim", "pass"):
            out[decision] = _worth(rules, hand, sof) < hands.parse_claim(e["claim"], sof)
            last = decision
        if e["kind"] == "challenge":
            held[last] = e["holds"]
    assert held and all(out[d] == (not holds) for d, holds in held.items())  # one notion
    return out


@pytest.mark.parametrize("rules", ["dice", "dice-cards", "cards"])
def test_a_claim_the_claimants_hand_did_not_hold_is_marked_a_bluff(
    page: Any, folders: dict[tuple[str, int], Path], rules: str
) -> None:
    folder = folders[(rules, 3)]
    marks = 0
    for game in _games(folder)[:2]:
        lines = _lines(folder, game)
        steps = _decision_steps(lines)
        shown = _shown(page, folder, game["id"])
        for decision, bluff in _bluffs(lines).items():
            assert shown[steps[decision]]["bluff"] == bluff, f"{game['id']} decision {decision}"
            marks += bluff
    assert marks >= 2


MARKED = """(() => {
  const marked = (row) => row ? [...row.children].flatMap((t, i) => t.dataset.changed ? [i] : [])
    : [];
  return () => ({
  step: Number(document.getElementById('app').dataset.step),
  steps: Number(document.getElementById('app').dataset.steps),
  centre: marked(document.querySelector('#hand')),
  seats: [...document.querySelectorAll('#seats .seat')].map(s =>
    marked(s.querySelector('.tokens'))),
  }); })()"""


def _walk_marks(page: Any) -> list[dict[str, Any]]:
    return page.evaluate(
        "() => { const out = []; const read = " + MARKED + ";"
        "  for (;;) { const now = read(); out.push(now);"
        "    if (now.step === now.steps - 1) return out;"
        "    document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'})); } }"
    )


def _changes(lines: list[dict[str, Any]]) -> dict[int, tuple[int, list[int], list[int]]]:
    """At each step where a seat rerolled, exchanged or swapped: the seat, the positions of the
    cup or central hand that changed, and (cards) those of its own cards."""
    steps, decided, out = 0, False, {}
    for entry in lines[1:-1]:
        if entry["type"] in ("action", "fault"):
            steps += 1
            decided = True
            action = entry.get("action") or {}
            if action.get("type") == "pass" and action["swaps"]:
                swaps = action["swaps"]
                centre, own = sorted(c for _, c in swaps), sorted(o for o, _ in swaps)
                out[steps] = (entry["seat"], centre, own)
        elif entry["type"] == "event":
            e = entry["event"]
            if e["kind"] in ("round", "central") and decided:
                steps += 1
                decided = False
            if e.get("positions"):
                out[steps] = (e["seat"], sorted(e["positions"]), [])
    return out


@pytest.mark.parametrize("rules", ["dice", "dice-cards", "cards"])
def test_rerolled_dice_and_swapped_cards_are_marked_where_they_lie(
    page: Any, folders: dict[tuple[str, int], Path], rules: str
) -> None:
    folder = folders[(rules, 3)]
    game = next(g for g in _games(folder) if _changes(_lines(folder, g)))
    changes = _changes(_lines(folder, game))
    # Everyone's view, the first changer's and one other seat's (the third seat's view is the
    # same code with another index; each walk renders every step, ~1.2 s of CPU).
    changer = changes[min(changes)][0]
    other = (changer + 1) % 3
    for view in ("", f"&view={changer}", f"&view={other}"):
        _open(page, folder, game["id"], view)
        walked = _walk_marks(page)
        for index, shown in enumerate(walked):
            seat, centre, own = changes.get(index, (None, [], []))
            knows = view in ("", f"&view={seat}")
            assert shown["centre"] == (centre if knows else []), f"{view} step {index}"
            for other, marks in enumerate(shown["seats"]):
                assert marks == (own if knows and other == seat else []), f"{view} step {index}"
    page.keyboard.press("a")  # everyone's view again, at the first change, to look at
    page.evaluate("(n) => { const s = document.getElementById('slider');"
                  " s.value = String(n); s.dispatchEvent(new Event('input')); }", min(changes))
    assert page.url.endswith(f"#game={game['id']}&pack=0&step={min(changes)}")
    shot(page, f"viewer-marks-{rules}.png")


# --- the chance chart -------------------------------------------------------------------------


def _turning(lines: list[dict[str, Any]], shown: dict[int, dict[str, Any]]) -> int | None:
    """The step of the round-losing decision that its maker's chance most said would lose."""
    steps = _decision_steps(lines)
    chance = {d: Fraction(shown[s]["text"][7:-1]) / 100 for d, s in enumerate(steps) if s in shown}
    decision, last, best = -1, -1, None
    for entry in lines[1:-1]:
        if entry["type"] == "action":
            decision += 1
        elif entry["type"] == "event" and entry["event"]["kind"] in ("claim", "pass"):
            last = decision
        elif entry["type"] == "event" and entry["event"]["kind"] == "challenge":
            holds = entry["event"]["holds"]
            where = decision if holds else last
            risk = chance[decision] if holds else 1 - chance[last]
            if best is None or risk > best[0]:
                best = (risk, where)
    return None if best is None else steps[best[1]]


def test_the_chance_chart_marks_the_turning_point_and_jumps_to_a_step(
    page: Any, folders: dict[tuple[str, int], Path]
) -> None:
    folder = folders[("dice", 3)]
    game = _games(folder)[0]
    lines = _lines(folder, game)
    shown = _shown(page, folder, game["id"])
    dots = page.eval_on_selector_all("#chart circle", "cs => cs.map(c => Number(c.dataset.step))")
    assert dots == sorted(shown)
    turning = _turning(lines, shown)
    assert turning is not None
    assert page.get_attribute("#chart line.turning", "data-step") == str(turning)
    assert page.locator(f'#log li[data-step="{turning}"] .turning').count() == 1
    target = sorted(shown)[len(shown) // 2]
    page.locator(f'#chart circle[data-step="{target}"]').click(force=True)
    assert page.evaluate("document.getElementById('app').dataset.step") == str(target)
    shot(page, "viewer-chart.png")


# --- navigation -------------------------------------------------------------------------------


def test_a_story_line_jumps_to_its_step(page: Any, folders: dict[tuple[str, int], Path]) -> None:
    folder = folders[("cards", 3)]
    _open(page, folder, _games(folder)[0]["id"], "&step=12")
    page.locator('#log li[data-step="3"]').first.click()
    assert page.evaluate("document.getElementById('app').dataset.step") == "3"
    assert page.url.endswith("&step=3")


STORY_NOW = """() => { const pane = document.querySelector('.story').getBoundingClientRect();
  const now = document.querySelector('#log li.now').getBoundingClientRect();
  return [pane.top <= now.top && now.bottom <= pane.bottom, location.hash]; }"""


def test_the_story_and_the_address_follow_the_step_however_many_steps_a_task_draws(
    page: Any, folders: dict[tuple[str, int], Path]
) -> None:
    """The viewer scrolls its story and writes its address once a task (viewer.js settle()),
    not once a step: after a walk of every step in one script, both are the last step's."""
    folder = folders[("dice", 5)]
    game = _games(folder)[0]["id"]
    _open(page, folder, game)
    last = page.evaluate("() => { const app = document.getElementById('app');"
                         "  while (Number(app.dataset.step) < Number(app.dataset.steps) - 1)"
                         "    document.dispatchEvent(new KeyboardEvent('keydown',"
                         "                                             {key: 'ArrowRight'}));"
                         "  return Number(app.dataset.step); }")
    assert last > 20  # a story longer than its pane: it has to scroll
    assert page.evaluate("document.querySelector('.story').scrollTop") > 0
    assert page.evaluate(STORY_NOW) == [True, f"#game={game}&pack=0&step={last}"]
    page.keyboard.press("Home")
    assert page.evaluate(STORY_NOW) == [True, f"#game={game}&pack=0"]
    assert page.evaluate("document.querySelector('.story').scrollTop") == 0


def test_the_speed_control_plays_faster(browser: Any, folders: dict[tuple[str, int], Path]) -> None:
    folder = folders[("dice", 3)]
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.clock.install()
    _open(page, folder, _games(folder)[0]["id"])
    page.select_option("#speed", "4")
    page.clock.pause_at(page.evaluate("Date.now()") + 1)  # only run_for moves it: no load
    page.click("#play")
    page.clock.run_for(1100)
    assert page.evaluate("document.getElementById('app').dataset.step") == "4"
    assert "&speed=4" in page.url
    page.click("#play")
    page.select_option("#speed", "0.5")
    page.click("#play")
    page.clock.run_for(2200)
    assert page.evaluate("document.getElementById('app').dataset.step") == "5"
    context.close()


def test_next_and_previous_game_follow_the_games_list_across_packs(
    page: Any, folders: dict[tuple[str, int], Path], tmp_path: Path, monkeypatch: Any
) -> None:
    folder = folders[("dice", 2)]
    monkeypatch.setattr(viewer, "PACK", 2)
    copy = tmp_path / "copy"
    import shutil

    shutil.copytree(folder, copy)
    build_report(copy)
    ids = [g["id"] for g in _games(copy)]
    assert len(ids) >= 4
    back = "games&entrant=ana"
    _open(page, copy, ids[0], "&view=1&back=" + "games%26entrant%3Dana")
    assert page.is_disabled("#prev-game")
    assert page.get_attribute("#back", "href") == "report.html#" + back
    for index in range(1, len(ids)):
        page.wait_for_function("!document.getElementById('next-game').disabled")
        page.click("#next-game") if index % 2 else page.keyboard.press("n")
        _wait_title(page, ids[index])
        assert f"&pack={index // 2}" in page.url and "&view=1" in page.url
        assert page.get_attribute("#back", "href") == "report.html#" + back
    page.wait_for_timeout(100)
    assert page.is_disabled("#next-game")
    page.wait_for_function("!document.getElementById('prev-game').disabled")
    page.keyboard.press("p")
    _wait_title(page, ids[-2])
    page.go_back()
    _wait_title(page, ids[-1])


def _wait_title(page: Any, game: str) -> None:
    page.wait_for_function(f"document.getElementById('title').textContent === 'Game {game}'")


STUMBLER = '''\
import arena
from arena.rules.playout import random_action


DECISIONS = [0]  # over the process: a seat whose bot crashed gets a new one


class Stumbler(arena.Bot):
    """Random, but every third decision in this process crashes."""

    name = "stumbler"

    def act(self, observation):
        DECISIONS[0] += 1
        if DECISIONS[0] % 3 == 0:
            raise RuntimeError("stumbled")
        return random_action(observation.legal, self.rng)
'''


def test_fault_k_opens_the_viewer_at_that_faults_step(page: Any, tmp_path: Path) -> None:
    (tmp_path / "stumbler.py").write_text(STUMBLER)
    entrants = ["random", f"{{bot: {tmp_path / 'stumbler.py'}, alias: stumbler}}",
                "{bot: random, alias: ana}"]  # fmt: skip
    folder = _played(tmp_path, "dice", 3, entrants=entrants,
                     options="{on_fault: penalty, max_faults: 3, max_points: 5}")
    game = next(g for g in _games(folder) if len(g["faults"]) >= 2)
    at = _steps_of(_lines(folder, game), "fault")
    assert len(at) == len(game["faults"])
    for k, step in enumerate(at):
        _open(page, folder, game["id"], f"&fault={k}")
        assert page.evaluate("document.getElementById('app').dataset.step") == str(step)
        assert page.locator("#log li.now.fault").count() >= 1, k


# --- the controls stay put; phones ------------------------------------------------------------

BOX = "() => { const r = document.getElementById('controls').getBoundingClientRect();" \
      " return [r.x, r.y, r.width, r.height]; }"


@pytest.mark.parametrize("size", ["page", "phone"])
def test_the_step_controls_do_not_move_through_a_challenge(
    request: pytest.FixtureRequest, folders: dict[tuple[str, int], Path], size: str
) -> None:
    page = request.getfixturevalue(size)
    folder = folders[("dice", 3)]
    game = _games(folder)[0]
    lines = _lines(folder, game)
    challenge = next(i for i, s in enumerate(_decision_steps(lines))
                     if lines[[j for j, e in enumerate(lines) if e["type"] == "action"][i]]
                     ["action"]["type"] == "challenge")  # fmt: skip
    step = _decision_steps(lines)[challenge]
    _open(page, folder, game["id"], f"&step={step - 3}")
    boxes, verdicts = [], []
    for _ in range(6):
        boxes.append(page.evaluate(BOX))
        verdicts.append(page.is_visible("#verdict"))
        page.keyboard.press("ArrowRight")
    assert not verdicts[0] and any(verdicts), verdicts
    assert all(box == boxes[0] for box in boxes), boxes
    height = page.viewport_size["height"]
    assert boxes[0][1] >= 0 and boxes[0][1] + boxes[0][3] <= height  # on the screen


@pytest.mark.parametrize("rules", ["dice", "dice-cards", "cards"])
@pytest.mark.parametrize("table", ["smallest", 5])
def test_on_a_phone_nothing_scrolls_sideways_and_the_controls_stay_in_sight(
    phone: Any, folders: dict[tuple[str, int], Path], rules: str, table: str | int
) -> None:
    seats = FEWEST[rules] if table == "smallest" else int(table)
    folder = folders[(rules, seats)]
    game = _games(folder)[0]
    lines = _lines(folder, game)
    verdicts = [i for i, s in enumerate(_decision_steps(lines))
                if lines[[j for j, e in enumerate(lines) if e["type"] == "action"][i]]
                ["action"]["type"] == "challenge"]  # fmt: skip
    verdict = _decision_steps(lines)[verdicts[0]]
    # Everyone's view and one seat's: each seat's own view is the same layout with another
    # seat's hand shown (the marks test walks every seat's view).
    # The verdict's step last: the screenshot of each view shows it (one page load a view).
    for view, name in [("", ""), ("&view=1", "-seat1")]:
        _open(phone, folder, game["id"], view)
        for step in (0, verdict - 1, len(lines), verdict):
            phone.evaluate("(n) => { const s = document.getElementById('slider');"
                           " s.value = String(n); s.dispatchEvent(new Event('input')); }", step)
            width = phone.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"{view} step {step}: {width} px wide"
            box = phone.evaluate(BOX)
            assert box[1] >= 0 and box[1] + box[3] <= 844 and box[2] <= 390
        columns = phone.evaluate("getComputedStyle(document.getElementById('game'))"
                                 ".gridTemplateColumns.split(' ').length")
        assert columns == 1
        assert phone.evaluate("document.getElementById('app').dataset.step") == str(verdict)
        shot(phone, f"viewer-phone-{rules}-{seats}{name}.png")
