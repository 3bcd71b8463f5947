"""docs/tutorial.md cannot rot: every file it says to save is saved and every command it
shows is run, in order, in an empty folder, through a shell with the real `arena`; each
command's exit status and the lines the page quotes are checked against what it printed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "tutorial.md"
FENCE = re.compile(r"^(<!-- save: (?P<save>\S+) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)^```",
                   re.DOTALL | re.MULTILINE)  # fmt: skip
LEAGUE_GAMES = 10
"""Deals per grade's bot in the suite's league (the page's `games: 80` is a 25 to 40 s run)."""


@dataclass(frozen=True)
class Block:
    """A fenced block of the page: a file to save, commands to type, or output it quotes."""

    lang: str
    body: str
    save: str | None


def blocks() -> list[Block]:
    """The page's fenced blocks, in order."""
    text = PAGE.read_text(encoding="utf-8")
    return [Block(m["lang"], m["body"], m["save"]) for m in FENCE.finditer(text)]


def quoted(after: str) -> list[str]:
    """The lines of the first plain block after the command block holding `after`."""
    found = False
    for block in blocks():
        if block.lang == "sh" and after in block.body:
            found = True
        elif found and block.lang == "":
            return [line for line in block.body.splitlines() if line != "..."]
    raise AssertionError(f"no quoted output after {after!r}")


def shell(command: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """Run one command as the reader would, with this interpreter's `arena` on the PATH, on
    one CPU: a reader's machine of one core, where `arena run` and `arena compare` play on
    one worker (what the page shows is the same on any number: the results folder's bytes
    and compare's verdict do not depend on the workers) and start no worker processes."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    cpu = min(os.sched_getaffinity(0))
    return subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600, check=False,
                          preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))  # fmt: skip


def test_the_first_bot_is_the_one_of_the_bot_page() -> None:
    page = (ROOT / "docs" / "writing-a-bot.md").read_text(encoding="utf-8")
    first = re.search(r"```python\n(.*?)```", page, re.DOTALL)
    assert first is not None
    saved = [b for b in blocks() if b.save == "my_bot.py"]
    assert saved[0].body == first.group(1)
    assert len(saved) == 2 and saved[1].body != saved[0].body  # the improved bot


def test_every_file_and_command_of_the_tutorial_works_as_it_says(tmp_path: Path) -> None:
    ran: list[str] = []
    for block in blocks():
        if block.save is not None:
            body = block.body
            if block.save == "league.yaml":  # the one long command: fewer deals
                assert "  games: 80\n" in body
                body = body.replace("  games: 80\n", f"  games: {LEAGUE_GAMES}\n")
            (tmp_path / block.save).write_text(body, encoding="utf-8")
        if block.lang != "sh":
            continue
        for command in block.body.splitlines():
            result = shell(command, tmp_path)
            check(command, result, tmp_path)
            ran.append(command)
    assert ran == [
        "arena check-bot ./my_bot.py",
        "arena run sparring.yaml",
        "arena replay results/sparring rr-000001 --seat 0",
        "cp my_bot.py first_bot.py",
        "arena check-bot ./my_bot.py",
        "arena compare ./my_bot.py ./first_bot.py --seed 1 --trust",
        "arena compare ./my_bot.py honest --seed 1 --trust",
        "arena compare ./my_bot.py statistician --seed 1 --trust",
        "arena run league.yaml",
    ]


def check(command: str, result: subprocess.CompletedProcess[str], folder: Path) -> None:
    """What the page says of each command is what it did."""
    said = f"{command}: exit {result.returncode}\n{result.stdout}{result.stderr}"
    lines = result.stdout.splitlines()
    if command.startswith("arena check-bot"):
        assert result.returncode == 0, said
        assert all(line.startswith("✓") for line in lines[:-1]), said
        if "dice-cards" in lines[0]:  # the first bot: the page's lines, but for the time
            shown = quoted("arena check-bot ./my_bot.py")
            assert [x for x in shown if x not in lines] == [shown[-4]], said
            assert shown[-4].startswith("✓ answers in time"), shown
    elif command.startswith("arena compare"):
        against = command.split()[3]
        expected = [x for x in quoted("arena compare ") if f" than {against}: " in x]
        assert lines[-1:] == expected, said
        assert result.returncode == (1 if " worse: " in expected[0] else 0), said
    elif command == "arena run sparring.yaml":
        assert result.returncode == 0, said
        for name in ("report.html", "viewer.html", "replays/rr-000001.json.gz"):
            assert (folder / "results" / "sparring" / name).is_file(), name
    elif command.startswith("arena replay"):
        assert result.returncode == 0, said
        assert "\n".join(quoted("arena replay")) in result.stdout, said
    elif command == "arena run league.yaml":
        assert result.returncode == 0, said
        page = quoted("arena run league.yaml")[0]
        assert lines[-1].startswith("grade: student reached pass: beat honest ("), said
        assert page.startswith("grade: student reached pass: beat honest ("), page
        for name in ("grades.json", "grades.csv"):
            assert (folder / "results" / "league" / name).is_file(), name
    else:
        assert command == "cp my_bot.py first_bot.py" and result.returncode == 0, said


@pytest.mark.parametrize("page", ["README.md"])
def test_the_readme_links_the_tutorial_first(page: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    links = re.findall(r"\]\((docs/[\w-]+\.md)[)#]", text)
    assert links[0] == "docs/tutorial.md"
    assert {"docs/tutorial.md", "docs/teaching.md", "docs/ci.md"} <= set(links)
