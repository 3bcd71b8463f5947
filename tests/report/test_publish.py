"""`arena publish RESULTS_DIR OUT`: a played contest with a secret seed and a command bot
that writes its plans to stderr and crashes is copied for a web server. Nothing private
reaches OUT (the secret, the bot's code, its stderr, local paths), every link of the pages
resolves inside OUT, the pages work from OUT in a real browser, the results folder is left as
it was, and wrong places are one-line errors."""

from __future__ import annotations

import base64
import binascii
import gzip
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

EXAMPLE = Path(__file__).resolve().parents[2] / "bots" / "examples" / "example_bot.py"
SOURCE_MARK, STDERR_MARK = "BOT-SOURCE-MARKER", "STDERR-PRIVATE-LINE"
CONFIG = """\
name: contest
rules: dice
options: {{max_points: 2}}
entrants:
  - random
  - honest
  - {{command: [{python}, {bot}], alias: leaky}}
format: {{type: round-robin, seats: 2, games: 1}}
workers: 1
"""
PUBLIC = re.compile(r"(report\.html|viewer\.html|viewer-rules\.js|config\.yaml|games\.jsonl"
                    r"|standings\.(csv|md)|ratings\.json|crosstable\.csv|stages\.json|load\.json"
                    r"|replays/(rr-\d{6}\.json\.gz|pack-\d{5}\.js|chances/pack-\d{5}\.js))")
"""Every file a published round robin may hold (load.json: a run on a busy machine)."""


def leaky_bot(folder: Path) -> Path:
    """The example bot, which also writes its plans to stderr and crashes at its third
    decision in a process."""
    source = EXAMPLE.read_text()
    act = '            action = bot.act(message["observation"])\n'
    assert act in source
    source = source.replace(act, (
        f'            sys.stderr.write("{STDERR_MARK} bluff at pair K\\n")\n'
        "            sys.stderr.flush()\n"
        "            TURNS.append(1)\n"
        "            if len(TURNS) == 3:\n"
        "                raise SystemExit(3)\n" + act))
    future = "from __future__ import annotations\n"
    source = source.replace(future, future + "TURNS: list[int] = []\n")
    path = folder / "leaky_bot.py"
    path.write_text(f"# {SOURCE_MARK}\n{source}")
    return path


