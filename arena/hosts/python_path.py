"""Where a sandboxed Python bot finds its modules: the site-packages folders, where a
`module:Class` bot lives, and the path Python's `site` would give it, found once by the
referee, so that the bot's interpreter starts without `site` (`python -S`): on a machine
whose site-packages hold `.pth` files that import (an editable install's finder, a
certificate hook), `site` alone costs more than the rest of a bare Python start, and a
sandboxed bot needs none of it.

The path is each site-packages folder of this interpreter (its venv's, then the base one's,
as `site.getsitepackages()` lists them), each followed by the folders its `.pth` files name,
in the order `site` adds them. The code a `.pth` line runs (`import ...`) is not run: in the
sandbox it could reach only what the sandbox shows, and what an editable install's finder
maps lies outside it (arena's own package is shown at `/arena`, first on the path).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import site
import sys

HIDDEN_SKIPPED = sys.version_info >= (3, 12, 2) or (3, 11, 8) <= sys.version_info < (3, 12)
"""Whether this Python's `site` skips a hidden `.pth` file (gh-113659)."""


@functools.cache
def site_path() -> tuple[str, ...]:
    """The folders `site` appends to the path here, in its order (without user site-packages:
    the launcher runs isolated, `-I`)."""
    found: list[str] = []
    for folder in site.getsitepackages():
        if os.path.isdir(folder) and folder not in found:
            found.append(folder)
            found += [entry for entry in named_in_pth(folder) if entry not in found]
    return tuple(found)


def named_in_pth(folder: str) -> list[str]:
    """The existing folders the `.pth` files of a site-packages folder name, as `site` reads
    them: by file name, skipping comments, blank lines and `import` lines."""
    named: list[str] = []
    with contextlib.suppress(OSError):
        names = sorted(n for n in os.listdir(folder)
                       if n.endswith(".pth") and not (HIDDEN_SKIPPED and n.startswith(".")))
        for name in names:
            with contextlib.suppress(OSError, UnicodeDecodeError), \
                    open(os.path.join(folder, name), encoding="utf-8") as pth:
                for line in pth:
                    if line.startswith(("#", "import ", "import\t")) or not line.strip():
                        continue
                    entry = os.path.abspath(os.path.join(folder, line.rstrip()))
                    if os.path.exists(entry) and entry not in named:
                        named.append(entry)
    return named


def site_folders() -> list[str]:
    """The site-packages folders on this interpreter's path: where installed packages live."""
    return [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]


ARENAS_OWN = frozenset({"arena", "arena_bots"})
"""arena's packages, which the sandbox shows every bot under its root (`arena.hosts.sandbox`)."""


def module_location(bot: str) -> list[str]:
    """Where the top-level module of a `module:Class` bot lives (its file, or its package's
    folder), found without importing it, so that the sandbox can show it: nothing for a
    module of arena's own packages (a built-in's), which every sandbox shows already."""
    top = bot.partition(":")[0].split(".")[0]
    if top in ARENAS_OWN:
        return []
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    places = list(spec.submodule_search_locations or []) or [spec.origin or ""]
    return [p for p in places[:1] if os.path.exists(p)]


def module_folders(bot: object) -> list[str]:
    """The folders a `module:Class` bot is imported from: its module's parent folder."""
    if not isinstance(bot, str) or ".py" in bot or ":" not in bot:
        return []
    return [os.path.dirname(p) for p in module_location(bot)]
