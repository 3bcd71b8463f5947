"""Attacks on how bots arrive (issue 35, Security): an upload without a token, with a wrong,
revoked or another participant's; a session cookie without its CSRF token, or alone at the
API; archives with paths out of their folder, links, devices, duplicate names or a bomb; an
oversized upload; a flood; a name that impersonates another; markup in a name. Each is
refused with one line, and nothing of it is kept."""

from __future__ import annotations

import io
import random
import stat
import tarfile
import unicodedata
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from test_serve import served as served  # noqa: PLC0414  # the fixture: arena serve
from upload_support import BOT, submit, tar_member, tar_of, token_of, zip_of, zip_with_duplicates

from arena.cli.main import cli
from arena.site.contest import archives
from arena.site.contest.contest import Contest
from arena.site.contest.models import ApiToken, Bot, UploadAttempt, Version

REFUSED_UNREAD = pytest.mark.any_database(
    "refused by the CSRF check, the sign-in, the archive's reader or the size limit before any"
    " row but its counted attempt is written; attempts are counted on PostgreSQL by the rate"
    " tests, tokens, names and versions by the others here")


def _stored(contest: Contest) -> list[Path]:
    return [p for p in contest.store.rglob("*") if p.is_file()] if contest.store.exists() else []


def _refused(response: object, status: int, *words: str) -> str:
    """The API's one-line refusal, checked."""
    assert response.status_code == status, response.content  # type: ignore[attr-defined]
    error = response.json()["error"]  # type: ignore[attr-defined]
    assert "\n" not in error and all(w in error for w in words), error
    return str(error)


# --- who may upload --------------------------------------------------------------------

@pytest.mark.parametrize("secret", [None, "", "arena_not-a-token", "Basic YWxpY2U6cHc="])
def test_the_api_refuses_an_upload_without_a_valid_token(contest: Contest, alice: User,
                                                         secret: str | None) -> None:
    response = submit(Client(), secret, "sparrow.py", BOT)
    _refused(response, 401, "token")
    assert response["WWW-Authenticate"] == "Bearer"
    assert not Bot.objects.exists() and not _stored(contest)


def test_a_revoked_token_or_a_deactivated_participant_uploads_nothing(contest: Contest,
                                                                       alice: User) -> None:
    row, revoked = ApiToken.issue(alice)
    row.revoked = timezone.now()
    row.save()
    active = token_of(alice)
    _refused(submit(Client(), revoked, "sparrow.py", BOT), 401)
    alice.is_active = False
    alice.save()
    _refused(submit(Client(), active, "sparrow.py", BOT), 401)
    assert not Version.objects.exists()


def test_another_participants_token_cannot_add_a_version_to_a_bot(contest: Contest,
                                                                  alice: User, bob: User) -> None:
    assert submit(Client(), token_of(alice), "sparrow.py", BOT).status_code == 201
    for name in ("sparrow.py", "Sparrow.py", "SPARROW.zip"):
        error = _refused(submit(Client(), token_of(bob), name, BOT + b"# bob's\n"), 400,
                         "another participant's bot")
        assert "alice" not in error  # never who owns it
    sparrow = Bot.objects.get()
    assert sparrow.owner == alice and sparrow.versions.count() == 1


@REFUSED_UNREAD
def test_a_session_cookie_alone_never_authorises_the_api(signed_in: Client) -> None:
    response = signed_in.post("/api/submit", {"file": SimpleUploadedFile("sparrow.py", BOT)})
    _refused(response, 401, "token")
    assert not Bot.objects.exists()


@REFUSED_UNREAD
def test_the_upload_form_refuses_a_session_without_its_csrf_token(signed_in: Client) -> None:
    response = signed_in.post("/upload", {"file": SimpleUploadedFile("sparrow.py", BOT)})
    assert response.status_code == 403
    assert not Bot.objects.exists() and not UploadAttempt.objects.exists()


