"""Zoo: a bot that looks for a page another bot could warm (issue 38, item 1). At its first
decision it walks every folder it can see (but /proc and /dev) and asks each file's file
system (`statfs`) whether it lives on a disk: a page of a file on a disk may be cold, and
which of them a bot sharing the file has read is a channel by timing. It reports `SURVEY
{json}`: the files it checked, the first LIMIT on a disk (by file system type), and errors.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from types import MappingProxyType

import arena

IN_MEMORY = {0x01021994: "tmpfs", 0x858458F6: "ramfs"}
LIMIT = 20
libc = ctypes.CDLL(None, use_errno=True)


def _kind(path: str) -> int:
    """The file system type of the file at path (f_type of struct statfs), or -errno."""
    buffer = ctypes.create_string_buffer(256)
    if libc.statfs(os.fsencode(path), buffer) != 0:
        return -ctypes.get_errno()
    return int.from_bytes(buffer.raw[:8], sys.byteorder)


class Surveyor(arena.Bot):
    """Walks its view once, then plays the lowest legal action."""

    name = "zoo-surveyor"
    options = MappingProxyType({})
    done = False

    def act(self, observation: arena.Observation) -> arena.Action:
        if not Surveyor.done:
            Surveyor.done = True
            sys.stderr.write("SURVEY " + json.dumps(_survey()) + "\n")
            sys.stderr.flush()
        return observation.legal_actions()[0]


def _survey() -> dict[str, object]:
    checked, on_disk, errors = 0, [], []
    for top, dirs, names in os.walk("/"):
        if top == "/":
            dirs[:] = [d for d in dirs if d not in ("proc", "dev")]
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(top, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            checked += 1
            kind = _kind(path)
            if kind < 0:
                errors.append(f"{path}: {os.strerror(-kind)}")
            elif kind not in IN_MEMORY and os.path.getsize(path) > 0:
                on_disk.append(f"{path} ({kind:#x})")
            if len(on_disk) >= LIMIT or len(errors) >= LIMIT:
                return {"checked": checked, "on_disk": on_disk, "errors": errors}
    return {"checked": checked, "on_disk": on_disk, "errors": errors}
