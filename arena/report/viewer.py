"""The replay viewer and the data it reads, beside report.html in a results folder:

    viewer.html      the viewer page, the same file for every tournament; it reads the game
                     from its address (`viewer.html#game=<id>&pack=<n>`)
    viewer-rules.js  the rule set's description (arena.rules.base.Description), so the
                     viewer tells a plugin's rule set as the rules say
    replays/pack-<n>.js
                     PACK games a file in games.jsonl order: each replay file's own gzip
                     bytes in base64, set on the global `ARENA_REPLAY`, so the viewer loads
                     it with a <script> tag from file:// (no fetch, no CORS) and unpacks it
                     with DecompressionStream. Packs, not one file a game: creating 20,000
                     small files costs more than the rest of the report on a busy disk
    replays/chances/pack-<n>.js
                     the same games' ids in order, on `ARENA_PACK_IDS` (the next and previous
                     game), and each one's chances (arena.report.chances) on `ARENA_CHANCES`:
                     beside the pack, not in it, so the pack stays each replay's own bytes

Other modules read PACK from this module when they use it (`viewer.PACK`), so one setting
holds for the packs written, the fault and bracket links and the list of games.

This module must not read a results folder or replays, and writes nothing itself: it makes
the pages and scripts that arena.report.html and arena.report.scan write.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence

from arena.report.markup import compact, script_safe, static
from arena.rules.base import Description

__all__ = [
    "PACK",
    "chances_name",
    "chances_script",
    "pack_name",
    "pack_script",
    "rules_script",
    "viewer_page",
]

REPLAY_GLOBAL = "ARENA_REPLAY"
CHANCES_GLOBAL = "ARENA_CHANCES"
"""The global on which a chances script sets each game's chances (by game id)."""
IDS_GLOBAL = "ARENA_PACK_IDS"
"""The global on which a chances script sets its pack's game ids, in games.jsonl order."""
RULES_GLOBAL = "ARENA_RULES"
"""The global on which RULES_SCRIPT, beside viewer.html, sets the rule set's description."""
PACK = 100
"""Games per file of viewer data: a few hundred KB to load, and few files to write."""


def pack_name(pack: int) -> str:
    """The file name of a pack of viewer data, under replays/."""
    return f"pack-{pack:05d}.js"


def pack_script(games: Sequence[tuple[str, bytes]]) -> bytes:
    """The viewer's data for some games: each replay's gzip bytes in base64 on a global."""
    lines = [f"window.{REPLAY_GLOBAL}=window.{REPLAY_GLOBAL}||{{}};\n".encode()]
    for game_id, raw in games:
        key = json.dumps(game_id).encode()
        lines.append(b"window.%s[%s]=\"%s\";\n" % (REPLAY_GLOBAL.encode(), key,
                                                    base64.b64encode(raw)))  # fmt: skip
    return b"".join(lines)


CHANCES_FOLDER = "chances"
"""The folder, under replays/, of the packs' chances."""


def chances_name(pack: int) -> str:
    """The path of a pack's chances and game ids, under replays/."""
    return f"{CHANCES_FOLDER}/{pack_name(pack)}"


def chances_script(games: Sequence[tuple[str, bytes]]) -> bytes:
    """A pack's game ids in order, and each game's chances (compact JSON, no `</`)."""
    ids = json.dumps([game_id for game_id, _ in games], separators=(",", ":")).encode()
    lines = [f"window.{CHANCES_GLOBAL}=window.{CHANCES_GLOBAL}||{{}};\n".encode(),
             b"window.%s=%s;\n" % (IDS_GLOBAL.encode(), ids)]  # fmt: skip
    for game_id, chances in games:
        key = json.dumps(game_id).encode()
        lines.append(b"window.%s[%s]=%s;\n" % (CHANCES_GLOBAL.encode(), key, chances))
    return b"".join(lines)


def rules_script(description: Description) -> str:
    """The viewer's description of the rule set, so it reads the game as the rules say (dice
    or cards, challenged or rejected, points or chips) instead of comparing ids."""
    key, value = compact(description.id), script_safe(compact(description.to_json()))
    return (f"window.{RULES_GLOBAL}=window.{RULES_GLOBAL}||{{}};\n"
            f"window.{RULES_GLOBAL}[{key}]={value};\n")


def viewer_page() -> str:
    """The replay viewer: one self-contained page, the same for every tournament."""
    page = static("viewer.html")
    style = static("common.css") + static("viewer.css")
    return page.replace("/*STYLE*/", style).replace("/*SCRIPT*/", static("viewer.js"))
