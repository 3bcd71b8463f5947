"""One game's replay for the site's viewer: arena's own viewer page (arena.report.viewer), fed
a pack of that one game and its chances, read from the season's results folder and served as
`arena publish` publishes it (the bots' stderr and tracebacks are their owners' alone).

The replay's path is the one games.jsonl lists on the game's line (never anything from the
request), opened through arena.tournament.run.safe_read: under the folder's replays/, no
symbolic link on its way, bounded on disk and unpacked. The viewer's inline script and
style are allowed by their hashes (csp.policy), and only this site may frame it.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from arena.report.chances import viewer_json
from arena.report.publish import public_replay
from arena.report.viewer import chances_script, pack_script, rules_script, viewer_page
from arena.rules import get_rules
from arena.site.contest import bot_data
from arena.site.contest.contest import Contest
from arena.site.contest.csp import policy
from arena.site.contest.models import Game
from arena.tournament.run import safe_read

__all__ = ["GAMES_FILE", "NO_NEXT_PACK", "Replay", "ViewerPage", "read_replay", "viewer"]

GAMES_FILE = "games.jsonl"
BACK = '<a class="back" id="back" href="report.html">← Report</a>'
"""The viewer's link back to the report, which the site has as its games list."""


@dataclass(frozen=True, slots=True)
class ViewerPage:
    """The viewer's HTML and the CSP that allows exactly its inline script and style."""

    html: str
    csp: str


@dataclass(frozen=True, slots=True)
class Replay:
    """A game's replay as the viewer loads it: its gzip bytes and its text."""

    packed: bytes
    text: bytes

    @classmethod
    def of(cls, raw: bytes) -> Replay:
        """A replay from its bytes as stored, gzip or not."""
        text = safe_read.unpack(raw)
        return cls(raw if raw[:2] == b"\x1f\x8b" else gzip.compress(raw, mtime=0), text)

    def pack(self, game_id: str) -> bytes:
        """replays/pack-00000.js: this one game on the viewer's global."""
        return pack_script([(game_id, self.packed)])

    def chances(self, game_id: str) -> bytes:
        """replays/chances/pack-00000.js: its id, and its chances that each claim holds."""
        return chances_script([(game_id, viewer_json(self.text))])


NO_NEXT_PACK = chances_script([])
"""replays/chances/pack-00001.js beside a one-game viewer: the pack after the game's own, where
arena's viewer looks for the next game of the list; a site's viewer holds one game, so it
is empty (answered, not a 404 the browser's console reports on every game)."""


def _inline(page: str, tag: str) -> tuple[str, ...]:
    return tuple(re.findall(rf"<{tag}>(.*?)</{tag}>", page, re.DOTALL))


@cache
def viewer(back_url: str, back: str = "Games") -> ViewerPage:
    """arena's viewer page, its link back pointing at the site's page `back` names."""
    page = viewer_page()
    if BACK not in page:
        raise RuntimeError("the viewer's link back to the report has changed: update BACK")
    page = page.replace(BACK, f'<a class="back" id="back" href="{back_url}" '
                              f'target="_top">← {back}</a>')
    return ViewerPage(page, policy(scripts=_inline(page, "script"),
                                   styles=_inline(page, "style"), framed_by_self=True))


def rules_for(contest: Contest) -> str:
    """viewer-rules.js: the contest's rule set as the viewer reads it."""
    return rules_script(get_rules(contest.config.rules).description)


def _listed(folder: Path, game_id: str, number: int | None) -> str:
    """The replay the folder's games.jsonl lists on the game's own line (the line `number`
    when known, else the line with its id; Unreadable if none)."""
    with safe_read.open_regular(folder / GAMES_FILE, follow=False) as handle:
        for at, line in enumerate(safe_read.lines(handle)):
            if number is not None and at != number:
                continue
            found = safe_read.json_object(line)
            if found.get("id") != game_id:
                if number is None:
                    continue
                raise safe_read.Unreadable(f"line {at + 1} of {GAMES_FILE} is not "
                                           f"game {game_id} (index it again)")
            listed = found.get("replay")
            if not isinstance(listed, str):
                raise safe_read.Unreadable("no replay was recorded for this game")
            return listed
    where = f"no line {number + 1}" if number is not None else f"no game {game_id}"
    raise safe_read.Unreadable(f"{GAMES_FILE} has {where}")


def read_replay(contest: Contest, game: Game) -> Replay:
    """The game's replay from the results folder that holds it (the season's, or a class
    version's gauntlet's) as `arena publish` publishes it (no bot's stderr or traceback, no
    organiser's path: those are its owner's, on the bot's page), checked whole (Unreadable
    says why not)."""
    folder, own = bot_data.home(contest, game)
    number = game.number if folder == contest.results else None
    text = safe_read.unpack(safe_read.replay_bytes(_listed(folder, own, number), folder))
    try:
        lines = text.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise safe_read.Unreadable(f"the replay is not UTF-8: {exc}") from None
    public = public_replay(safe_read.json_value(line) for line in lines if line.strip())
    return Replay.of(public.encode("utf-8"))
