"""The referee readies a bot's cgroup join with a move of its own (arena.hosts.grace): a
move that must change nothing. The referee stays in its groups however many bots start, and
each bot still joins its own group before any of its code runs."""

from __future__ import annotations

import time
from pathlib import Path

from needs import require

from arena.hosts import cgroups, grace
from arena.hosts.cgroups import controllers
from arena.hosts.pipe import ProcessHost, ProcessLimits

BOT = '''import arena


class Plain(arena.Bot):
    name = "plain"

    def act(self, obs):
        return arena.random_action(obs.legal, self.rng)
'''


def own_groups() -> str:
    return Path("/proc/self/cgroup").read_text()


def test_readying_a_join_leaves_the_referee_in_its_groups() -> None:
    require(controllers().version is not None, "cgroups (v2 delegated, or v1)")
    before = own_groups()
    for _ in range(3):
        grace.hasten_join()
    time.sleep(0.5)  # the moves are done (a grace period is some ms)
    assert own_groups() == before
    assert cgroups.groups_now() == cgroups.groups_found()


def test_a_bot_started_after_a_readied_join_is_in_its_own_group(tmp_path: Path) -> None:
    require(controllers().version is not None, "cgroups (v2 delegated, or v1)")
    bot = tmp_path / "plain.py"
    bot.write_text(BOT, encoding="utf-8")
    host = ProcessHost(str(bot), ProcessLimits(isolation="none", pid_namespace=False))
    try:
        host.introduce()
        group = host.process.group if host.process is not None else None
        assert group is not None
        assert group.pids() == [host.process.pid]
    finally:
        host.shutdown()
