"""Bot processes kept across games: the process and command hosts of one worker (or one
command's games), so a bot's process serves many games, as many as the machine holds.

A kept process never plays one deal twice (the twin games of duplicate play go to a second
process of the entrant's), and a sandboxed one is shown one image of the system's files for
its life (`arena.hosts.view`): a table is seated so that no two of its seats are shown one
image (flush+reload between table-mates, issue 38; docs/security.md), by the entrants' order
at the table, so a process serves its entrant at any seat index. This module plays no game.
"""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING

from arena.hosts import machine

if TYPE_CHECKING:
    from arena.entrants import Resolved
    from arena.hosts.inline import Host

__all__ = ["KEPT_CAP", "KEPT_FLOOR", "SWAPPED", "KeptHosts", "kept_that_fit"]

KEPT_CAP = 1024
"""Most process and command hosts one worker keeps alive between games, as far as the machine
holds them (`kept_that_fit`)."""
KEPT_FLOOR = 32
"""Kept hosts never let go for the machine's memory (`arena.hosts.machine.memory_low`)."""
SWAPPED = 4
"""Most seats of a table whose images `KeptHosts.table` tries in every order (4! = 24)."""
STOP_WAIT = 0.2
"""Seconds the kept processes, all asked to stop at once, have to exit on their own."""


