"""The report's tables, as HTML: the standings, the bluffing statistics, the faults with examples
of each kind, and the bracket of an elimination (its games linked to the viewer).

This module must not read files or compute anything the results folder does not hold,
beyond the intervals of the rates it shows.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from arena import hands
from arena.ratings.games import FAULT_KINDS
from arena.ratings.standings import wilson_interval
from arena.report.bluffing import BluffStats
from arena.report.folder import FaultExample, Folder
from arena.report.markup import escape
from arena.rules.base import Description

__all__ = [
    "TIE",
    "bluff_table",
    "bracket",
    "entrant_link",
    "faults_table",
    "finder",
    "standings_table",
]


def _num(text: str | None, digits: int = 2, signed: bool = False) -> str:
    if not text:
        return "–"
    value = float(text)
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _pct(text: str | None) -> str:
    return "–" if not text else f"{100 * float(text):.1f}%"


_RANKED_BY_ELO = (
    "Ranked by Elo, a Bradley–Terry fit to who placed above whom over all games at once "
    "(mean 0; the order games were played in does not matter). <abbr>~</abbr>: its 95% "
    "interval overlaps the one ranked above, a statistical tie the games cannot yet break."
)
_RANKED_BY_BRACKET = (
    "Ranked by the bracket: the champion first, then by the round reached (within a round, "
    "by the share of the points taken at the table lost, then place there, then all points "
    "scored, then seed). Elo (Bradley–Terry, mean 0) and OpenSkill are columns."
)
_RANKED_BY_SWISS = (
    "Ranked by Swiss score (a round's score is the mean of its games' points, 0 to 1; a bye "
    "is worth 1), then Buchholz, then Elo, then name; every round is under Rounds. Elo "
    "(Bradley–Terry, mean 0) and OpenSkill are columns."
)
_COLUMNS_NOTE = (
    " Under the win rate and the Elo: their 95% intervals. OpenSkill: ordinal μ − 3σ, updated "
    "game by game, a cautious estimate that needs many games to rise."
)


_STANDINGS_HEAD = (
    "<tr><th class='num rank'>#</th><th class=name>Entrant</th><th class=num>Win rate</th>"
    "<th class=num>Elo</th><th class=num>Games</th><th class=num>Wins</th>"
    "<th class=num>Mean place</th><th class=num>OpenSkill</th><th class=num>Faults</th></tr>"
)
_CHAMPIONS_NOTE = (
    '<h3 id="champions">Champions</h3><p class="note">Not ranked: every challenger played '
    "them, but they never played each other (with grades, the graded bots are among them). Their "
    "columns are from their games against the challengers.</p>"
)


def standings_table(data: Folder) -> str:
    """The standings; a gauntlet's champions, who never met each other, in a table apart."""
    champions = _champions(data)
    ranked = [row for row in data.standings if row["entrant"] not in champions]
    note = f'<p class="note" id="ranked-by">{_ranked_by(data)}{_COLUMNS_NOTE}</p>'
    text = f"{_FINDER}{_standings_rows(ranked)}{note}"
    if apart := [row for row in data.standings if row["entrant"] in champions]:
        text += _CHAMPIONS_NOTE + _standings_rows(apart)
    return text


def _standings_rows(rows: Sequence[Mapping[str, str]]) -> str:
    body = "".join(_standing_row(row) for row in rows)
    return (
        f'<div class="scroll box"><table class="standings data"><thead>{_STANDINGS_HEAD}'
        f"</thead><tbody>{body}</tbody></table></div>"
    )


def _champions(data: Folder) -> frozenset[str]:
    """A gauntlet's champions as its config.yaml names them (none for another format)."""
    fmt = data.config.get("format")
    if not isinstance(fmt, dict) or fmt.get("type") != "gauntlet":
        return frozenset()
    named = fmt.get("champions")
    return frozenset(str(n) for n in named) if isinstance(named, list) else frozenset()




def finder(element_id: str) -> str:
    """A search box for an entrant; every one on the page filters every table of entrants.
    Hidden until static/contest.js shows it: without scripts it could not find anything."""
    return (
        f'<div class="finder" hidden><label>Find an entrant <input id="{element_id}" class="find" '
        'type="search" placeholder="name" autocomplete="off"></label>'
        f'<span class="find-count dim" id="{element_id}-count" aria-live="polite"></span></div>'
    )


def entrant_link(name: str, text: str | None = None) -> str:
    """An entrant's name (or `text`), linked to its own section (games16's
    `#entrant=<name>`)."""
    return (
        f'<a class="who" href="#entrant={escape(quote(name, safe=""))}" title="{escape(name)}">'
        f"{escape(name if text is None else text)}</a>"
    )


