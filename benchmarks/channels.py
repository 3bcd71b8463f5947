"""Benchmark: how many bits per decision two colluding bots pass through each piece of kernel
state their sandboxes still share on one machine (issue 38). Run `python
benchmarks/channels.py [--channels cpu,flock,...] [--games N] [--runs N] [--isolation L]`.

For each channel, `benchmarks/channels/sender.py` and `receiver.py` play 2-player dice games
against each other through arena (`play_game`), each in its own sandboxed process at the
level asked (`strict` by default: bubblewrap, seccomp, Landlock, cgroups and a uid of its
own). The sender pushes bits of its own hand into the channel at each of its decisions and
logs them; the receiver reads the channel at each of its decisions and logs what it found.
A reading is paired with the newest message sent since the receiver's previous reading, and
the figure is the information one decision of the sender's carries, by Shannon's binary
symmetric channel: k bits offered, read with a bit error rate p over the whole run, carry
k x (1 - H(p)) bits, less the share of messages the receiver could not find. A channel a wall has
closed reads nothing (or noise) and measures about 0 (a few hundredths from chance alone).

Each channel is measured `--runs` times and its median printed, one line per channel, with
the machine's load average when it ran: the timing channels (cpu, memory, pagecache) depend
on what else the machine runs. The CPU-cache channels (flush, own, vdso, prime) are played
by a C bot, `channels/cache.c`, compiled here with gcc and run as command bots; after them
the benchmark prints what one sweep of the last-level cache costs (what a referee that swept
the cache between two bots' decisions would pay each time). Measures only; asserts nothing.
"""

from __future__ import annotations

import argparse
import atexit
import functools
import math
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from arena import play_game
from arena.bot import Limits
from arena.hosts.pipe import CommandHost, PipeHost, ProcessHost, ProcessLimits
from arena.referee import Player

HERE = Path(__file__).resolve().parent / "channels"
SENDER, RECEIVER = str(HERE / "sender.py"), str(HERE / "receiver.py")
CHANNELS = ("cpu", "memory", "pagecache", "flock", "posixlock", "inotify", "fanotify",
            "inode", "pidfs", "cookie", "sysv", "keyring",
            "flush", "counter", "own", "vdso", "prime")
CACHES = {"flush", "counter", "own", "vdso", "prime"}
"""The CPU-cache channels, played by `channels/cache.c` as command bots: flush+reload on
lines of libc (shared through the machine's image of system files), on lines of the bot's
own program (a private copy per bot: the control), on the vDSO's code (one page for every
process), and a coarse prime+probe of the last-level cache without shared memory."""


@dataclass(frozen=True, slots=True)
class Measure:
    """One run of one channel: the receiver's decisions, the messages it could read, bits
    offered per message, the bit error rate, the bits one decision carries, and the messages
    read exactly (every bit)."""

    decisions: int
    messages: int
    width: int
    error_rate: float
    bits_per_decision: float
    exact: int = 0


def entropy(p: float) -> float:
    """The binary entropy H(p), in bits."""
    return 0.0 if p <= 0 or p >= 1 else -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def _lines(host: PipeHost, word: str) -> list[tuple[float, str]]:
    found = []
    for line in host.stderr_tail().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == word:
            found.append((float(parts[1]), parts[2]))
    return found


def measure(sent: list[tuple[float, str]], heard: list[tuple[float, str]]) -> Measure:
    """Pair each reading with the newest message sent since the reader's previous reading; a
    reading that found none (`-`) loses that message."""
    errors = total = messages = lost = exact = 0
    last = -math.inf
    width = len(sent[0][1]) if sent else 0
    for when, bits in heard:
        fresh = [s for t, s in sent if last < t < when]
        last = when
        if fresh and bits == "-":
            lost += 1
        elif fresh:
            wrong = sum(a != b for a, b in zip(fresh[-1], bits, strict=True))
            errors, exact = errors + wrong, exact + (wrong == 0)
            total, messages = total + len(bits), messages + 1
    rate = errors / total if total else 0.5
    carried = width * (1 - entropy(rate)) * messages / (messages + lost) if messages else 0.0
    return Measure(len(heard), messages + lost, width, rate, carried, exact)


@functools.cache
def compiled() -> str:
    """Compile `channels/cache.c` once, into a folder of its own readable by anyone (a
    sandboxed command bot is shown its program only when its mode lets anyone read it),
    removed at exit."""
    folder = Path(tempfile.mkdtemp(prefix="arena-cache-"))
    atexit.register(shutil.rmtree, folder, True)
    folder.chmod(0o755)
    binary = folder / "cache"
    subprocess.run(["gcc", "-O2", "-o", str(binary), str(HERE / "cache.c"), "-ldl", "-lpthread"],
                   check=True)
    binary.chmod(0o755)
    return str(binary)


