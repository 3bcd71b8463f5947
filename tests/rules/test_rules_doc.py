"""The examples in docs/rules.md run and print what the page says they print."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

from arena.rules import RULESETS

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_the_hands_api_examples_are_true() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert blocks, "docs/rules.md has no python examples"
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(verbose=False)
    for number, block in enumerate(blocks):
        runner.run(parser.get_doctest(block, {}, f"rules.md block {number}", str(DOC), 0))
    assert runner.summarize(verbose=False).failed == 0


def test_the_option_table_matches_the_option_specs() -> None:
    text = DOC.read_text(encoding="utf-8")
    for rules in RULESETS.values():
        for spec in rules.option_specs:
            default = str(spec.default).lower()
            pattern = rf"^\| `{spec.name}` \|[^|]*\| `{re.escape(default)}` \|"
            row = re.search(pattern, text, re.MULTILINE)
            assert row, f"docs/rules.md: no option row for {spec.name} with default {default}"
            assert rules.id in row.group(0) or "| all |" in row.group(0)
