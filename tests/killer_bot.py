"""A bot file's source that kills its own process once, at its 40th decision: the executor's
tests (local and on a cluster) play it to see a worker die inside a bot's call."""

KILLER = '''
import os
import signal
from pathlib import Path

from arena_bots.random_bot import RandomBot

MARK = Path(FOLDER) / "killed"  # FOLDER: the run's, written first (the bot plays a copy)
CALLS = [0]


class Killer(RandomBot):
    """Sends SIGKILL to its own worker at its 40th decision there, once per folder (the
    first worker to take the mark; the other plays on)."""

    name = "killer"

    def act(self, observation):
        CALLS[0] += 1
        if CALLS[0] == 40 and _first_to_mark():
            os.kill(os.getpid(), signal.SIGKILL)
        return super().act(observation)


def _first_to_mark():
    """Create the mark unless it is there, in one step: both workers start together and
    reach their 40th call within milliseconds, so a look then a write could let both die."""
    try:
        os.close(os.open(MARK, os.O_WRONLY | os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    return True
'''
