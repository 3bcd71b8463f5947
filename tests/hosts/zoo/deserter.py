"""Zoo: at import, starts a helper that leaves the bot's session and then its cgroup (a bot
at isolation `none` runs as the referee's user, root here, and sees /sys/fs/cgroup: it moves
itself to each group's parent) and sleeps with the marker in its argv; then plays fairly and
exits cleanly. The helper must not outlive the bot (tests/hosts/test_clean_exit.py)."""

from __future__ import annotations

import glob
import os
import sys
import time

import arena

MARKER = "arena-zoo-deserter-helper"


def _desert() -> None:
    """Move this process out of every bot group it is in, to the group above."""
    mine = str(os.getpid())
    for group in glob.glob("/sys/fs/cgroup/**/arena-*", recursive=True):
        try:
            with open(os.path.join(group, "cgroup.procs")) as procs:
                if mine not in procs.read().split():
                    continue
            with open(os.path.join(os.path.dirname(group), "cgroup.procs"), "w") as above:
                above.write(mine)
        except OSError:
            continue


if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        _desert()
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(3600)", MARKER])
    os._exit(0)
os.wait()
time.sleep(0.2)  # let it leave first


class Deserter(arena.Bot):
    name = "zoo-deserter"

    def act(self, observation: arena.Observation) -> arena.Action:
        return arena.random_action(observation.legal, self.rng)
