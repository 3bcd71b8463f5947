"""Zoo (well-behaved): plays a random legal action and prints a digest of every observation it
gets, history included, so a test can check that `process` mode rebuilds the observations
exactly as `inline` passes them (print goes to stderr in `process` mode)."""

from __future__ import annotations

import hashlib
import json

import arena
from arena.hosts.codec import observation_to_json
from arena.rules.playout import random_action


class Historian(arena.Bot):
    name = "zoo-historian"

    def act(self, observation: arena.Observation) -> arena.Action:
        text = json.dumps(observation_to_json(observation), sort_keys=True)
        print("SEEN", len(observation.history), hashlib.sha256(text.encode()).hexdigest()[:16])
        return random_action(observation.legal, self.rng)