@REFUSED_UNREAD
def test_the_upload_form_needs_a_signed_in_participant(contest: Contest, db: None) -> None:
    client = Client()
    assert client.get("/upload").status_code == 302
    response = client.post("/upload", {"file": SimpleUploadedFile("sparrow.py", BOT)})
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert not Bot.objects.exists()


# --- what an archive may hold -----------------------------------------------------------

def _nul_zip() -> bytes:
    """A zip whose member's name has a NUL (zipfile cuts names at one, so it is patched in)."""
    return zip_of({"bot.py": BOT, "evilXbot.py": BOT}).replace(b"evilXbot.py", b"evil\0bot.py")


ARCHIVES = {
    "climbs out": (zip_of({"bot.py": BOT, "../escape.py": BOT}), "'..'"),
    "climbs out deeper": (zip_of({"bot.py": BOT, "a/./../../escape.py": BOT}), "'..'"),
    "absolute": (zip_of({"bot.py": BOT, "/etc/cron.d/x": BOT}), "absolute"),
    "a drive": (zip_of({"bot.py": BOT, "C:/x.py": BOT}), "absolute"),
    "backslash": (zip_of({"bot.py": BOT, "..\\..\\x.py": BOT}), "backslash"),
    "NUL": (_nul_zip(), "NUL"),
    "newline": (zip_of({"bot.py": BOT, "a\nb.py": BOT}), "control"),
    "zip symlink": (zip_of({"bot.py": BOT, "link": b"/etc/passwd"},
                           {"link": stat.S_IFLNK | 0o777}), "symlink"),
    "zip FIFO": (zip_of({"bot.py": BOT, "pipe": b""}, {"pipe": stat.S_IFIFO | 0o644}), "FIFO"),
    "zip device": (zip_of({"bot.py": BOT, "dev": b""}, {"dev": stat.S_IFCHR | 0o644}),
                   "device"),
    "tar symlink": (tar_of([(tar_member("bot.py"), BOT),
                            (tar_member("x", tarfile.SYMTYPE, link="/etc/passwd"), b"")]),
                    "symlink"),
    "tar hard link": (tar_of([(tar_member("bot.py"), BOT),
                              (tar_member("x", tarfile.LNKTYPE, link="/etc/passwd"), b"")]),
                      "hard link"),
    "tar device": (tar_of([(tar_member("bot.py"), BOT), (tar_member("d", tarfile.CHRTYPE), b"")]),
                   "device"),
    "tar FIFO": (tar_of([(tar_member("bot.py"), BOT), (tar_member("f", tarfile.FIFOTYPE), b"")]),
                 "FIFO"),
    "tar climbs out": (tar_of([(tar_member("bot.py"), BOT), (tar_member("../../x.py"), BOT)]),
                       "'..'"),
    "duplicate": (zip_with_duplicates("bot.py", 2), "twice"),
    "case duplicate": (zip_of({"bot.py": BOT, "Util.py": BOT, "util.py": BOT}), "twice"),
    "unicode duplicate": (zip_of({"bot.py": BOT, unicodedata.normalize("NFC", "é.py"): BOT,
                                  unicodedata.normalize("NFD", "é.py"): BOT}), "twice"),
    "file and folder": (zip_of({"bot.py": BOT, "lib": BOT, "lib/x.py": BOT}),
                        "both a file and a folder"),
    "hidden": (zip_of({"bot.py": BOT, ".env": b"SECRET=1"}), "hidden"),
    "too many members": (zip_of({"bot.py": BOT} | {f"m{n}.py": b"" for n in range(500)}),
                         "more than 500 members"),
    "no bot.py": (zip_of({"main.py": BOT}), "bot.py"),
    "not an archive": (b"PKnot really a zip at all", "cannot be read"),
}


@REFUSED_UNREAD
@pytest.mark.parametrize("case", sorted(ARCHIVES))
def test_an_archive_member_that_could_escape_or_mislead_is_refused_naming_it(
        contest: Contest, alice: User, case: str) -> None:
    data, words = ARCHIVES[case]
    suffix = ".tar.gz" if data[:2] == b"\x1f\x8b" else ".zip"
    _refused(submit(Client(), token_of(alice), f"sparrow{suffix}", data), 400, words)
    assert not Bot.objects.exists() and not _stored(contest)


