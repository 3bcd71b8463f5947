"""A bot process's own folder and environment: an empty folder in the temp folder, named for
the referee that made it (so folders left by a referee that died are removed by the next), and
a clean environment that passes nothing of the referee's but PATH."""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from pathlib import Path

from arena.hosts.process_tree import TOKEN_VARIABLE

FOLDER_PREFIX = "arena-bot-"  # then the referee's pid: folders of dead referees are removed


@functools.cache
def remove_stale_folders() -> list[str]:
    """Remove bot folders left in the temp folder by referees that died without cleaning up
    (once per referee process); return the ones removed."""
    removed = []
    root = Path(tempfile.gettempdir())
    for path in root.glob(f"{FOLDER_PREFIX}*-*"):
        owner = path.name[len(FOLDER_PREFIX):].split("-", 1)[0]
        if not owner.isdigit() or int(owner) == os.getpid():
            continue
        try:
            os.kill(int(owner), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(str(path))
        except PermissionError:
            continue
    return removed


def clean_env(folder: str, token: str) -> dict[str, str]:
    """The bot's whole environment: its folder as home, fixed locale and hash seed, one
    thread for numeric libraries, and the token that finds its processes again."""
    return {
        "PATH": os.environ.get("PATH", os.defpath), "HOME": folder, "TMPDIR": folder,
        "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONUNBUFFERED": "1",
        "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", TOKEN_VARIABLE: token,
    }