_FINDER = finder("find")
"""The search box above the standings (static/contest.js)."""


def _ranked_by(data: Folder) -> str:
    """What orders standings.csv: the bracket, a finished Swiss's scores, or Elo."""
    fmt = data.config.get("format")
    kind = fmt.get("type") if isinstance(fmt, dict) else data.stages.get("format")
    if kind == "swiss" and data.stages.get("ranking"):
        return _RANKED_BY_SWISS
    return _RANKED_BY_BRACKET if kind == "elimination" else _RANKED_BY_ELO


TIE = (
    '<abbr class="tie" title="95% Elo interval overlaps the one above: a statistical tie">'
    "~</abbr>"
)
"""The mark of a statistical tie with the row above (the standings, a ladder's ranking)."""


def _standing_row(row: Mapping[str, str]) -> str:
    faults = sum(int(row.get(kind) or 0) for kind in FAULT_KINDS)
    ci = ""
    if row.get("win_low"):
        ci = f"<small>{_pct(row['win_low'])}–{_pct(row['win_high'])}</small>"
    elo_ci = ""
    if row.get("elo_low"):
        elo_ci = f"{_num(row['elo_low'], 0, True)} to {_num(row['elo_high'], 0, True)}"
    medal = f' class="medal m{row["rank"]}"' if row.get("rank") in ("1", "2", "3") else ""
    tie = TIE if row.get("tied") == "1" else ""
    elo = _num(row.get("elo"), 0, True)
    cells = [
        f"<td class=num>{tie}<span{medal}>{escape(row.get('rank') or '–')}</span></td>",
        f"<td class=name>{entrant_link(row['entrant'])}</td>",
        f"<td class='num rate'><strong>{_pct(row.get('win_rate'))}</strong>{ci}</td>",
        f"<td class='num rate'><strong>{elo}</strong><small>{elo_ci}</small></td>",
        f"<td class=num>{escape(row['games'])}</td>",
        f"<td class=num>{escape(row['wins'])}</td>",
        f"<td class=num>{_num(row.get('mean_placement'))}</td>",
        f"<td class=num>{_num(row.get('rating'))}</td>",
        f"<td class=\"num{' warn' if faults else ''}\">{faults or '–'}</td>",
    ]
    return f"<tr data-entrant=\"{escape(row['entrant'])}\">{''.join(cells)}</tr>"


_CATEGORY_COLOURS = {
    "high": "#c9d3df", "pair": "#8fb3d9", "two-pair": "#4f8fc9", "three": "#2b6aa6",
    "straight": "#6b57a5", "flush": "#a0519b", "full": "#d0605e", "four": "#e08f3c",
    "straight-flush": "#c9a227", "five": "#3e8e5c",
}  # fmt: skip


def bluff_table(bluffs: Sequence[BluffStats], rules: Description) -> str:
    if not any(b.claims or b.challenges for b in bluffs):
        return '<p class="note">No replays to read: bluffing statistics need replay files.</p>'
    space = hands.claim_space(rules.hand).claims
    dice = not rules.central  # a blind claim: only where the claim is about a hand held
    used = [c for c in _CATEGORY_COLOURS if any(dict(b.categories).get(c) for b in bluffs)]
    legend = "".join(
        f'<span class="key"><i style="background:{_CATEGORY_COLOURS[c]}"></i>{escape(c)}</span>'
        for c in used
    )
    head = (
        "<tr><th>Entrant</th><th class=num>Claims</th>"
        + ("<th class=num>Blind</th>" if dice else "")
        + "<th>Mean claim</th><th class=wide>How high it claims</th>"
        "<th class=num>True when challenged</th><th class=num>Challenges right</th></tr>"
    )
    rows = "".join(_bluff_row_html(b, space, dice) for b in bluffs)
    return (
        f'<div class="legend">{legend}</div>'
        f'<div class="scroll"><table class="bluff data"><thead>{head}</thead>'
        f"<tbody>{rows}</tbody></table></div>"
        '<p class="note"><strong>True when challenged</strong>: of its claims that were '
        f"{'challenged' if dice else 'rejected'}, how many held (high: it rarely bluffs, or "
        f"bluffs where nobody dares call). <strong>Challenges right</strong>: of its "
        f"{'challenges' if dice else 'rejections'}, how many caught a false claim. "
        "<strong>Mean claim</strong>: the average position of its claims on the rule set's "
        f"ladder of {len(space)} claims, and the claim at that position. Under each rate: how "
        "many it is of, and its 95% interval.</p>"
    )


