"""/starter-kit.zip, made in memory: the first bot of docs/writing-a-bot.md (a test keeps the
two the same), a README with `arena check-bot` and `arena submit` filled in with this site's
address, and the contest's rules as `arena help rules` tells them."""

from __future__ import annotations

import io
import zipfile
from importlib import resources

from arena.primer import rules_help
from arena.rules import get_rules
from arena.site.contest.contest import Contest

__all__ = ["BOT_FILE", "bot_template", "readme", "starter_kit"]

BOT_FILE = "my_bot.py"
TEMPLATE_RULES = ("dice", "dice-cards")
"""The rule sets the template bot plays (its class's `rules`)."""
STAMP = (2020, 1, 1, 0, 0, 0)
"""Every member's date: the same contest gives the same bytes."""


def bot_template() -> str:
    """The template bot's source (docs/writing-a-bot.md's first bot)."""
    return resources.files("arena.site.contest").joinpath("starter", "my_bot.txt") \
        .read_text(encoding="utf-8")


def readme(contest: Contest, site: str) -> str:
    """How to check and send a bot to this site, step by step."""
    rules = contest.config.rules
    lines = [
        f"Starter kit for {contest.name} ({site})",
        "",
        f"The contest plays {rules}: RULES.txt says how a game goes, every claim, and the",
        "options in force.",
        "",
        f"1. Rename {BOT_FILE}: a bot's name on the site is its file's name without .py",
        "   (letters, digits, - and _), and each name belongs to one participant.",
        "2. Install arena from its source folder (pip knows it as liars-poker-arena; the",
        "   package index's `arena` is an unrelated project) and check the bot as the site will:",
        "     python -m pip install -e ARENA_SOURCE_FOLDER",
        f"     arena check-bot {BOT_FILE}",
        "   Play it yourself against it, or against a house bot:",
        f"     arena play --rules {rules} --bots ./{BOT_FILE},human",
        "3. Send it: upload it on the site's upload page, or make a token on your account",
        "   page and run",
        f"     arena submit {BOT_FILE} --server {site} --token YOUR_TOKEN",
        "   Its page on the site then shows check-bot's checklist, its validation deal and",
        "   its games. Send it again after a change: new bytes are a new version.",
        "",
        "docs/writing-a-bot.md in arena tells what an observation holds and every action.",
    ]
    if rules not in TEMPLATE_RULES:
        lines += ["", (f"Note: {BOT_FILE} plays {' and '.join(TEMPLATE_RULES)}; for {rules}, "
                       "answer the decisions of that rule set too (docs/writing-a-bot.md).")]
    return "\n".join(lines) + "\n"


def _member(archive: zipfile.ZipFile, name: str, text: str) -> None:
    info = zipfile.ZipInfo(f"starter-kit/{name}", STAMP)
    info.external_attr = 0o644 << 16
    archive.writestr(info, text.encode("utf-8"), zipfile.ZIP_DEFLATED)


def starter_kit(contest: Contest, site: str) -> bytes:
    """The kit's zip bytes for this contest, the commands naming `site`."""
    ruleset = get_rules(contest.config.rules)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        _member(archive, "README.txt", readme(contest, site))
        _member(archive, BOT_FILE, bot_template())
        _member(archive, "RULES.txt", "\n".join(rules_help(ruleset,
                                                           contest.config.options)) + "\n")
    return buffer.getvalue()
