"""Zoo: a bot file whose module-level code never finishes (it sleeps at import)."""

import time

import arena

time.sleep(10**6)


class SlowImport(arena.Bot):
    name = "slow-import"

    def act(self, observation: arena.Observation) -> arena.Action:
        return observation.legal_actions()[0]
