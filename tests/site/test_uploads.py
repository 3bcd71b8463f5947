"""How bots arrive: a .py file or an archive (a Python bot folder, or a command bot with its
command) from the upload form or the API becomes a bot's next `received` version, its bytes
kept once by sha256 in the data folder's store, private to the site; the season unpacks an
archive from there through the same checks."""

from __future__ import annotations

import hashlib
import stat
import tarfile
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from upload_support import BOT, submit, tar_member, tar_of, token_of, zip_of

from arena.site.contest import archives, store
from arena.site.contest.contest import Contest
from arena.site.contest.models import Bot, Version


def test_a_py_file_becomes_the_first_received_version_of_its_bot(contest: Contest,
                                                                  alice: User) -> None:
    response = submit(Client(), token_of(alice), "sparrow.py", BOT)
    assert response.status_code == 201
    assert response.json() == {"bot": "sparrow", "version": 1, "status": "received",
                               "page": "/bots/sparrow"}
    version = Version.objects.get()
    sha = hashlib.sha256(BOT).hexdigest()
    assert (version.bot.owner, version.entrant, version.kind, version.sha256, version.size,
            version.filename) == (alice, "sparrow@1", "file", sha, len(BOT), "sparrow.py")
    kept = contest.store / sha[:2] / sha
    assert kept.read_bytes() == BOT
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
    assert [p.name for p in kept.parent.iterdir()] == [sha]  # no temporary file left


def test_new_bytes_are_the_next_version(contest: Contest, alice: User) -> None:
    secret = token_of(alice)
    for n in (1, 2, 3):
        answer = submit(Client(), secret, "sparrow.py", BOT + f"# {n}\n".encode()).json()
        assert answer["version"] == n
    assert [v.entrant for v in Version.objects.all()] == ["sparrow@1", "sparrow@2", "sparrow@3"]


def test_the_form_uploads_and_sends_its_participant_to_the_bots_page(signed_in: Client,
                                                                      alice: User) -> None:
    page = signed_in.get("/upload")
    assert page.status_code == 200 and 'enctype="multipart/form-data"' in page.content.decode()
    response = signed_in.post("/upload", {"file": SimpleUploadedFile("sparrow.py", BOT),
                                          "command": "",
                                          "csrfmiddlewaretoken": page.context["csrf_token"]})
    assert response.status_code == 302 and response["Location"] == "/bots/sparrow"
    assert Bot.objects.get().owner == alice
    again = signed_in.get("/upload")
    assert '<a href="/bots/sparrow">sparrow</a>' in again.content.decode()


def test_a_refusal_on_the_form_is_its_one_line(signed_in: Client) -> None:
    page = signed_in.get("/upload")
    response = signed_in.post("/upload", {"file": SimpleUploadedFile("sparrow.zip", b"PK.."),
                                          "csrfmiddlewaretoken": page.context["csrf_token"]})
    assert response.status_code == 400
    assert 'role="alert">the .zip cannot be read' in response.content.decode()


def test_a_python_bot_folder_is_stripped_of_its_one_top_folder(contest: Contest,
                                                               alice: User, tmp_path: Path) -> None:
    data = zip_of({"sparrow/": b"", "sparrow/bot.py": BOT, "sparrow/lib/util.py": b"X = 1\n"})
    answer = submit(Client(), token_of(alice), "sparrow.zip", data).json()
    version = Version.objects.get(bot__name=answer["bot"])
    assert (version.kind, version.command) == ("archive", [])
    written = store.unpack(version.sha256, tmp_path / "bot")
    assert [m.path for m in written] == ["bot.py", "lib/util.py"]
    assert (tmp_path / "bot" / "bot.py").read_bytes() == BOT
    assert stat.S_IMODE((tmp_path / "bot" / "lib" / "util.py").stat().st_mode) == 0o600


def test_a_command_bot_runs_a_program_of_its_archive_or_an_interpreter(
        contest: Contest, alice: User, tmp_path: Path) -> None:
    secret = token_of(alice)
    data = tar_of([(tar_member("wren/run.sh", mode=0o755), b"#!/bin/sh\n"),
                   (tar_member("wren/bot.js"), b"//\n")])
    response = submit(Client(), secret, "wren.tar.gz", data, "./run.sh --fast")
    assert response.status_code == 201, response.content
    version = Version.objects.get()
    assert (version.kind, version.command) == ("archive", ["./run.sh", "--fast"])
    store.unpack(version.sha256, tmp_path / "wren", version.command)
    assert stat.S_IMODE((tmp_path / "wren" / "run.sh").stat().st_mode) == 0o700
    assert submit(Client(), secret, "finch.zip", zip_of({"bot.js": b"//\n"}),
                  "sh 'bot.js'").status_code == 201


READER_REFUSES = pytest.mark.any_database(
    "refused by the archive's or the command's reader before any row but its counted attempt"
    " is written; the token's look-up, the attempts' count and the versions written run on"
    " PostgreSQL in test_upload_attacks.py and the tests above")