def _rate_cell(successes: int, trials: int) -> str:
    if not trials:
        return "<td class=num>–</td>"
    low, high = wilson_interval(successes, trials)
    return (
        f"<td class='num rate'><strong>{100 * successes / trials:.0f}%</strong>"
        f"<small>of {trials:,} · {100 * low:.0f}–{100 * high:.0f}%</small></td>"
    )


def _bluff_row_html(b: BluffStats, space: Sequence[hands.Value], dice: bool) -> str:
    mean = b.mean_claim_index
    mean_cell = "–"
    if mean is not None:
        said = str(space[round(mean)])  # tens as T, as claims are written everywhere
        mean_cell = f"{escape(said)}<small>{mean + 1:.1f} of {len(space)}</small>"
    blind = ""
    if dice:
        blind = f"<td class=num>{_pct(str(b.blind / b.claims)) if b.claims else '–'}</td>"
    return (
        f'<tr data-entrant="{escape(b.entrant)}"><td class=name>{escape(b.entrant)}</td>'
        f"<td class=num>{b.claims:,}</td>{blind}<td class=mean>{mean_cell}</td>"
        f"<td>{_category_bar(b)}</td>"
        f"{_rate_cell(b.held, b.challenged)}{_rate_cell(b.right, b.challenges)}</tr>"
    )


def _category_bar(b: BluffStats) -> str:
    if not b.claims:
        return ""
    parts = []
    for category, count in b.categories:
        share = 100 * count / b.claims
        parts.append(
            f'<i style="width:{share:.2f}%;background:{_CATEGORY_COLOURS.get(category, "#999")}" '
            f'title="{escape(category)}: {count:,} claims ({share:.0f}%)"></i>'
        )
    top = sorted(b.categories, key=lambda item: -item[1])[:3]
    said = " · ".join(f"{escape(c)} {n:,} ({100 * n / b.claims:.0f}%)" for c, n in top)
    more = " · …" if len(b.categories) > 3 else ""
    return (
        f'<div class="bar" role="img" aria-label="claims by category">{"".join(parts)}</div>'
        f'<small class="cats">{said}{more}</small>'
    )


def _game_link(game_id: str, links: Mapping[str, int], text: object, fault: int | None = None,
               back: str | None = None) -> str:
    """A link that opens the game in the viewer (at its `fault`-th fault; its "← Report"
    back to report.html#`back`), or the text alone if the viewer cannot show it."""
    pack = links.get(game_id)
    if pack is None:
        return escape(text)
    at = "" if fault is None else f"&fault={fault}"
    to = "" if back is None else f"&back={quote(back, safe='')}"
    address = f"viewer.html#game={game_id}&pack={pack}{at}{to}"
    return f'<a href="{escape(address)}">{escape(text)}</a>'


def faults_table(data: Folder, links: Mapping[str, int]) -> str:
    """Each faulting entrant's faults by kind, and the first examples of every kind it had,
    each linked to the viewer at that fault, with what the bot sent when that was the fault;
    an entrant without faults has no row, and a contest without any, one line."""
    totals = {row["entrant"]: [int(row.get(k) or 0) for k in FAULT_KINDS] for row in data.standings}
    if not any(sum(v) for v in totals.values()):
        return '<p class="ok">No faults: every bot answered legally and in time.</p>'
    examples = data.log.examples
    head = "".join(f"<th class=num>{escape(k)}</th>" for k in FAULT_KINDS)
    rows = []
    for name, counts in ((n, c) for n, c in totals.items() if sum(c)):  # only who faulted
        cells = "".join(f"<td class=\"num{' warn' if c else ''}\">{c or '–'}</td>" for c in counts)
        seen = "".join(_fault_example(e, links) for e in _by_kind(examples.get(name, ())))
        rows.append(
            f'<tr data-entrant="{escape(name)}"><td class=name>{escape(name)}</td>{cells}'
            f"<td class=num>{sum(counts) or '–'}</td>"
            f'<td><ul class="examples">{seen}</ul></td></tr>'
        )
    return (
        f'<div class="scroll"><table class="faults data"><thead><tr><th>Entrant</th>{head}'
        f"<th class=num>total</th><th>Examples of each kind</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
        '<p class="note">Only the entrants with faults. timeout: too slow; crash: the bot '
        "raised or died; illegal: an action the rules do not allow; protocol: an answer that "
        "could not be read. Up to three examples of each kind an entrant had, the first in the "
        "log; each opens the viewer at that fault. <q>sent</q>: what the bot answered.</p>"
    )


