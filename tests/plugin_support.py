"""A real installed plugin distribution for a test module: a package and its .dist-info
naming the `arena` entry point, on sys.path, with the registry built afresh from it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena import plugins


def install(root: Path, package: str, entry: str, source: str) -> None:
    """Write the package and its .dist-info into `root` (as pip would install it)."""
    folder = root / package
    folder.mkdir()
    (folder / "__init__.py").write_text(source)
    info = root / f"{package}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[arena]\n{entry} = {package}\n")
    (info / "RECORD").write_text("")


@contextmanager
def installed_plugin(root: Path, package: str, entry: str, source: str) -> Iterator[Path]:
    """The distribution installed in `root` and found by a fresh registry, while in use."""
    install(root, package, entry, source)
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(root))
        patch.setattr(plugins, "_DEFAULT", None)
        yield root
    for name in [m for m in sys.modules if m.startswith(package)]:
        del sys.modules[name]
    plugins._DEFAULT = None