def llc_mib() -> int:
    """The last-level cache's size on this machine, in MiB (32 where sysfs does not say)."""
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"), reverse=True):
        size = (index / "size").read_text().strip()
        if size.endswith("K"):
            return max(1, int(size[:-1]) // 1024)
    return 32


def sweep_cost(runs: int) -> str:
    """What a sweep of the last-level cache between two bots' decisions (the referee's way of
    closing both cache channels) would cost, measured with the C bot's own loop."""
    binary, mib = compiled(), llc_mib()
    times = [float(subprocess.run([binary, "sweep", str(mib)], capture_output=True, text=True,
                                  check=True).stdout) for _ in range(runs)]
    return (f"a sweep of the last-level cache ({mib} MiB) takes {statistics.median(times):.1f} ms "
            f"(runs: {' '.join(f'{t:.1f}' for t in times)}), load {os.getloadavg()[0]:.1f}")


def clock_without_tsc() -> str:
    """Whether a bot that is refused rdtsc (prctl PR_SET_TSC) can still read the clock."""
    done = subprocess.run([compiled(), "tsc"], capture_output=True, text=True, check=False)
    if done.returncode == 0:
        return "with rdtsc refused (PR_SET_TSC), the vDSO's clock_gettime still works"
    how = (f"killed by {signal.Signals(-done.returncode).name}" if done.returncode < 0
           else f"exit {done.returncode}: {done.stderr.strip()}")
    return f"with rdtsc refused (PR_SET_TSC), the vDSO's clock_gettime fails ({how})"


def hosts(channel: str, start: int, limits: ProcessLimits) -> tuple[PipeHost, PipeHost]:
    """The sender's and the receiver's hosts: Python bots, or the C bot for the caches; each
    shown the images of its seat (0 and 1), as arena seats them (arena.hosts.view)."""
    heard = replace(limits, seat=1)
    if channel in CACHES:
        binary = compiled()
        return (CommandHost([binary, "send", channel, str(start)], limits),
                CommandHost([binary, "receive", channel, str(start)], heard))
    return ProcessHost(SENDER, limits), ProcessHost(RECEIVER, heard)


def run(channel: str, games: int, isolation: str, decision: float, seed: int) -> Measure:
    """Play `games` games between the sender and the receiver on one channel."""
    limits = ProcessLimits(start_timeout=60.0, isolation=isolation, stderr_bytes=4 << 20,
                           memory=1536 << 20)
    start = random.Random(seed).randrange(0, 4000)  # the big files hold ~6400 pages
    options = {"channel": channel, "start": start}
    sender, receiver = hosts(channel, start, limits)
    try:
        for game in range(games):
            play_game("dice", [Player("sender", sender, options=options),
                               Player("receiver", receiver, options=options)],
                      seed=seed + game, limits=Limits(decision, wall_factor=3.0))
        return measure(_lines(sender, "SENT"), _lines(receiver, "HEARD"))
    finally:
        sender.shutdown()
        receiver.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--channels", default=",".join(CHANNELS))
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--isolation", default="strict")
    parser.add_argument("--decision", type=float, default=1.0, help="decision limit, seconds")
    args = parser.parse_args()
    unknown = set(args.channels.split(",")) - set(CHANNELS)
    if unknown:
        sys.exit(f"channels: no channel {', '.join(sorted(unknown))}: one of {', '.join(CHANNELS)}")
    print(f"isolation {args.isolation}, {args.games} games x {args.runs} runs, "
          f"decision limit {args.decision}s, {os.cpu_count()} CPUs")
    for channel in args.channels.split(","):
        loads, found = [], []
        for number in range(args.runs):
            loads.append(os.getloadavg()[0])
            found.append(run(channel, args.games, args.isolation, args.decision,
                             seed=1000 * number + 7))
        best = statistics.median(m.bits_per_decision for m in found)
        print(f"{channel:10} {statistics.median(m.bits_per_decision for m in found):6.2f} "
              f"bits/decision (runs: {' '.join(f'{m.bits_per_decision:.2f}' for m in found)}), "
              f"error rate {statistics.median(m.error_rate for m in found):.3f}, "
              f"{found[0].width} bits offered, "
              f"{sum(m.messages for m in found)} messages ({sum(m.exact for m in found)} exact), "
              f"load {statistics.median(loads):.1f}"
              + ("" if best >= 0.05 else "  (nothing beyond chance)"))
    if CACHES & set(args.channels.split(",")):
        print(sweep_cost(args.runs))
        print(clock_without_tsc())


if __name__ == "__main__":
    main()
