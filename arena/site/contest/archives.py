"""What an upload may hold: a `.py` file (UTF-8 text), or a `.zip` or `.tar.gz` archive of a
Python bot folder (`bot.py` at its root) or of a command bot in any language with its
command. An archive is read in memory, member by member, and judged by what it holds, never
by what its headers claim: sizes and the compression ratio are counted while reading, so a
bomb is refused before it is written anywhere. A refusal is one line naming the member.

Nothing here imports or runs a submission; the season unpacks a checked archive again
(`arena.site.contest.store.unpack`), through these same checks.
"""

from __future__ import annotations

import io
import posixpath
import re
import shlex
import stat
import tarfile
import unicodedata
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from arena.entrants import command_problem

__all__ = ["MEMBERS_LIMIT", "PY_LIMIT", "RATIO_LIMIT", "SUFFIXES", "UNPACKED_LIMIT",
           "UPLOAD_LIMIT", "ArchiveError", "Member", "TooLarge", "Upload", "check", "layout",
           "members", "parse_command", "split_name"]

PY_LIMIT = 512 * 1024
"""A `.py` upload's bytes at most."""
UPLOAD_LIMIT = 2 * 1024 * 1024
"""An archive's bytes at most, unless the site's settings say less (ARENA_SITE_UPLOAD_BYTES)."""
UNPACKED_LIMIT = 16 * 1024 * 1024
"""An archive's members' bytes at most, counted as they are read."""
MEMBERS_LIMIT = 500
RATIO_LIMIT = 100
"""A member (or a .tar.gz's stream) past 1 MiB that grew more than this from its compressed
bytes is a decompression bomb, whatever its size is to be."""
_RATIO_FLOOR = 1024 * 1024
_TAR_SLACK = 2 * 1024 * 1024
"""Room in a tar stream for its headers and padding beyond its members' bytes."""
_CHUNK = 64 * 1024
SUFFIXES = (".py", ".zip", ".tar.gz")
_MAGIC = {".zip": b"PK", ".tar.gz": b"\x1f\x8b"}
_COMMAND_WORDS = 32
_COMMAND_CHARS = 1000
_DRIVE = re.compile(r"[A-Za-z]:")
_TYPES = {stat.S_IFLNK: "a symlink", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket"}


class ArchiveError(ValueError):
    """An upload that is not a bot the site takes: one line its author can act on."""


class TooLarge(ArchiveError):
    """An upload of more bytes than the site takes (HTTP 413)."""


@dataclass(frozen=True, slots=True)
class Member:
    """A file of an archive: its path from the bot's root ('/'-separated), bytes, and mode."""

    path: str
    data: bytes
    executable: bool


@dataclass(frozen=True, slots=True)
class Upload:
    """What an accepted upload is: its bot's name, `file` or `archive`, and its command."""

    name: str
    kind: str
    command: tuple[str, ...]


def split_name(filename: str) -> tuple[str, str]:
    """An upload's name as its bot's name (the stem) and its suffix, or refused."""
    for suffix in SUFFIXES:
        if filename.endswith(suffix) and len(filename) > len(suffix):
            return filename[: -len(suffix)], suffix
    raise ArchiveError(f"{filename!a} is not a .py file, a .zip or a .tar.gz archive")


def check(filename: str, data: bytes, command: Sequence[str],
          limit: int = UPLOAD_LIMIT) -> Upload:
    """Whether `data`, sent as `filename` with `command`, is a bot the site takes."""
    name, suffix = split_name(filename)
    if suffix == ".py":
        _check_source(data)
        if command:
            raise ArchiveError("a .py file plays as a Python bot: a command is only for an "
                               "archive (.zip or .tar.gz) of a bot in another language")
        return Upload(name, "file", ())
    if len(data) > limit:
        raise TooLarge(f"the archive is {len(data):,} bytes, more than the site's limit "
                           f"of {limit:,}")
    if data[:2] != _MAGIC[suffix]:
        raise ArchiveError(f"{filename!a} does not hold a {suffix} archive")
    layout(members(data), command)
    return Upload(name, "archive", tuple(command))


def _check_source(data: bytes) -> None:
    """A bot file is UTF-8 text of at most PY_LIMIT bytes (a NUL is no Python source)."""
    if len(data) > PY_LIMIT:
        raise TooLarge(f"the .py file is {len(data):,} bytes, more than {PY_LIMIT:,} "
                           "(512 KiB)")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ArchiveError(f"the .py file is not UTF-8 text (byte {exc.start})") from None
    if b"\0" in data:
        raise ArchiveError("the .py file has a NUL byte: it is not Python source")


def parse_command(text: str) -> tuple[str, ...]:
    """A command as its words (`node bot.js` -> ('node', 'bot.js')), quoted as a shell would."""
    if len(text) > _COMMAND_CHARS or any(c < " " or c == "\x7f" for c in text):
        raise ArchiveError(f"the command must be one line of at most {_COMMAND_CHARS} "
                           "characters")
    try:
        words = tuple(shlex.split(text))
    except ValueError as exc:
        raise ArchiveError(f"the command cannot be read as words: {exc}") from None
    if len(words) > _COMMAND_WORDS:
        raise ArchiveError(f"the command has more than {_COMMAND_WORDS} words")
    return words


def layout(found: Sequence[Member], command: Sequence[str]) -> None:
    """An archive is a Python bot folder (bot.py at its root) or a command bot whose program
    is in it (named with a '/') or is an interpreter on this machine's PATH."""
    if not found:
        raise ArchiveError("the archive holds no file")
    files = {m.path: m for m in found}
    if not command:
        if "bot.py" not in files:
            raise ArchiveError("the archive has no bot.py at its root: a Python bot folder "
                               "needs one, a bot in another language its command (e.g. "
                               "node bot.js)")
        return
    program = command[0]
    if posixpath.isabs(program):
        problem = command_problem([program])
    elif "/" in program:
        problem = _archive_program(program, files)
    else:
        problem = command_problem([program])
        if problem is not None and program in files:
            problem += f" (a program in the archive is named with a '/': ./{program})"
    if problem is not None:
        raise ArchiveError(f"the command's {problem}")


def _archive_program(program: str, files: dict[str, Member]) -> str | None:
    """Why a program named with a '/' is not a runnable file of the archive, or None."""
    path = posixpath.normpath(program)
    if path == ".." or path.startswith("../"):
        return f"program {program!r} is outside the archive"
    member = files.get(path)
    if member is None:
        return f"program {program!r} is not in the archive"
    if not member.executable:
        return (f"program {program!r} is not executable in the archive (make it executable, "
                f"or name its interpreter first: sh {program})")
    return None


def members(data: bytes) -> list[Member]:
    """An archive's files, checked and with a single top-level folder stripped, or refused
    (which archive it is is read from its first bytes, never from its name)."""
    if data[:2] == _MAGIC[".zip"]:
        raw = list(_zip_members(data))
    elif data[:2] == _MAGIC[".tar.gz"]:
        raw = list(_tar_members(data))
    else:
        raise ArchiveError("the archive is neither a zip nor a gzip-compressed tar")
    return _stripped(_unique(raw))


def _zip_members(data: bytes) -> Iterator[tuple[str, Member | None]]:
    """Each zip member as (its name as written, the file or None for a folder)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
        raise ArchiveError(f"the .zip cannot be read: {exc}") from None
    _count(len(infos))
    total = 0
    for info in infos:
        name, mode = info.orig_filename, info.external_attr >> 16
        kind = stat.S_IFMT(mode)
        if kind in _TYPES:
            raise ArchiveError(f"member {name!a} is {_TYPES[kind]}: an upload holds only "
                               "files and folders")
        path = _path(name)
        if info.is_dir() or kind == stat.S_IFDIR:
            yield path, None
            continue
        if info.flag_bits & 0x1:
            raise ArchiveError(f"member {name!a} is encrypted")
        content = _read_zip_member(archive, info, total, min(info.compress_size, len(data)))
        total += len(content)
        yield path, Member(path, content, bool(mode & stat.S_IXUSR))


def _read_zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, before: int,
                     packed: int) -> bytes:
    """A member's bytes, counted while they are decompressed against the limits (`packed`:
    its compressed size, at most the archive's, whatever its header claims)."""
    out, what = bytearray(), f"member {info.orig_filename!a}"
    try:
        with archive.open(info) as stream:
            while chunk := stream.read(_CHUNK):
                out += chunk
                _bounded(what, before + len(out), len(out), packed)
    except (zipfile.BadZipFile, NotImplementedError, zlib.error, EOFError, OSError) as exc:
        raise ArchiveError(f"{what} cannot be read: {exc}") from None
    return bytes(out)


def _bounded(what: str, total: int, grown: int, packed: int) -> None:
    """Refuse as soon as the archive unpacks past its limit or a member past its ratio."""
    if total > UNPACKED_LIMIT:
        raise ArchiveError(f"the archive unpacks to more than {UNPACKED_LIMIT // 2**20} MiB "
                           f"(at {what})")
    if grown > _RATIO_FLOOR and grown > RATIO_LIMIT * max(packed, 1):
        raise ArchiveError(f"{what} grows more than {RATIO_LIMIT} times from its compressed "
                           "bytes: a decompression bomb is refused")


def _tar_members(data: bytes) -> Iterator[tuple[str, Member | None]]:
    """Each member of a .tar.gz as (its name as written, the file or None for a folder)."""
    try:
        archive = tarfile.open(fileobj=io.BytesIO(_gunzip(data)), mode="r:")  # noqa: SIM115
    except tarfile.TarError as exc:
        raise ArchiveError(f"the .tar.gz cannot be read: {exc}") from None
    with archive:
        count = total = 0
        while True:
            try:
                info = archive.next()
                if info is None:
                    return
                count += 1
                _count(count)
                path, member = _tar_member(archive, info)
            except tarfile.TarError as exc:
                raise ArchiveError(f"the .tar.gz cannot be read: {exc}") from None
            total += len(member.data) if member is not None else 0
            _bounded(f"member {info.name!a}", total, 0, 0)
            yield path, member


def _tar_member(archive: tarfile.TarFile, info: tarfile.TarInfo) -> tuple[str, Member | None]:
    """A tar member, if it is a plain file or folder."""
    kind = ("a symlink" if info.issym() else "a hard link" if info.islnk() else
            "a sparse file" if info.issparse() else None)
    if kind is None and not (info.isreg() or info.isdir()):
        kind = "a device, FIFO or other special file"
    if kind is not None:
        raise ArchiveError(f"member {info.name!a} is {kind}: an upload holds only files "
                           "and folders")
    path = _path(info.name)
    if info.isdir():
        return path, None
    stream = archive.extractfile(info)
    content = stream.read() if stream is not None else b""
    return path, Member(path, content, bool(info.mode & stat.S_IXUSR))


def _gunzip(data: bytes) -> bytes:
    """A .tar.gz's tar stream, decompressed no further than its limits allow."""
    inflate, out, pending = zlib.decompressobj(wbits=31), bytearray(), data
    try:
        while not inflate.eof:
            chunk = inflate.decompress(pending, _CHUNK)
            pending = inflate.unconsumed_tail
            if not chunk and not pending:
                break
            out += chunk
            _bounded("the tar stream", len(out) - _TAR_SLACK, len(out), len(data))
    except zlib.error as exc:
        raise ArchiveError(f"the .tar.gz is not gzip data: {exc}") from None
    if not inflate.eof or inflate.unused_data.strip(b"\0"):
        raise ArchiveError("the .tar.gz is cut short or has data after its end")
    return bytes(out)


def _count(count: int) -> None:
    if count > MEMBERS_LIMIT:
        raise ArchiveError(f"the archive has more than {MEMBERS_LIMIT} members")


def _path(name: str) -> str:
    """A member's name as a path inside the bot's folder, or refused naming it."""
    problem = _name_problem(name)
    if problem is not None:
        raise ArchiveError(f"member {name!a} {problem}")
    return "/".join(p for p in name.split("/") if p not in ("", "."))


def _name_problem(name: str) -> str | None:
    """What in a member's name could write outside the bot's folder or mislead, or None."""
    if "\0" in name:
        return "has a NUL in its name"
    if "\\" in name:
        return "has a backslash in its name (paths are written with '/')"
    if any(c < " " or c == "\x7f" for c in name):
        return "has a control character in its name"
    if name.startswith("/") or _DRIVE.match(name):
        return "is an absolute path"
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        return "climbs out of the archive with '..'"
    if any(p.startswith(".") for p in parts):
        return "is hidden (its name starts with '.'): leave it out of the upload"
    if any(len(p.encode("utf-8")) > 255 for p in parts):
        return "has a name longer than 255 bytes"
    return None


def _unique(raw: Sequence[tuple[str, Member | None]]) -> list[tuple[str, Member | None]]:
    """No two members one name, not even in another case or Unicode form, and no name both
    a file and a folder (unpacking one would overwrite or enter the other)."""
    files: dict[str, str] = {}
    folders: dict[str, str] = {}
    for path, member in raw:
        if not path:
            continue
        key = unicodedata.normalize("NFC", path).casefold()
        if member is not None:
            if key in files or key in folders:
                raise ArchiveError(f"member {path!a} is in the archive twice (names must "
                                   "differ in more than case)")
            files[key] = path
        folders.update({k: path for k in _parents(key)})
        if member is None:
            folders[key] = path
    clash = next((files[k] for k in folders if k in files), None)
    if clash is not None:
        raise ArchiveError(f"member {clash!a} is both a file and a folder")
    return [(path, member) for path, member in raw if path]


def _parents(key: str) -> list[str]:
    parts = key.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def _stripped(raw: Sequence[tuple[str, Member | None]]) -> list[Member]:
    """The files, without the one top-level folder an archive of a folder has."""
    files = [m for _, m in raw if m is not None]
    tops = {path.split("/")[0] for path, _ in raw}
    if len(tops) == 1 and all("/" in m.path for m in files):
        cut = len(next(iter(tops))) + 1
        files = [Member(m.path[cut:], m.data, m.executable) for m in files]
    return sorted(files, key=lambda m: m.path)
