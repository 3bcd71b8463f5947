"""What the OpenSpiel games and the PettingZoo environment share, in plain Python (no
third-party import): the fixed action ids of a game config, the encoding of a seat's
observation as named pieces of a flat vector, and the utilities by place."""


def utilities(placements: tuple[int, ...]) -> list[float]:
    """Each seat's utility by place: +1 the winner, -1 the last, evenly between; tied seats
    share their places' mean, so the utilities always sum to zero (2 players: +1 and -1)."""
    n = len(placements)
    mean = [p + (placements.count(p) - 1) / 2 for p in placements]
    return [1.0 - 2.0 * (m - 1) / (n - 1) for m in mean]
