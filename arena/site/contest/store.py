"""The uploads' store: each upload's bytes once, by their sha256, in the data folder
(`store/ab/abcdef...`), private to the site's user (files 0600, folders 0700) and written
whole or not at all (a temporary file renamed into place). Nothing here is served or
imported; the season reads a bot from here (`read`, `unpack`), and every read checks that
the bytes still have the name they are kept under.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from arena.site.contest.archives import Member, layout, members

__all__ = ["StoreError", "location", "put", "read", "unpack"]

_SHA256 = re.compile(r"[0-9a-f]{64}")


class StoreError(ValueError):
    """A store entry that is missing or does not hold the bytes its name says."""


def _root(root: Path | None) -> Path:
    """The served contest's store unless another is named."""
    if root is not None:
        return root
    from arena.site.contest.contest import current

    return current().store


def location(sha: str, root: Path | None = None) -> Path:
    """Where the bytes of this sha256 are kept (only a sha256 names a place in the store)."""
    if not _SHA256.fullmatch(sha):
        raise StoreError(f"{sha!a} is not a sha256")
    return _root(root) / sha[:2] / sha


def put(data: bytes, root: Path | None = None) -> str:
    """Keep `data` (once) and return its sha256."""
    sha = hashlib.sha256(data).hexdigest()
    path = location(sha, root)
    if path.is_file() and _intact(path, sha):
        return sha
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".upload-")
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return sha


def _intact(path: Path, sha: str) -> bool:
    return hashlib.sha256(path.read_bytes()).hexdigest() == sha


def read(sha: str, root: Path | None = None) -> bytes:
    """The bytes kept under `sha`, checked against it (never through a symlink)."""
    path = location(sha, root)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise StoreError(f"store/{sha[:2]}/{sha} cannot be read: {exc.strerror}") from None
    with os.fdopen(descriptor, "rb") as stream:
        data = stream.read()
    if hashlib.sha256(data).hexdigest() != sha:
        raise StoreError(f"store/{sha[:2]}/{sha} does not hold the bytes of its name")
    return data


def unpack(sha: str, dest: Path, command: Sequence[str] = (),
           root: Path | None = None) -> list[Member]:
    """Write the archive kept under `sha` into the new folder `dest`, after every check of an
    upload again (its members, its layout with `command`); the files it wrote."""
    found = members(read(sha, root))
    layout(found, command)
    dest.mkdir(mode=0o700, parents=True)
    for member in found:
        target = dest.joinpath(*member.path.split("/"))
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        descriptor = os.open(target, flags, 0o700 if member.executable else 0o600)
        with os.fdopen(descriptor, "wb") as out:
            out.write(member.data)
    return found
