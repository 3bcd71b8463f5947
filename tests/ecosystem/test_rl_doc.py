"""docs/rl.md's examples run as written: each ```python block of the page, in order."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.needs import require

PAGE = Path(__file__).resolve().parents[2] / "docs" / "rl.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(encoding="utf-8"),
                    re.DOTALL | re.MULTILINE)  # fmt: skip


def test_the_page_has_its_two_examples() -> None:
    assert len(BLOCKS) == 2
    assert "arena.pettingzoo" in BLOCKS[0]
    assert "arena.openspiel" in BLOCKS[1]


@pytest.mark.parametrize("number", range(len(BLOCKS)), ids=["pettingzoo", "openspiel-cfr"])
def test_an_example_runs_and_prints_what_the_page_says(number: int, tmp_path: Path) -> None:
    for package in ("pettingzoo", "pyspiel"):
        try:
            __import__(package)
        except ImportError:
            require(False, f"{package} is not installed (the test extra has it)")
    script = tmp_path / "example.py"  # saved and run as a reader would
    script.write_text(BLOCKS[number], encoding="utf-8")
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, check=False)
    assert ran.returncode == 0, ran.stderr
    printed = ran.stdout
    expected = ("random policy against statistician: -1.00 a game" if number == 0
                else "after 9 9 9 9 9 the thrower's most likely claim: claim ")
    assert printed.startswith(expected)
