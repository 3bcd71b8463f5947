"""`arena submit FILE --server URL`: upload a bot to a contest site's /api/submit with the
participant's token (the standard library's urllib only). A folder is zipped in memory, the
same folder always to the same bytes, so sending it again unchanged makes no new version."""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import secrets
import stat
import sys
import zipfile
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit

import click

from arena.cli.main import CONTEXT, EXIT_REFEREE_FAILED, fail

__all__ = ["submit"]

_SKIPPED = ("__pycache__",)
"""Folders of a bot that are never its own: Python's caches."""


@click.command(context_settings=CONTEXT)
@click.argument("file", type=click.Path(exists=True, path_type=Path))
@click.option("--server", required=True, metavar="URL",
              help="The contest site, e.g. https://contest.example.org.")
@click.option("--token", envvar="ARENA_TOKEN", metavar="TOKEN",
              help="Your API token from the site's account page (default: $ARENA_TOKEN).")
@click.option("--command", default="", metavar="WORDS",
              help="For an archive or folder of a bot in another language: the words that "
                   "run it from its folder, e.g. 'node bot.js'.")
def submit(file: Path, server: str, token: str | None, command: str) -> None:
    """Upload FILE (a .py file, a .zip or .tar.gz archive, or a bot folder) as a new version
    of the bot its name names (alice.py is alice)."""
    parts = urlsplit(server)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        fail(f"--server must be an http:// or https:// address, got {server!r}")
    if not token:
        fail("a token is needed: --token TOKEN or ARENA_TOKEN (make one on the site's "
             "account page)")
    filename, data = _payload(file)
    base = server.rstrip("/")
    answer = _post(f"{base}/api/submit", str(token), filename, data, command)
    page = base + str(answer.get("page", ""))
    if answer.get("same"):
        click.echo(f"{_printable(answer.get('note', ''))}; its page: {_printable(page)}")
    else:
        said = f"uploaded {answer.get('bot')}@{answer.get('version')}: {answer.get('status')}"
        click.echo(f"{_printable(said)}; its page: {_printable(page)}")


def _payload(file: Path) -> tuple[str, bytes]:
    """The file's name and bytes; a folder as `NAME.zip`, zipped in memory."""
    if not file.is_dir():
        return file.name, file.read_bytes()
    name = file.resolve().name
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for part in _own_files(file):
            info = zipfile.ZipInfo(part.relative_to(file).as_posix(), (1980, 1, 1, 0, 0, 0))
            executable = part.stat().st_mode & stat.S_IXUSR
            info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, part.read_bytes())
    return f"{name}.zip", out.getvalue()


def _own_files(folder: Path) -> list[Path]:
    """A bot folder's files, by path; a symlink is refused (it is not the bot's own), hidden
    names and caches are left out (the site refuses hidden names)."""
    found = []
    for part in sorted(folder.rglob("*")):
        relative = part.relative_to(folder).parts
        if any(p.startswith(".") or p in _SKIPPED for p in relative):
            continue
        if part.is_symlink():
            fail(f"{part} is a symlink: an upload holds only the bot's own files")
        if part.is_file():
            found.append(part)
    return found


def _post(url: str, token: str, filename: str, data: bytes, command: str) -> dict[str, Any]:
    """POST the multipart upload; the server's JSON answer, or exit with its one line."""
    body, content_type = _multipart(filename, data, command)
    parts = urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = kind(parts.netloc, timeout=120)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": content_type,
               "Accept": "application/json"}
    try:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            # refused before it was all sent (too large): the answer says so
            connection.request("POST", parts.path, body, headers)
        response = connection.getresponse()
        status, raw = response.status, response.read()
    except (OSError, http.client.HTTPException) as exc:
        _unreachable(url, str(exc) or type(exc).__name__)
    finally:
        connection.close()
    answer = _json(raw)
    if status < 300:
        return answer
    said = str(answer.get("error") or _STATUS.get(status, f"the server answered HTTP {status}"))
    if status >= 500:
        _unreachable(url, f"the server failed (HTTP {status}): {said}")
    fail(f"refused: {said}")
    raise AssertionError("unreachable")


_STATUS = {413: "the upload is larger than the site takes (HTTP 413)",
           429: "too many uploads: try again later (HTTP 429)"}
"""What a refusal without the site's own line (a proxy's or the web server's) means."""


def _unreachable(url: str, why: str) -> NoReturn:
    """The server could not take the upload: not the bot's fault; try again (exit 75)."""
    click.echo(f"arena: cannot reach {_printable(url)}: {_printable(why)}; nothing was "
               "uploaded, try again later", err=True)
    sys.exit(EXIT_REFEREE_FAILED)


def _json(raw: bytes) -> dict[str, Any]:
    try:
        found = json.loads(raw)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _multipart(filename: str, data: bytes, command: str) -> tuple[bytes, str]:
    """A multipart/form-data body of the file and the command."""
    boundary = "arena-" + secrets.token_hex(16)
    quoted = "".join(c if c >= " " and c not in '"\\' else "_" for c in filename)
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"command\"\r\n\r\n"
            f"{command}\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
            f"filename=\"{quoted}\"\r\nContent-Type: application/octet-stream\r\n\r\n")
    tail = f"\r\n--{boundary}--\r\n"
    return (head.encode("utf-8") + data + tail.encode("utf-8"),
            f"multipart/form-data; boundary={boundary}")


def _printable(text: object) -> str:
    """Text from the server, shown so it cannot drive the terminal."""
    from arena.hosts.inline import printable

    return printable(str(text))

