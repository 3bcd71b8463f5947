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

from arena.report.chances import viewer_json
from arena.report.publish import public_replay
from arena.report.viewer import chances_script, pack_script, rules_script, viewer_page
from arena.rules import get_rules
from arena.site.contest.contest import Contest
from arena.site.contest.csp import policy
from arena.site.contest.models import Game
from arena.tournament.run import safe_read

__all__ = ["GAMES_FILE", "Replay", "ViewerPage", "read_replay", "viewer"]

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


def _listed(contest: Contest, game: Game) -> str:
    """The replay games.jsonl lists on the game's own line (Unreadable if none)."""
    with safe_read.open_regular(contest.results / GAMES_FILE, follow=False) as handle:
        for number, line in enumerate(safe_read.lines(handle)):
            if number == game.number:
                found = safe_read.json_object(line)
                if found.get("id") != game.game_id:
                    raise safe_read.Unreadable(f"line {number + 1} of {GAMES_FILE} is not "
                                               f"game {game.game_id} (index it again)")
                listed = found.get("replay")
                if not isinstance(listed, str):
                    raise safe_read.Unreadable("no replay was recorded for this game")
                return listed
    raise safe_read.Unreadable(f"{GAMES_FILE} has no line {game.number + 1}")


def read_replay(contest: Contest, game: Game) -> Replay:
    """The game's replay from the results folder as `arena publish` publishes it (no bot's
    stderr or traceback, no organiser's path: those are its owner's, on the bot's page),
    checked whole (Unreadable says why not)."""
    text = safe_read.unpack(safe_read.replay_bytes(_listed(contest, game), contest.results))
    try:
        lines = text.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise safe_read.Unreadable(f"the replay is not UTF-8: {exc}") from None
    public = public_replay(safe_read.json_value(line) for line in lines if line.strip())
    return Replay.of(public.encode("utf-8"))
