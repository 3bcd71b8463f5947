"""Exact equilibria of small `dice` games: the game tree of an arena game, walked once through
arena's rules, written as an EFG game that OpenSpiel loads in C++ (`pyspiel.load_efg_game`),
then solved there by CFR+ and measured by `pyspiel.nash_conv`: the pure-Python solvers over
the Python game are far too slow (docs/rl.md, "Equilibria").

A policy here is a table: information-state string (the Python game's, so arena's words) to
the probability of each legal action id, lowest id first.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pyspiel  # type: ignore[import-not-found, unused-ignore]

Policy = dict[str, list[tuple[int, float]]]
"""Information-state string to (action id, probability) for every legal action."""


@dataclass
class Tree:
    """A game tree as EFG text, and which EFG infoset is which of the game's information
    states (by player, numbered from 1 as EFG numbers them)."""

    lines: list[str] = field(default_factory=list)
    infosets: list[dict[str, int]] = field(default_factory=lambda: [{}, {}])
    actions: dict[str, list[int]] = field(default_factory=dict)
    terminals: int = 0

    def text(self, name: str) -> str:
        """The whole EFG file."""
        return "\n".join([f'EFG 2 R "{name}" {{ "seat 0" "seat 1" }}', "", *self.lines, ""])


def reduced_game(dice: int, faces: int) -> Any:
    """The one-round two-player `dice` game of this size, as the Python OpenSpiel game."""
    import arena.openspiel  # noqa: F401  (registers the games)

    return pyspiel.load_game("python_arena_dice",
                             {"players": 2, "max_points": 1, "dice": dice, "faces": faces})


def build_tree(game: Any) -> Tree:
    """Walk the whole game once and write it as EFG (depth first, as EFG lists nodes)."""
    tree = Tree()
    _write(tree, game.new_initial_state(), 0)
    return tree


def _write(tree: Tree, state: Any, depth: int) -> None:
    pad = "  " * depth
    if state.is_terminal():
        tree.terminals += 1
        first, second = state.returns()
        tree.lines.append(f'{pad}t "" {tree.terminals} "" {{ {first} {second} }}')
        return
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        chances = " ".join(f'"c{a}" 1/{len(outcomes)}' for a, _ in outcomes)
        tree.lines.append(f'{pad}c "" {len(tree.lines) + 1} "" {{ {chances} }} 0')
        for action, _ in outcomes:
            _write(tree, state.child(action), depth + 1)
        return
    player = state.current_player()
    key = state.information_state_string()
    known = tree.infosets[player]
    number = known.setdefault(key, len(known) + 1)
    legal = state.legal_actions()
    tree.actions[key] = legal
    names = " ".join(f'"a{a}"' for a in legal)
    tree.lines.append(f'{pad}p "" {player + 1} {number} "" {{ {names} }} 0')
    for action in legal:
        _write(tree, state.child(action), depth + 1)


def load(tree: Tree) -> Any:
    """The tree as OpenSpiel's C++ EFG game."""
    return pyspiel.load_efg_game(tree.text("arena dice"))


def solve(tree: Tree, iterations: int) -> tuple[Policy, float, Any]:
    """CFR+ in C++ on the EFG game: the average policy (by the Python game's information
    states), its NashConv, and the EFG game."""
    efg = load(tree)
    solver = pyspiel.CFRPlusSolver(efg)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    conv = float(pyspiel.nash_conv(efg, average))
    return from_efg(tree, efg, average), conv, efg


def from_efg(tree: Tree, efg: Any, average: Any) -> Policy:
    """The EFG game's policy by the Python game's information states and action ids."""
    names = _names(tree)
    policy: Policy = {}
    for state in _decisions(efg.new_initial_state()):
        key = names[state.current_player(), _infoset_number(state)]
        if key not in policy:  # EFG action ids number the action names: "a<arena's id>"
            probs = {int(state.action_to_string(a)[1:]): p
                     for a, p in average.get_state_policy(state)}
            policy[key] = [(a, float(probs.get(a, 0.0))) for a in tree.actions[key]]
    return policy


def exploitability(tree: Tree, efg: Any, policy: Policy) -> float:
    """OpenSpiel's exploitability of a policy (the mean of the two seats' best-response gains,
    in utilities of +1 a round won and -1 a round lost), computed in C++ on the EFG game."""
    names = _names(tree)
    table: dict[str, list[tuple[int, float]]] = {}
    for state in _decisions(efg.new_initial_state()):
        text = state.information_state_string()
        if text not in table:
            probs = dict(policy[names[state.current_player(), _infoset_number(state)]])
            table[text] = [(a, probs.get(int(state.action_to_string(a)[1:]), 0.0))
                           for a in state.legal_actions()]
    return float(pyspiel.exploitability(efg, pyspiel.TabularPolicy(table)))


def _names(tree: Tree) -> dict[tuple[int, int], str]:
    """The Python game's information state for each (seat, EFG infoset number)."""
    return {(p, n): key for p, known in enumerate(tree.infosets) for key, n in known.items()}


def _decisions(state: Any) -> Iterator[Any]:
    """Every decision node below `state`, depth first (the one walk both readers need)."""
    if state.is_terminal():
        return
    if state.is_chance_node():
        for action, _ in state.chance_outcomes():
            yield from _decisions(state.child(action))
        return
    yield state
    for action in state.legal_actions():
        yield from _decisions(state.child(action))


def _infoset_number(state: Any) -> int:
    """The EFG infoset number of a decision node: its information-state string is
    "player-player-number-name"."""
    return int(state.information_state_string().split("-")[2])


