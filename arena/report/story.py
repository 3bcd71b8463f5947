"""A recorded game told in plain words, as everyone saw it or as one seat knew it: the text
`arena replay FILE [--seat N]` prints and a site's bot page shows its owner.

Every line is made printable, since a replay from someone else may hold terminal escapes in
any text (a name, the tournament's, a fault message). Pure text: it reads no file.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from arena.hosts.codec import event_from_json
from arena.hosts.inline import printable
from arena.hosts.trace import bounded
from arena.narrative import Narrator, result_lines
from arena.replay import Replay, ReplayError
from arena.rules import RulesError
from arena.rules.base import Description, Event

__all__ = ["story"]


def story(replay: Replay, seat: int | None = None) -> list[str]:
    """The game in plain words, as everyone saw it (`seat` None) or as one seat knew it;
    each line printable. ReplayError when its rule set is unknown here."""
    header = replay.header
    rules = str(header["rules"]["id"])
    names = [printable(str(e["name"])) for e in header["entrants"]]
    sof = bool(header.get("options", {}).get("straight_over_full", False))
    description = _description(rules)
    narrator = Narrator(description, names, viewer=seat)
    lines = _heading(header, names, seat)
    for event in _events(replay, sof):
        lines.extend(narrator.feed(event))
    lines.extend(narrator.flush())
    result = replay.result
    lines.append("result:")
    lines.extend(result_lines(names, result["placements"], result["scores"], description))
    return ["\n".join(map(printable, line.split("\n"))) for line in lines]


def _description(rules_id: str) -> Description:
    """The replay's rule set's description, built in or from an installed plugin."""
    from arena.rules import get_rules

    try:
        return get_rules(rules_id).description
    except RulesError as exc:
        raise ReplayError(f"cannot tell the game: {exc}") from None


def _heading(header: Mapping[str, Any], names: Sequence[str], seat: int | None) -> list[str]:
    about = header.get("game") or {}
    where = [str(about[k]) for k in ("tournament",) if about.get(k)]
    if about.get("stage"):
        where.append(str(about["stage"]) + (f", table {about['table']}" if about.get("table")
                                            else ""))  # fmt: skip
    of = f" ({'; '.join(where)})" if where else ""
    seats = ", ".join(f"{s} {name}" for s, name in enumerate(names))
    view = "everyone (every die and card shown)"
    if seat is not None:
        view = f"seat {seat} ({names[seat]}): what it knew, when it knew it"
    return [
        f"game {about.get('id', '?')}{of}: {header['rules']['id']}, seed {header.get('seed')}",
        f"seats: {seats}",
        f"view: {view}",
    ]


def _events(replay: Replay, sof: bool) -> Iterator[Event]:
    """The game's events in order, with each fault as the `fault` event a spectator sees."""
    for entry in replay.log:
        kind = entry.get("type")
        if kind == "event":
            yield event_from_json(entry["event"], sof)
        elif kind == "fault":
            trace = bounded(entry.get("trace"), printable)  # the file's: bounded, printable
            yield Event("fault", entry["seat"], {"kind": entry["kind"],
                                                 "message": printable(str(entry["message"])),
                                                 **({"trace": trace} if trace else {})})
