"""The replay viewer's words, read from the page Chromium renders (its DOM once the scripts
ran): tens are written `T`, as claims, the terminal and docs/rules.md write them. The page is
the browser tests' shared Chromium's (tests/report/browser.py; a Chromium of its own a test,
`--dump-dom`, was 1 to 2 s of CPU each)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import Any

import pytest

from arena.report.html import build_report
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

CONFIG = """\
name: tens
rules: {rules}
entrants: [random, {{bot: random, alias: ana}}, {{bot: random, alias: bruno}}]
format: {{type: round-robin, seats: 3, games: 1}}
seed: 4
workers: 1
"""


def _rendered(page: Any, folder: Path, game: str) -> str:
    """The viewer's page after its scripts ran, at the game's last step."""
    page.goto((folder / "viewer.html").as_uri() + f"#game={game}&pack=0&step=100000")
    page.wait_for_selector("#game:not([hidden])")
    html: str = page.content()
    return html


def _game_with_a_ten(folder: Path) -> str:
    for path in sorted((folder / "replays").glob("*.json.gz")):
        if re.search(rb'"T[cdhs]?"', gzip.decompress(path.read_bytes())):
            return path.name.removesuffix(".json.gz")
    raise AssertionError("no game showed a ten")


@pytest.mark.parametrize("rules", ["dice", "cards"])
def test_the_viewer_writes_tens_as_t(page: Any, tmp_path: Path, rules: str) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(CONFIG.format(rules=rules))
    folder = tmp_path / "out"
    run_tournament(load_tournament(config), folder, workers=1)
    build_report(folder)
    html = _rendered(page, folder, _game_with_a_ten(folder))
    log = re.search(r'<ol id="log"[^>]*>(.*?)</ol>', html, re.DOTALL)
    assert log, "the viewer drew its log"
    text = re.sub(r"<[^>]+>", " ", log.group(1))
    assert re.search(r"\bT\b|T[♣♦♥♠]", text), "a ten is shown as T"
    assert not re.search(r"\[[^\]]*\b10\b[^\]]*\]", text), "hands and dice"
    assert not re.search(r"\b(?:high|pair|two-pair|three|straight|flush|full|four|five)"
                         r"(?: [2-9TJQKA])* 10\b", text), "claims"  # fmt: skip
    chips = r'<span class="amount">\d+</span>'  # a score of 10 chips is a number, not a card
    assert ">10<" not in re.sub(chips, "", html)


CRASHER = '''\
import arena


class Crasher(arena.Bot):
    def act(self, obs):
        return {"left": 1}["<b>central</b>"]
'''


def test_the_viewer_shows_where_a_bot_crashed_below_its_fault(page: Any, tmp_path: Path) -> None:
    bot = tmp_path / "crasher.py"
    bot.write_text(CRASHER)
    config = tmp_path / "t.yaml"
    config.write_text(f"name: crash\nrules: dice\nentrants: [{{bot: {bot}, alias: crasher, "
                      f"mode: inline}}, random]\nformat: {{type: round-robin, seats: 2, "
                      f"games: 1}}\nseed: 4\nworkers: 1\n")
    folder = tmp_path / "out"
    run_tournament(load_tournament(config), folder, workers=1)
    build_report(folder)
    html = _rendered(page, folder, "rr-000001")
    fault = re.search(r'<li class="[^"]*\bfault\b[^"]*"[^>]*>[^<]*FAULT crash: KeyError: '
                      r"'&lt;b&gt;central&lt;/b&gt;'</li>\s*"
                      r'<li class="[^"]*\btrace\b[^"]*"[^>]*>([^<]*)</li>', html)
    assert fault, "the fault, then its trace"
    assert fault.group(1).strip() == ('crasher.py:6 in Crasher.act: return {"left": 1}'
                                      '["&lt;b&gt;central&lt;/b&gt;"]')
