"""Zoo: a bot file whose module-level code takes 8 GiB (written to, so it is really used)."""

import arena

HOARD = bytearray(b"x") * (8 << 30)


class HogImport(arena.Bot):
    name = "hog-import"

    def act(self, observation: arena.Observation) -> arena.Action:
        return observation.legal_actions()[0]