def _by_kind(examples: Sequence[FaultExample]) -> list[FaultExample]:
    """The examples grouped by kind in FAULT_KINDS's order (an unknown kind last)."""
    order = {kind: i for i, kind in enumerate(FAULT_KINDS)}
    return sorted(examples, key=lambda e: order.get(e.kind, len(order)))


def _fault_example(example: FaultExample, links: Mapping[str, int]) -> str:
    link = _game_link(example.game, links, example.game, fault=example.index, back="faults")
    sent = ""
    if example.sent is not None:
        sent = f' <span class="sent">sent <code>{escape(example.sent)}</code></span>'
    trace = "".join(f"<li><code>{escape(frame)}</code></li>" for frame in example.trace)
    return (
        f'<li data-kind="{escape(example.kind)}">{link} <b>{escape(example.kind)}</b>: '
        f"{escape(example.message)}{sent}"
        f"{f'<ol class=trace>{trace}</ol>' if trace else ''}</li>"
    )


def bracket(stages: Mapping[str, Any], links: Mapping[str, int]) -> str:
    columns = []
    for stage in stages.get("stages", ()):
        if stage.get("format") != "elimination":
            columns.append(_seeding_column(stage))
            continue
        tables = "".join(
            _bracket_table(t, links, str(stage.get("name", ""))) for t in stage.get("tables", ())
        )
        byes = stage.get("byes") or ()
        bye = f'<p class="bye">bye: {escape(", ".join(byes))}</p>' if byes else ""
        columns.append(
            f'<div class="stage"><h3>{escape(stage["name"])}</h3>{tables}{bye}</div>'
        )
    ranking = stages.get("ranking")
    scored = any(t.get("points") for s in stages.get("stages", ()) for t in s.get("tables", ()))
    note = (
        '<p class="note">Beside each name: its match score, the games it won (at tables of '
        "more than two, seats − place points a game).</p>"
        if scored
        else ""
    )
    final = ""
    if ranking:
        items = "".join(f"<li>{escape(n)}</li>" for n in ranking)
        final = f'<div class="stage final"><h3>final ranking</h3><ol>{items}</ol></div>'
    return f'<div class="bracket">{"".join(columns)}{final}</div>{note}'


def _seeding_column(stage: Mapping[str, Any]) -> str:
    ranking = stage.get("ranking") or ()
    items = "".join(f"<li>{escape(n)}</li>" for n in ranking)
    games = sum(len(t.get("games", ())) for t in stage.get("tables", ()))
    return (
        f'<div class="stage"><h3>{escape(stage.get("name", "seeding"))}</h3>'
        f'<p class="dim">round robin, {games} games; seeds:</p><ol>{items}</ol></div>'
    )


def _bracket_table(table: Mapping[str, Any], links: Mapping[str, int], stage: str) -> str:
    advanced = set(table.get("advanced") or ())
    order = table.get("ranking") or table.get("entrants") or ()
    points: Sequence[Any] = table.get("points") or ()
    scores = [f' <b class="score">{escape(p)}</b>' for p in points] if table.get("ranking") else []
    rows = "".join(
        f'<li class="{"through" if name in advanced else "out"}">{escape(name)}{score}</li>'
        for name, score in itertools.zip_longest(order, scores[: len(order)], fillvalue="")
    )
    games: Sequence[Any] = table.get("games") or ()
    game_links = " ".join(
        _game_link(g, links, i) for i, g in enumerate(games, 1)
    )
    return (
        f'<div class="match"><div class="match-head">{_match_link(table, games, links, stage)}'
        f'<span class="games">games {game_links}</span></div><ol>{rows}</ol></div>'
    )


def _match_link(
    table: Mapping[str, Any], games: Sequence[Any], links: Mapping[str, int], stage: str
) -> str:
    """The match's name, linked to its games in the list (a stage's two entrants meet at one
    table only), or to the viewer when the match was one game."""
    text = f"table {table.get('table', '')}"
    seated = list(table.get("entrants") or table.get("ranking") or ())
    if len(games) == 1 and games[0] in links:
        return _game_link(games[0], links, text)
    if len(seated) < 2:
        return escape(text)
    stage_, first, second = (escape(quote(str(v), safe="")) for v in (stage, *seated[:2]))
    query = f"stage={stage_}&amp;entrant={first}&amp;opponent={second}"
    return f'<a class="match-games" href="#games&amp;{query}">{escape(text)}</a>'
