"""Zoo: a bot that imports, at its first decision, the module its option `module` names, by
a call (importlib), never an `import` line: the sandbox cannot know it needs it."""

from __future__ import annotations

import importlib
from types import MappingProxyType

import arena


class Importer(arena.Bot):
    """Imports its module, then plays the lowest legal action."""

    name = "zoo-importer"
    options = MappingProxyType({"module": "json"})

    def act(self, observation: arena.Observation) -> arena.Action:
        importlib.import_module(str(self.settings["module"]))
        return observation.legal_actions()[0]