@pytest.fixture(scope="session")  # before the browser: see conftest
def contest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A played round robin with a drawn secret seed and the leaky bot, its report built."""
    root = tmp_path_factory.mktemp("contest")
    config = root / "contest.yaml"
    config.write_text(CONFIG.format(python=sys.executable, bot=leaky_bot(root)))
    run_tournament(load_tournament(config), root / "contest", workers=1)
    return root / "contest"


@pytest.fixture(scope="session")
def published(contest: Path) -> Path:
    before = snapshot(contest)
    result = CliRunner().invoke(cli, ["publish", str(contest), str(contest.parent / "site")])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"published: {contest.parent / 'site'}/report.html ({files(contest.parent / 'site')} "
        f"files, {result.output.split('files, ')[1].split(';')[0]}; 6 games)\n"
        f"left out of {contest}: secret\n")
    assert snapshot(contest) == before  # the results folder is only read
    return contest.parent / "site"


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(folder).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


def files(folder: Path) -> int:
    return sum(1 for p in folder.rglob("*") if p.is_file())


def texts(folder: Path) -> dict[str, str]:
    """Each file's text as a reader could get it: replays unzipped, and each base64 string
    of a viewer pack decoded and unzipped too."""
    out = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.name.endswith(".gz"):
            data = gzip.decompress(data)
        text = data.decode("utf-8", errors="replace")
        for blob in re.findall(r'"([A-Za-z0-9+/]{40,}={0,2})"', text):
            try:
                text += gzip.decompress(base64.b64decode(blob)).decode("utf-8", "replace")
            except (binascii.Error, OSError, EOFError):
                continue
        out[path.relative_to(folder).as_posix()] = text
    return out


def test_the_contest_holds_what_must_not_be_published(contest: Path) -> None:
    """The test is only worth something if the results folder does hold the private parts."""
    everything = "\n".join(texts(contest).values())
    assert STDERR_MARK in everything  # in the crash's fault message
    assert str(contest.parent) in everything  # the command's path, in config and replays
    assert (contest / "secret").is_file()


def test_nothing_private_is_published(contest: Path, published: Path) -> None:
    secret = (contest / "secret").read_text().strip()
    assert len(secret) >= 6
    seen = texts(published)
    assert sorted(name for name in seen if not PUBLIC.fullmatch(name)) == []
    for name, text in seen.items():
        assert secret not in text, name
        assert SOURCE_MARK not in text, name
        assert STDERR_MARK not in text, name
        assert str(contest.parent) not in text, name
        assert "/home/" not in text and "/tmp/" not in text, name
    assert "seed" not in seen["config.yaml"]
    assert "leaky_bot.py" in seen["config.yaml"]  # the bot's file name stays, not its path
    crash = [line for line in seen["games.jsonl"].splitlines() if '"crash"' in line]
    assert crash  # the fault is still published, without the bot's stderr


def test_every_link_of_the_published_pages_is_a_file_inside_it(published: Path) -> None:
    for page in ("report.html", "viewer.html"):
        html = (published / page).read_text()
        links = re.findall(r'(?:href|src)="([^"#]+)', html)
        assert links, page
        for link in links:
            assert "://" not in link and not link.startswith("/"), link
            target = (published / link).resolve()
            assert target.is_file() and published.resolve() in target.parents, link


def test_the_published_report_and_viewer_show_a_game(page: Any, published: Path) -> None:
    page.goto((published / "report.html").as_uri())
    assert page.locator("table.standings tbody tr").count() == 3
    page.click("#g-rows a >> nth=0")
    page.wait_for_selector("#game:not([hidden])")
    title = page.evaluate("() => document.getElementById('title').textContent")
    assert title.startswith("Game rr-")
    assert page.url.startswith((published / "viewer.html").as_uri())
    steps = page.evaluate("() => Number(document.getElementById('app').dataset.steps)")
    game = title.split()[-1]
    decisions = next(line for line in (published / "games.jsonl").read_text().splitlines()
                     if f'"id":"{game}"' in line).split('"decisions":')[1].split(",")[0]
    assert steps > int(decisions) > 0  # every decision is a step of the game shown


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["publish", *args])
    return result.exit_code, result.output


def error(message: str) -> tuple[int, str]:
    """What a refused place prints: one line, status 2."""
    return 2, f"arena: error: {message}\n"


def test_a_place_that_would_mix_with_the_results_or_lose_files_is_refused(
    contest: Path, published: Path, tmp_path: Path
) -> None:
    assert run(str(contest), str(contest / "web")) == error(
        f"{contest / 'web'}: inside the results folder {contest}; publish it "
        "elsewhere")
    assert run(str(contest), str(contest.parent)) == error(
        f"{contest.parent}: holds the results folder {contest}; publish it "
        "elsewhere")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    assert run(str(contest), str(tmp_path / "full")) == error(
        f"{tmp_path / 'full'}: exists and is not empty (--force replaces "
        "it)")
    assert (tmp_path / "full" / "notes.txt").read_text() == "mine"
    assert run(str(tmp_path), str(tmp_path / "out")) == error(
        f"{tmp_path}: not a results folder (no games.jsonl; `arena run` "
        "writes one)")
    assert run(str(tmp_path / "nowhere"), str(tmp_path / "out")) == error(
        f"{tmp_path / 'nowhere'}: no such results folder")
    assert not (tmp_path / "out").exists()


def test_force_replaces_a_published_copy_but_never_a_results_folder(
    contest: Path, published: Path, tmp_path: Path
) -> None:
    again = tmp_path / "again"
    assert run(str(contest), str(again))[0] == 0
    (again / "stale.txt").write_text("from before")
    code, output = run(str(contest), str(again), "--force", "--zip")
    assert code == 0, output
    assert not (again / "stale.txt").exists()
    assert f"archive: {tmp_path / 'again.zip'}\n" in output
    assert (tmp_path / "again.zip").stat().st_size > 0
    other = tmp_path / "other-results"
    other.mkdir()
    (other / "secret").write_text("1")
    assert run(str(contest), str(other), "--force") == error(
        f"{other}: is a results folder (it has a secret); --force replaces "
        "only a published copy")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again", "again.zip", "other-results"]


def test_a_replay_named_out_of_the_folder_or_through_a_link_is_refused(
    contest: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(contest, copy)
    log = (copy / "games.jsonl").read_text()
    (copy / "games.jsonl").write_text(log.replace('"replays/rr-000002.json.gz"', '"../secret"'))
    assert run(str(copy), str(tmp_path / "out")) == error(
        f"{copy / 'games.jsonl'}:2: its replay '../secret' is not a file under replays/")
    (copy / "games.jsonl").write_text(log)
    (copy / "replays" / "rr-000001.json.gz").unlink()
    (copy / "replays" / "rr-000001.json.gz").symlink_to(copy / "secret")
    assert run(str(copy), str(tmp_path / "out")) == error(
        f"{copy / 'replays' / 'rr-000001.json.gz'}: cannot read: a symbolic link or not a "
        "folder on its way; a replay is a regular file under the folder's replays/")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy"]  # nothing half written


def test_a_replay_folder_linked_elsewhere_or_a_linked_table_is_refused(
    contest: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(contest, copy)
    (copy / "replays").rename(tmp_path / "elsewhere")
    (copy / "replays").symlink_to(tmp_path / "elsewhere")
    assert run(str(copy), str(tmp_path / "out")) == error(
        f"{copy / 'replays' / 'rr-000001.json.gz'}: cannot read: a symbolic link or not a "
        "folder on its way; a replay is a regular file under the folder's replays/")
    (copy / "replays").unlink()
    (tmp_path / "elsewhere").rename(copy / "replays")
    (copy / "standings.md").unlink()
    (copy / "standings.md").symlink_to(copy / "secret")  # its text would be published
    assert run(str(copy), str(tmp_path / "out")) == error(
        f"{copy / 'standings.md'}: a symbolic link or not a folder on its way; not followed "
        "in a results folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy"]


def test_a_gzip_bomb_a_fifo_or_a_huge_replay_is_refused_in_one_line(
    contest: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(contest, copy)
    replay = copy / "replays" / "rr-000001.json.gz"
    replay.write_bytes(gzip.compress(b"\n" * ((64 << 20) + 1), compresslevel=9))
    assert replay.stat().st_size < 1 << 20
    assert run(str(copy), str(tmp_path / "out")) == error(
        f"{replay}: cannot read: unpacks to more than 64 MiB")
    replay.unlink()
    os.mkfifo(replay)  # a reader that opened it would wait for a writer for ever
    assert run(str(copy), str(tmp_path / "out")) == error(
        f"{replay}: cannot read: not a regular file")
    replay.unlink()
    with open(replay, "wb") as sparse:  # larger than any replay, without using the disk
        sparse.truncate((16 << 20) + 1)
    assert run(str(copy), str(tmp_path / "out")) == error(
        f"{replay}: cannot read: larger than 16 MiB")
    (copy / "games.jsonl").unlink()
    os.mkfifo(copy / "games.jsonl")
    assert run(str(copy), str(tmp_path / "out")) == error(
        f"{copy}: not a results folder (no games.jsonl; `arena run` writes one)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy"]
