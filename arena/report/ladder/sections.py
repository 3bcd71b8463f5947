"""A ladder's sections of the report, from its ladder.json: the final (once frozen), the
ranking with its provisional players and the pairs not yet separated, games per player,
rating over time (arena/report/ladder/chart.py) and every version with its status.

Every name and reason is escaped here: a rejected version's reason is a line a stranger's
bot made, so it is only ever text. Players link to their entrant pages
(`#entrant=<player>`, `@` encoded) and their games to the games list. This module must not
read files (arena/report/folder.py reads ladder.json into arena/report/ladder/data.py's
values) nor rank anything: the order is ladder.json's.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

from arena.report.ladder.chart import games_bars, rating_chart
from arena.report.ladder.data import LadderView, Standing, Version, label
from arena.report.markup import escape
from arena.report.tables import TIE, entrant_link

__all__ = [
    "ladder_parts",
    "ranking_line",
    "versions_table",
]

_DIGEST = 12
"""Hex digits of a version's digest shown (the whole digest is its title)."""


def _player(player: str) -> str:
    return entrant_link(player, label(player))


def _games_link(player: str, games: int, shown: str) -> str:
    if not games:
        return escape(shown)
    href = f"#games&entrant={quote(player, safe='')}"
    return f'<a href="{escape(href)}">{escape(shown)}</a>'


def _elo(value: float | None) -> str:
    return "–" if value is None else f"{value:+.0f}"


def ranking_line(view: LadderView) -> str:
    """The ranking's header: rules, games, batches, and whether the top are separated."""
    batches = f"{view.batches:,} batch{'es' * (view.batches != 1)}"
    told = "separated" if view.separated else "not yet separated"
    return (f"{view.rules}, {view.seats} seats a table · {view.games:,} games in {batches} · "
            f"ranked from {view.min_games} games · the top {view.top} {told} at 95%")  # fmt: skip


def _unresolved(view: LadderView) -> str:
    if not view.unresolved:
        return ""
    items = "".join(
        f'<li data-above="{escape(u.above)}" data-below="{escape(u.below)}">'
        f"{_player(u.above)} vs {_player(u.below)} not yet separated (z {u.z:.2f})</li>"
        for u in view.unresolved
    )
    return f'<ul class="ld-unresolved" id="ld-unresolved">{items}</ul>'


def _rank_cell(row: Standing) -> str:
    if row.provisional:
        return '<td class="num"><span class="dim" title="provisional: not yet ranked">–</span></td>'
    tie = TIE if row.tied else ""
    medal = f' class="medal m{row.rank}"' if row.rank in (1, 2, 3) else ""
    return f"<td class=num>{tie}<span{medal}>{escape(row.rank or '–')}</span></td>"


def _ranking_row(row: Standing, min_games: int) -> str:
    shown = f"{row.games:,} / {min_games}" if row.provisional else f"{row.games:,}"
    interval = "" if row.low is None else f"<small>{_elo(row.low)} to {_elo(row.high)}</small>"
    kind = ' class="provisional"' if row.provisional else ""
    mark = '<small class="ld-prov">provisional</small>' if row.provisional else ""
    return (
        f'<tr data-entrant="{escape(row.player)}"{kind}>{_rank_cell(row)}'
        f"<td class=name>{_player(row.player)}</td>"
        f"<td class='num rate'>{_games_link(row.player, row.games, shown)}{mark}</td>"
        f"<td class=\"num{' warn' if row.faults else ''}\">{row.faults or '–'}</td>"
        f"<td class='num rate'><strong>{_elo(row.elo)}</strong>{interval}</td></tr>"
    )