@READER_REFUSES
@pytest.mark.parametrize(("command", "words"), [
    ("./bot.js", "not executable in the archive"),
    ("./missing", "'./missing' is not in the archive"),
    ("../../bin/sh", "outside the archive"),
    ("no-such-interpreter-35 bot.js", "is not on the PATH"),
    ("bot.js", "./bot.js"),
    ("node 'bot.js", "cannot be read as words"),
    ("x\ny", "one line"),
])
def test_a_command_that_cannot_run_is_refused_in_one_line(contest: Contest, alice: User,
                                                          command: str, words: str) -> None:
    response = submit(Client(), token_of(alice), "wren.zip", zip_of({"bot.js": b"//\n"}),
                      command)
    assert response.status_code == 400 and words in response.json()["error"]


@READER_REFUSES
@pytest.mark.parametrize(("filename", "data", "command", "words"), [
    ("sparrow.py", BOT, "python3 sparrow.py", "a command is only for an archive"),
    ("sparrow.py", b"\xff\xfe", "", "not UTF-8"),
    ("sparrow.py", b"x = 1\0", "", "NUL"),
    ("sparrow.zip", zip_of({"main.py": BOT}), "", "no bot.py at its root"),
    ("sparrow.zip", zip_of({"empty/": b""}), "", "holds no file"),
    ("sparrow.tar.gz", zip_of({"bot.py": BOT}), "", "does not hold a .tar.gz"),
    ("sparrow.zip", tar_of([(tar_member("bot.py"), BOT)]), "", "does not hold a .zip"),
])
def test_an_upload_that_is_no_bot_is_refused(contest: Contest, alice: User, filename: str,
                                              data: bytes, command: str, words: str) -> None:
    response = submit(Client(), token_of(alice), filename, data, command)
    assert response.status_code == 400 and words in response.json()["error"]


def test_a_disabled_bot_takes_no_new_version(contest: Contest, alice: User) -> None:
    secret = token_of(alice)
    submit(Client(), secret, "sparrow.py", BOT)
    Bot.objects.update(disabled=True)
    response = submit(Client(), secret, "sparrow.py", BOT + b"#\n")
    assert response.status_code == 403
    assert response.json() == {"error": "the bot 'sparrow' is disabled by the organiser: it "
                                        "takes no new version"}


def test_the_api_takes_only_a_post(contest: Contest, alice: User) -> None:
    response = Client().get("/api/submit", headers={"Authorization": f"Bearer {token_of(alice)}"})
    assert response.status_code == 405


def test_unpack_checks_the_kept_bytes_and_the_archive_again(contest: Contest,
                                                            tmp_path: Path) -> None:
    sha = store.put(zip_of({"bot.py": BOT, "../x.py": BOT}))
    with pytest.raises(archives.ArchiveError, match=r"'\.\.'"):
        store.unpack(sha, tmp_path / "out")
    assert not (tmp_path / "out").exists() and not (tmp_path / "x.py").exists()
    good = store.put(zip_of({"bot.py": BOT}))
    store.location(good).write_bytes(zip_of({"bot.py": b"import os\n"}))
    with pytest.raises(store.StoreError, match="does not hold the bytes of its name"):
        store.unpack(good, tmp_path / "out")
    with pytest.raises(store.StoreError, match="is not a sha256"):
        store.location("../../secret-key")


def test_put_keeps_bytes_once_and_mends_a_damaged_copy(contest: Contest) -> None:
    sha = store.put(BOT)
    assert store.put(BOT) == sha and store.read(sha) == BOT
    store.location(sha).write_bytes(b"damaged")
    assert store.put(BOT) == sha and store.read(sha) == BOT


def test_the_archive_kinds_are_told_by_their_bytes_not_their_names() -> None:
    tarball = tar_of([(tar_member("bot.py"), BOT)])
    assert [m.path for m in archives.members(tarball)] == ["bot.py"]
    with pytest.raises(archives.ArchiveError, match="neither a zip nor"):
        archives.members(b"\x7fELF")


def test_an_archive_of_a_folders_contents_or_of_the_folder_unpacks_the_same() -> None:
    dotted = tar_of([(tar_member(".", tarfile.DIRTYPE, 0o755), b""),
                     (tar_member("./bot.py"), BOT), (tar_member("./lib/x.py"), b"")])
    folder = zip_of({"sparrow/bot.py": BOT, "sparrow/lib/x.py": b""})
    two_tops = zip_of({"bot.py": BOT, "lib/x.py": b""})
    for data in (dotted, folder, two_tops):
        assert [m.path for m in archives.members(data)] == ["bot.py", "lib/x.py"]
    assert [m.path for m in archives.members(zip_of({"a/bot.py": BOT, "b/x.py": b""}))] == \
        ["a/bot.py", "b/x.py"]