def kept_that_fit(sharing: int = 1) -> int:
    """How many hosts one of `sharing` workers keeps: KEPT_CAP, or fewer when the open-file
    limit, half the memory available now (`machine.KEPT_BYTES` a bot) or half the machine's
    sandbox uids (one a sandboxed process, as root) hold fewer."""
    from arena.hosts.sandbox import UIDS

    uids = max(1, len(UIDS) // (2 * max(1, sharing)))
    return machine.kept_in_memory(min(machine.hosts_that_fit(KEPT_CAP), uids), sharing)


class KeptHosts:
    """The process and command hosts of one worker, kept across its games so a bot's process
    serves many; beyond `cap` the least recently used is shut down, and one for each start
    beyond KEPT_FLOOR while the machine's memory is low. Inline hosts are new for every
    game. Every command that plays games holds one per worker."""

    def __init__(self, cap: int = KEPT_CAP) -> None:
        if cap < 1:
            raise ValueError(f"a worker keeps at least one host, not {cap}")
        self.cap = cap
        self._hosts: OrderedDict[tuple[Hashable, int | None, int], Host] = OrderedDict()
        """By key, seat image (None: not sandboxed) and copy: a key's second process plays
        the twin of its first's game."""
        self._streams: dict[tuple[Hashable, int | None, int], set[Hashable]] = {}
        """The chance streams (game seeds) each kept host's process has played."""

    def __len__(self) -> int:
        return len(self._hosts)

    def host(self, key: Hashable, entrant: Resolved, stream: Hashable | None = None,
             seat: int | None = None) -> Host:
        """The host of `key` (one entrant, or one seat of one), started anew or kept from before.

        A process never plays one chance stream twice (`stream`: the game's seed): the twin
        games of duplicate play deal the same dice, so a process that remembered the first
        would know its opponent's hand in the second; the twin goes to another process of
        the entrant's, kept beside the first, that has not played that deal. A sandboxed
        process is shown one image of the system's files for its life (`arena.hosts.view`),
        here the image of its `seat` index, which its table-mates, at other seats, never
        map; `table` seats a whole table by images instead."""
        if entrant.mode == "inline":
            return entrant.host()
        return self._take(key, entrant, stream, seat if entrant.sandboxed else None)

    def table(self, seats: Sequence[tuple[int, Resolved]], stream: Hashable | None = None
              ) -> list[Host]:
        """The hosts of one table's seats, each (entrant index, entrant), started anew or kept.

        No two sandboxed seats of the table are shown one image: image i is the i-th seat in
        the order of the entrants' indexes, so a process serves its entrant at any seat index
        against the same kind of table-mates (a gauntlet's champions, a worker's row block,
        all below the entrants passing through), unless another order of the images finds
        more of the seats' processes kept (`_images`)."""
        images = self._images(seats, stream)
        return [entrant.host() if entrant.mode == "inline" else
                self._take(key, entrant, stream, image)
                for (key, entrant), image in zip(seats, images, strict=True)]

    def _images(self, seats: Sequence[tuple[int, Resolved]], stream: Hashable | None
                ) -> list[int | None]:
        """Each seat's image (None: not sandboxed): a permutation of the seat indexes, by the
        entrants' order, or the first other one that starts fewer processes, or as many but
        fewer second processes of an image (a twin game's deal played again: the images
        turned by the seats, as a rotation set turns its entrants, start images not yet
        started instead); up to SWAPPED seats, a larger table keeps the entrants' order."""
        ranked = sorted(range(len(seats)), key=lambda seat: (seats[seat][0], seat))
        order = [ranked.index(seat) for seat in range(len(seats))]
        boxed = [entrant.mode != "inline" and entrant.sandboxed for _, entrant in seats]
        best, fewest = order, self._starting(seats, order, boxed, stream)
        if fewest[0] and len(seats) <= SWAPPED:
            for other in itertools.permutations(range(len(seats))):
                starting = self._starting(seats, other, boxed, stream)
                if starting < fewest:
                    best, fewest = list(other), starting
        return [image if sandboxed else None for image, sandboxed in zip(best, boxed, strict=True)]

    def _starting(self, seats: Sequence[tuple[int, Resolved]], images: Sequence[int],
                  boxed: Sequence[bool], stream: Hashable | None) -> tuple[int, int]:
        """The processes the sandboxed seats would start if shown these images, and how many
        of them a second (or later) process of the entrant's at that image."""
        slots = [self._slot(key, image, stream)
                 for (key, _), image, sandboxed in zip(seats, images, boxed, strict=True)
                 if sandboxed]
        new = [slot for slot in slots if slot not in self._hosts]
        return len(new), sum(slot[2] > 0 for slot in new)

    def _slot(self, key: Hashable, image: int | None, stream: Hashable | None
              ) -> tuple[Hashable, int | None, int]:
        """The slot of the entrant's process at this image that has not played `stream`."""
        copy = 0
        while stream is not None and stream in self._streams.get((key, image, copy), ()):
            copy += 1
        return key, image, copy

    def _take(self, key: Hashable, entrant: Resolved, stream: Hashable | None,
              image: int | None) -> Host:
        """The process host of `key` shown `image` (None: unsandboxed), kept or started."""
        slot = self._slot(key, image, stream)
        host = self._hosts.pop(slot, None)
        started = host is None
        if host is None:
            host = entrant.host() if image is None else entrant.host(image)
            self._streams[slot] = set()
        if stream is not None:
            self._streams[slot].add(stream)
        self._hosts[slot] = host
        while len(self._hosts) > self.cap or (started and len(self._hosts) > KEPT_FLOOR
                                               and machine.memory_low()):
            oldest, evicted = self._hosts.popitem(last=False)
            self._streams.pop(oldest, None)
            _shutdown(evicted)
            started = False  # one let go a start for memory: the set shrinks as bots grow
        return host

    def prefer(self, keys: Iterable[Hashable]) -> None:
        """Keep these keys' processes over the others when one must go: the entrants of the
        games about to be played (a bundle, arena/tournament/run/hot.py)."""
        wanted = set(keys)
        for slot in [slot for slot in self._hosts if slot[0] in wanted]:
            self._hosts.move_to_end(slot)

    def ask_to_stop(self) -> None:
        """Ask every kept bot process to exit, waiting for none: `close` then finds most
        gone, so they end side by side (one by one, 200 kept file bots took 14.7 s)."""
        for host in self._hosts.values():
            host.ask_to_stop()

    def close(self) -> None:
        """Stop every kept bot process. All share one wait for their own exit: thawed at once,
        a bot that ignores `shutdown` is killed at that wait's end, not after its turn (200
        such bots, each waited for in turn, would have run thawed for 40 s)."""
        self.ask_to_stop()
        deadline = time.monotonic() + STOP_WAIT
        while self._hosts:
            _, host = self._hosts.popitem()
            host.shutdown(max(0.0, deadline - time.monotonic()))


def _shutdown(host: Host) -> None:
    """Stop a host's bot process, if it has one."""
    host.shutdown()
