"""What the upload tests share: archives built in memory (with members no honest tool
writes), a participant's API token, and an upload through the API or the form."""

from __future__ import annotations

import gzip
import io
import stat
import tarfile
import warnings
import zipfile
from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from arena.site.contest.models import ApiToken

BOT = b"from arena_bots.honest import Honest as Bot\n"
"""A bot file's bytes: what it says does not matter until the season checks it."""


def zip_of(files: Mapping[str, bytes], modes: Mapping[str, int] | None = None) -> bytes:
    """A .zip of these members (a name ending in '/' is a folder), with these st_modes."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            mode = (modes or {}).get(name, (stat.S_IFDIR | 0o755) if name.endswith("/")
                                     else stat.S_IFREG | 0o644)
            info.external_attr = mode << 16
            archive.writestr(info, data)
    return out.getvalue()


def zip_with_duplicates(name: str, times: int) -> bytes:
    """A .zip with one name several times (zipfile warns, but writes it)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Duplicate name": what is wanted here
        for n in range(times):
            archive.writestr(name, f"# copy {n}\n")
    return out.getvalue()


def tar_of(members: Sequence[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    """A .tar.gz of these members, each as its header says (links, devices and all); the same
    bytes in every process (no time in the gzip header: the tests' ids, which pytest-xdist's
    workers must agree on, hold them)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for info, data in members:
            info.size = len(data) if info.isreg() else 0
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return gzip.compress(out.getvalue(), mtime=0)


def tar_member(name: str, kind: bytes = tarfile.REGTYPE, mode: int = 0o644,
               link: str = "") -> tarfile.TarInfo:
    """A tar header of this type."""
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.linkname = kind, mode, link
    return info


def token_of(user: User) -> str:
    """A new API token of `user`, its secret as shown once."""
    return ApiToken.issue(user)[1]


def submit(client: Client, secret: str | None, filename: str, data: bytes,
           command: str = "") -> Any:
    """POST /api/submit as `arena submit` does: multipart file and command, a Bearer token."""
    headers = {"Authorization": f"Bearer {secret}"} if secret is not None else {}
    return client.post("/api/submit", {"file": SimpleUploadedFile(filename, data),
                                       "command": command}, headers=headers)