def lp_value(game: Any) -> float:
    """The first seat's exact game value by the sequence-form LP (Koller, Megiddo and von
    Stengel), solved by scipy's HiGHS: the oracle the CFR+ solution is checked against
    (OpenSpiel's own `sequence_form_lp` needs cvxpy, which arena does not install)."""
    import numpy as np
    from scipy.optimize import linprog  # type: ignore[import-untyped, unused-ignore]
    forms = [_SequenceForm(), _SequenceForm()]
    payoff: dict[tuple[int, int], float] = {}
    _lp_walk(game.new_initial_state(), forms, [0, 0], 1.0, payoff)
    mine, theirs = forms
    n1, n2, rows2 = mine.count, theirs.count, len(theirs.rows)
    # variables: x (the first seat's realization plan), then q (one per row of F); maximize q0
    # F^T q - A^T x <= 0, one row per sequence j of the second seat
    upper_entries = [(j, i, -value) for (i, j), value in payoff.items()]
    upper_entries += [(j, n1 + r, float(sign)) for r, row in enumerate(theirs.rows)
                      for j, sign in row]
    upper = _matrix(upper_entries, (n2, n1 + rows2))
    equal = _matrix([(r, i, float(sign)) for r, row in enumerate(mine.rows) for i, sign in row],
                    (len(mine.rows), n1 + rows2))
    cost = np.zeros(n1 + rows2)
    cost[n1] = -1.0
    bounds = [(0, None)] * n1 + [(None, None)] * rows2
    found = linprog(cost, A_ub=upper, b_ub=np.zeros(n2), A_eq=equal,
                    b_eq=np.eye(len(mine.rows))[0], bounds=bounds, method="highs")
    if found.status != 0:
        raise RuntimeError(f"the sequence-form LP failed: {found.message}")
    return float(-found.fun)


def _matrix(entries: list[tuple[int, int, float]], shape: tuple[int, int]) -> Any:
    """A sparse matrix from (row, column, value) entries."""
    from scipy.sparse import coo_matrix  # type: ignore[import-untyped, unused-ignore]

    rows, cols, values = zip(*entries, strict=True)
    return coo_matrix((values, (rows, cols)), shape=shape).tocsr()


class _SequenceForm:
    """One seat's sequences (0 is the empty one) and the rows of its constraint matrix:
    x_empty = 1, and for each information state, its actions sum to its parent sequence."""

    def __init__(self) -> None:
        self.count = 1
        self.rows: list[list[tuple[int, int]]] = [[(0, 1)]]
        self.infosets: dict[str, dict[int, int]] = {}

    def sequences(self, key: str, parent: int, actions: list[int]) -> dict[int, int]:
        """The sequence of each action at an information state, made on first sight."""
        known = self.infosets.get(key)
        if known is None:
            known = self.infosets[key] = {a: self.count + k for k, a in enumerate(actions)}
            self.count += len(actions)
            self.rows.append([(parent, -1), *((s, 1) for s in known.values())])
        return known


def _lp_walk(state: Any, forms: list[_SequenceForm], last: list[int], chance: float,
             payoff: dict[tuple[int, int], float]) -> None:
    if state.is_terminal():
        key = (last[0], last[1])
        payoff[key] = payoff.get(key, 0.0) + chance * state.returns()[0]
        return
    if state.is_chance_node():
        for action, p in state.chance_outcomes():
            _lp_walk(state.child(action), forms, last, chance * p, payoff)
        return
    seat = state.current_player()
    legal = state.legal_actions()
    known = forms[seat].sequences(state.information_state_string(seat), last[seat], legal)
    for action in legal:
        after = list(last)
        after[seat] = known[action]
        _lp_walk(state.child(action), forms, after, chance, payoff)


def policy_value(game: Any, policy: Policy) -> float:
    """The first seat's expected utility when both seats play the policy."""

    def value(state: Any) -> float:
        if state.is_terminal():
            return float(state.returns()[0])
        if state.is_chance_node():
            return sum(float(p) * value(state.child(a)) for a, p in state.chance_outcomes())
        moves = policy[state.information_state_string()]
        return sum(p * value(state.child(a)) for a, p in moves if p > 0)

    return value(game.new_initial_state())


SIZES = ((1, 3), (2, 2), (1, 4), (1, 5))
"""The reduced sizes (dice, faces) solved and shipped: those whose whole tree this walks in
seconds. 2 dice of 3 faces already has 3.3 million histories and a million information
states (docs/rl.md, "Equilibria")."""


def write(path: str, dice: int, faces: int, policy: Policy, conv: float,
          iterations: int) -> None:
    """Store a solved policy as gzip-compressed JSON (probabilities to 7 decimals)."""
    import gzip
    import json

    table = {key: [[a, round(p, 7)] for a, p in moves] for key, moves in sorted(policy.items())}
    data = {"rules": "dice", "players": 2, "max_points": 1, "dice": dice, "faces": faces,
            "solver": f"CFR+ ({iterations} iterations, OpenSpiel)", "nash_conv": conv,
            "policy": table}
    with gzip.GzipFile(path, "wb", mtime=0) as out:
        out.write(json.dumps(data, separators=(",", ":")).encode())


def main() -> None:
    """Solve every shipped size and write bots/equilibria/dice-DxF.json.gz."""
    import sys
    from pathlib import Path

    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "bots/equilibria")
    for dice, faces in SIZES:
        tree = build_tree(reduced_game(dice, faces))
        policy, conv, _ = solve(tree, 2000)
        write(str(folder / f"dice-{dice}x{faces}.json.gz"), dice, faces, policy, conv, 2000)
        print(f"dice {dice}x{faces}: {len(policy)} information states, NashConv {conv:.2e}")


if __name__ == "__main__":
    main()
