"""The games list of the report: its filters and table (filled in the page by report.js),
and every game as compact JSON, written a game at a time from games.jsonl.

The list's address is report.html#games&<filters> (docs/report.md); the filters' choices
come from the JSON, so the page is the same size whatever they are.

This module must not hold the games: the rows come one at a time from the report's pass
(arena.report.increment), or from games.jsonl read again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from arena.ratings.games import FAULT_KINDS
from arena.report import viewer
from arena.report.folder import Folder, game_rows
from arena.report.markup import compact, escape

__all__ = [
    "games_json",
    "games_section",
]

_FILTERS = (
    '<div class="filters" id="g-filters">'
    '<label>Entrant <select id="f-entrant" autocomplete="off">'
    '<option value="">everyone</option></select></label>'
    '<label>Opponent <select id="f-opponent" autocomplete="off">'
    '<option value="">anyone</option></select></label>'
    '<label>Result <select id="f-result" autocomplete="off"><option value="">any</option>'
    '<option value="won">won (placed 1)</option><option value="lost">lost</option></select>'
    "</label>"
    '<label>Faults <select id="f-fault" autocomplete="off"><option value="">any or none</option>'
    '<option value="any">any fault</option><option value="none">no fault</option>{kinds}'
    "</select></label>"
    '<label>Stage <select id="f-stage" autocomplete="off">'
    '<option value="">all</option></select></label>'
    '<label>Game <input id="f-id" type="search" autocomplete="off" placeholder="id" '
    'size="12"></label><button id="f-clear" type="button">Clear</button></div>'
    '<p id="g-count" class="count" aria-live="polite"></p>'
)
_HEADS = (
    ("game", "Game", ""), ("stage", "Stage", ""), ("place", "Result", ""),
    ("decisions", "Decisions", "num"), ("faults", "Faults", "num"),
)  # fmt: skip


def games_section(data: Folder) -> str:
    """The filters, the table the list is drawn in and its pager."""
    kinds = "".join(f'<option value="{escape(k)}">{escape(k)}</option>' for k in FAULT_KINDS)
    heads = "".join(
        f'<th class="{cls}" data-sort="{key}" aria-sort="none"><button type="button">'
        f"{escape(title)}</button></th>"
        for key, title, cls in _HEADS
    )
    return (
        _FILTERS.format(kinds=kinds)
        + f'<div class="scroll"><table class="games data" data-kinds="{" ".join(FAULT_KINDS)}">'
        f'<thead><tr>{heads}</tr></thead><tbody id="g-rows"></tbody></table></div>'
        '<div class="pager"><button id="g-prev" type="button">◀ Previous</button>'
        '<span id="g-page"></span><button id="g-next" type="button">Next ▶</button></div>'
        "<noscript><p>The games list needs JavaScript; every game is in games.jsonl.</p>"
        "</noscript>"
    )


def games_json(data: Folder, missing: frozenset[str] | None,
               rows: Iterable[str] | None = None) -> Iterator[str]:
    """The list of games as compact JSON, a game at a time in log order: `rows` if given
    (arena.report.increment keeps them), else read again from games.jsonl. Each row ends
    with the game's viewer pack, or -1, then, only if the game had faults, their
    [seat, kind] in order (kind: an index into FAULT_KINDS)."""
    log = data.log
    head = {"names": list(log.names), "stages": list(log.stages),
            "score": data.description.unit}  # fmt: skip
    yield compact(head)[:-1] + ',"games":['
    for number, row in enumerate(_rows(data, missing) if rows is None else rows):
        yield ("," if number else "") + row
    yield "]}"


def _rows(data: Folder, missing: frozenset[str] | None) -> Iterator[str]:
    log = data.log
    known = {name: i for i, name in enumerate(log.names)}
    stage_index = {stage: i for i, stage in enumerate(log.stages)}
    kind_index = {kind: i for i, kind in enumerate(FAULT_KINDS)}
    replays = 0
    for game in game_rows(data.path, log.games):
        pack = -1
        if game.replay:
            if missing is not None and game.id not in missing:
                pack = replays // viewer.PACK
            replays += 1
        row = [
            game.id, stage_index[game.stage], game.table,
            [known[n] for n in game.entrants], list(game.placements), list(game.scores),
            len(game.faults), game.decisions, pack,
        ]  # fmt: skip
        if game.faults:
            row.append([[seat, kind_index.get(kind, -1)] for seat, kind, *_ in game.faults])
        yield compact(row)