@REFUSED_UNREAD
def test_a_zip_bomb_is_refused_while_it_is_read(contest: Contest, alice: User) -> None:
    bomb = zip_of({"bot.py": BOT, "data.bin": bytes(64 * 2**20)})
    assert len(bomb) < 100_000
    _refused(submit(Client(), token_of(alice), "sparrow.zip", bomb), 400, "data.bin")
    assert not _stored(contest)


@REFUSED_UNREAD
def test_a_tar_bomb_and_many_small_members_past_the_total_are_refused(contest: Contest,
                                                                       alice: User) -> None:
    secret = token_of(alice)
    bomb = tar_of([(tar_member("bot.py"), BOT), (tar_member("data.bin"), bytes(64 * 2**20))])
    _refused(submit(Client(), secret, "sparrow.tar.gz", bomb), 400, "bomb")
    noise = random.Random(35).randbytes(300 * 2**16)  # 300 members of 64 KiB that do not compress
    many = zip_of({"bot.py": BOT} | {f"part{n}.bin": noise[n << 16:(n + 1) << 16]
                                     for n in range(300)})
    with pytest.raises(archives.ArchiveError, match="more than 16 MiB"):
        archives.members(many)
    assert not _stored(contest)


@REFUSED_UNREAD
def test_a_zip_whose_headers_lie_about_sizes_is_read_by_what_it_holds(alice: User) -> None:
    honest = zip_of({"bot.py": BOT, "data.bin": bytes(64 * 2**20)})
    archive = zipfile.ZipFile(io.BytesIO(honest))
    info = archive.getinfo("data.bin")
    lying = honest.replace(info.file_size.to_bytes(4, "little"), (100).to_bytes(4, "little"))
    with pytest.raises(archives.ArchiveError):
        archives.members(lying)


# --- size and rate ----------------------------------------------------------------------

@REFUSED_UNREAD
def test_an_oversized_upload_is_413_before_it_is_read(contest: Contest, signed_in: Client,
                                                      alice: User) -> None:
    big = zip_of({"bot.py": BOT}) + bytes(2 * 2**20)
    _refused(submit(Client(), token_of(alice), "sparrow.zip", big), 413, "limit")
    _refused(submit(Client(), token_of(alice), "sparrow.py", b"#" * (512 * 1024 + 1)), 413,
             "512 KiB")
    page = signed_in.get("/upload")
    form = {"file": SimpleUploadedFile("sparrow.zip", big),
            "csrfmiddlewaretoken": page.context["csrf_token"]}
    assert signed_in.post("/upload", form).status_code == 413
    assert not Bot.objects.exists() and not _stored(contest)


@REFUSED_UNREAD
def test_a_body_that_says_it_is_too_long_is_refused_unread(contest: Contest, signed_in: Client,
                                                           alice: User) -> None:
    says = {"CONTENT_LENGTH": str(100 * 2**20)}  # the test client's body cannot give that much
    headers = {"Authorization": f"Bearer {token_of(alice)}"}
    sent = {"file": SimpleUploadedFile("sparrow.py", BOT)}
    assert Client().post("/api/submit", sent, headers=headers, **says).status_code == 413
    assert signed_in.post("/upload", sent, **says).status_code == 413
    assert not UploadAttempt.objects.exists()


def test_the_21st_upload_in_an_hour_is_429_refused_ones_counting_too(contest: Contest,
                                                                      alice: User,
                                                                      bob: User) -> None:
    secret = token_of(alice)
    for n in range(10):
        assert submit(Client(), secret, "sparrow.py", BOT + f"# {n}\n".encode()).status_code \
            == 201
    for _ in range(10):
        assert submit(Client(), secret, "sparrow.exe", BOT).status_code == 400
    _refused(submit(Client(), secret, "sparrow.py", BOT + b"# 21\n"), 429, "20 uploads an hour")
    assert submit(Client(), token_of(bob), "wren.py", BOT).status_code == 201  # bob's own hour
    UploadAttempt.objects.filter(user=alice).update(
        at=timezone.now() - timedelta(minutes=61))
    assert submit(Client(), secret, "sparrow.py", BOT + b"# 21\n").status_code == 201