def ranking_table(view: LadderView) -> str:
    """The active players: the ranked by Elo, then the provisional with their games so far."""
    body = "".join(_ranking_row(row, view.min_games) for row in view.ranking)
    return (
        f'<p class="ld-head" id="ld-line">{escape(ranking_line(view))}</p>'
        '<div class="scroll box"><table class="standings data ld-ranking"><thead><tr>'
        "<th class='num rank'>#</th><th class=name>Player</th><th class=num>Games</th>"
        "<th class=num>Faults</th><th class=num>Elo (95%)</th></tr></thead>"
        f"<tbody>{body}</tbody></table></div>{_unresolved(view)}"
        '<p class="note">The active version of each entrant, ranked by Elo (a Bradley–Terry '
        "fit over all the ladder's games at once, so their order does not matter). "
        f"<abbr>~</abbr>: its 95% interval overlaps the one above. Provisional: fewer than "
        f"{view.min_games} games so far (games / needed), listed below the ranked.</p>"
    )


def _status(version: Version) -> str:
    if version.status != "rejected":
        return f'<span class="ld-{escape(version.status)}">{escape(version.status)}</span>'
    reason = f' <q class="ld-reason">{escape(version.reason)}</q>' if version.reason else ""
    return f'<span class="ld-rejected">✗ rejected</span>{reason}'


def _version_row(version: Version) -> str:
    digest = version.digest.removeprefix("sha256:")
    who = _player(version.player) if version.games else escape(label(version.player))
    return (
        f'<tr data-player="{escape(version.player)}" class="v-{escape(version.status)}">'
        f"<td class=name>{escape(version.entrant)}</td><td>{who}</td>"
        f"<td>{_status(version)}</td>"
        f"<td class=num>{_games_link(version.player, version.games, f'{version.games:,}')}</td>"
        f'<td><code title="{escape(version.digest)}">{escape(digest[:_DIGEST])}</code></td>'
        f"<td><code>{escape(version.source)}</code></td></tr>"
    )


def versions_table(versions: Sequence[Version]) -> str:
    """Every version submitted: active, retired (its games kept) or rejected, and why."""
    body = "".join(_version_row(v) for v in versions)
    return (
        '<div class="scroll"><table class="data ld-versions"><thead><tr><th>Entrant</th>'
        "<th>Version</th><th>Status</th><th class=num>Games</th><th>Digest</th>"
        f"<th>Source</th></tr></thead><tbody>{body}</tbody></table></div>"
        '<p class="note">A changed bot file is a new version: it replaces the old one in the '
        "ranking, and the old one's games stay in the log (retired). A rejected version could "
        "not start, or faulted, in its validation game, and was never scheduled; the reason "
        "is what its author reads.</p>"
    )


def final_part(view: LadderView) -> str:
    """The frozen top's round robin: who, how far, and once complete the contest's result."""
    final = view.final
    if final is None:
        return ""
    top = ", ".join(_player(p) for p in final.top)
    state = "complete" if final.complete else "in progress"
    played = f"{final.played:,} of {final.games:,} games played ({state})"
    head = (f'<p class="ld-head" id="ld-final-line">The top {len(final.top)} frozen: {top}'
            f" · {escape(played)}</p>")  # fmt: skip
    if not (final.complete and final.ranking):
        return head + ('<p class="note">A round robin with duplicate deals: every deal is '
                       "played at every seat order. Its result is the contest's.</p>")
    places = "".join(f"<li>{_player(p)}</li>" for p in final.ranking)
    return (f'{head}<h3>The contest\'s result</h3><ol class="ld-result" id="ld-result">'
            f"{places}</ol>")  # fmt: skip


def ladder_parts(view: LadderView) -> list[tuple[str, str, str]]:
    """The ladder's sections (key, title, body), the final first once there is one."""
    parts = [("final", "Final", final_part(view))] if view.final else []
    return [
        *parts,
        ("ranking", "Ranking", ranking_table(view)),
        ("ladder-games", "Games per player", games_bars(view)),
        ("ladder-rating", "Rating over time", rating_chart(view)),
        ("versions", "Versions", versions_table(view.versions)),
    ]