def test_the_rate_is_a_setting(contest: Contest, alice: User, settings: object) -> None:
    settings.ARENA_SITE_UPLOADS_PER_HOUR = 2  # type: ignore[attr-defined]
    secret = token_of(alice)
    assert submit(Client(), secret, "sparrow.py", BOT).status_code == 201
    assert submit(Client(), secret, "sparrow.py", BOT).status_code == 200
    _refused(submit(Client(), secret, "sparrow.py", BOT), 429, "at most 2 uploads an hour")


# --- names ------------------------------------------------------------------------------

@pytest.mark.parametrize(("filename", "words"), [
    ("Honest.py", "differs only in case from"),
    ("h\u043enest.py", "CYRILLIC SMALL LETTER O"),
    ("random.py", "'random'"),
    ("statistician.zip", "the bot 'statistician'"),
    ("alice@2.py", "version separator"),
    ("-x.py", "starts with"),
    ("a b.py", "' '"),
    (f"{'x' * 65}.py", "longer than 64"),
    ("bot.exe", "is not a .py file"),
    (".py", "is not a .py file"),
])
def test_a_name_that_impersonates_or_breaks_the_ladders_rules_is_refused(
        contest: Contest, alice: User, filename: str, words: str) -> None:
    data = BOT if filename.endswith(".py") else zip_of({"bot.py": BOT})
    _refused(submit(Client(), token_of(alice), filename, data), 400, words)
    assert not Bot.objects.exists()


def test_ones_own_bot_in_another_case_is_refused_too(contest: Contest, alice: User) -> None:
    secret = token_of(alice)
    assert submit(Client(), secret, "sparrow.py", BOT).status_code == 201
    _refused(submit(Client(), secret, "Sparrow.py", BOT + b"#\n"), 400, "your bot 'sparrow'")


@REFUSED_UNREAD
def test_markup_in_a_file_name_is_escaped_on_the_upload_page(signed_in: Client) -> None:
    page = signed_in.get("/upload")
    evil = "<img src=x onerror=alert(1)>.py"
    response = signed_in.post("/upload", {
        "file": SimpleUploadedFile(evil, BOT), "command": "<script>alert(2)</script>",
        "csrfmiddlewaretoken": page.context["csrf_token"]})
    text = response.content.decode()
    assert response.status_code == 400
    assert "<img src=x" not in text and "<script>alert(2)" not in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert not Bot.objects.exists()


def test_the_same_bytes_twice_make_no_new_version(contest: Contest, alice: User) -> None:
    secret = token_of(alice)
    first = submit(Client(), secret, "sparrow.py", BOT)
    again = submit(Client(), secret, "sparrow.py", BOT)
    assert first.status_code == 201 and again.status_code == 200
    assert again.json() == {"bot": "sparrow", "version": 1, "status": "received",
                            "page": "/bots/sparrow", "same": True,
                            "note": "the same bytes as sparrow@1 (received): no new version"}
    assert Version.objects.count() == 1 and len(_stored(contest)) == 1


def test_the_served_site_refuses_an_oversized_body_at_its_door(
        served: tuple[object, str, Path], tmp_path: Path) -> None:
    """waitress would otherwise spool any body up to 1 GiB to disk before the site saw it;
    `arena submit` reads its refusal though the connection closes before all is sent."""
    _, base, _ = served
    bot = tmp_path / "sparrow.zip"
    bot.write_bytes(b"PK" + bytes(8 * 2**20))
    result = CliRunner().invoke(cli, ["submit", str(bot), "--server", base, "--token", "t"])
    assert result.exit_code == 2, result.output
    assert result.stderr == ("arena: error: refused: the upload is larger than the site takes "
                             "(HTTP 413)\n")
