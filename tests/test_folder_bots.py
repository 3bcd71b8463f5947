"""Bot folders (`DIR/`, its bot.py with DIR importable): they play inline and sandboxed,
import their own modules, and can read nothing outside their folder: a symlink inside is
refused at load, and in bubblewrap another folder bot's files are not there to read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from needs import require

from arena.cli.main import cli
from arena.entrants import EntrantError, Reference, resolve
from arena.hosts import walls
from arena.plugins import PluginError, bot_from_folder

BOT = '''import arena
import helpers
from tactics.opening import first


class Folder(arena.Bot):
    name = "folder"

    def act(self, obs):
        return helpers.choose(obs, first)
'''
HELPERS = '''import arena


def choose(obs, first):
    """Challenge when it may, else the first legal claim."""
    if obs.can_challenge:
        return arena.Challenge()
    return first(obs)
'''
OPENING = '''def first(obs):
    return obs.legal_claims[0]
'''
READER = '''import arena
from pathlib import Path


class Reader(arena.Bot):
    """Reads a file outside its folder at load: it must not see it."""
    name = "reader"
    try:
        said = Path(__file__).resolve().parent.joinpath({target!r}).read_text()
    except OSError as exc:
        said = type(exc).__name__
    def act(self, obs):
        raise RuntimeError("saw:" + self.said)
'''


def _folder(root: Path, name: str = "alice", bot: str = BOT) -> Path:
    """A bot folder with a sibling module and a sub-package, readable by a bot's uid."""
    folder = root / name
    (folder / "tactics").mkdir(parents=True)
    (folder / "bot.py").write_text(bot)
    (folder / "helpers.py").write_text(HELPERS)
    (folder / "tactics" / "__init__.py").write_text("")
    (folder / "tactics" / "opening.py").write_text(OPENING)
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755)
    return folder


def _play(*bots: str, trust: bool = False) -> str:
    args = ["play", "--bots", ",".join(bots), "--seed", "3", *(["--trust"] if trust else [])]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return result.output


def test_a_folder_bot_plays_inline_and_imports_its_own_modules(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    assert Reference(str(folder) + "/").kind == "folder"
    assert bot_from_folder(folder).name == "folder"
    assert "folder" in _play(f"{folder}/", "random", trust=True)


def test_a_folder_bot_plays_sandboxed_the_same_game(tmp_path: Path) -> None:
    require(walls.strongest() != "none", "bubblewrap and libseccomp are needed")
    folder = _folder(tmp_path)
    assert _play(str(folder), "random") == _play(str(folder), "random", trust=True)


def test_a_folder_without_bot_py_is_one_clear_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("x").mkdir()
    with pytest.raises(EntrantError) as caught:
        resolve(Reference("x/"))
    assert str(caught.value) == f"bot folder 'x' has no bot.py: looked at {tmp_path}/x/bot.py"


def test_a_folder_holding_a_symlink_is_refused(tmp_path: Path, monkeypatch) -> None:
    secret = tmp_path / "secret"
    secret.write_text("the organiser's key")
    monkeypatch.chdir(tmp_path)
    _folder(Path("entries"), bot=READER.format(target="leak"))
    os.symlink(secret, "entries/alice/leak")
    said = f"bot folder 'entries/alice' holds a symlink (leak -> {secret}); a bot folder " \
           "must hold its own files"
    with pytest.raises(PluginError, match="holds a symlink") as caught:
        bot_from_folder(Path("entries/alice"))
    assert str(caught.value) == said
    result = CliRunner().invoke(cli, ["play", "--bots", "entries/alice,random", "--seed", "1"])
    assert result.exit_code != 0 and said in result.output
    assert "organiser" not in result.output


def test_a_sandboxed_folder_bot_cannot_read_another_folder_bot(tmp_path: Path) -> None:
    require(walls.strongest() != "none", "bubblewrap and libseccomp are needed")
    _folder(tmp_path, "bob")
    reader = _folder(tmp_path / "x", "eve", READER.format(target="../../bob/helpers.py"))
    (tmp_path / "x").chmod(0o755)
    result = CliRunner().invoke(cli, ["play", "--bots", f"{reader},random", "--seed", "1"])
    assert "saw:FileNotFoundError" in result.output, result.output
    assert "Challenge when it may" not in result.output


CONFIG = '''name: folders
rules: dice
entrants:
  - bot: entries/alice
  - {bot: ./entries/alice/, alias: alice2}
  - random
format: {type: round-robin, seats: 2, games: 1}
seed: 1
'''


def _config(tmp_path: Path) -> Path:
    _folder(tmp_path / "entries")
    (tmp_path / "t.yaml").write_text(CONFIG)
    return tmp_path / "t.yaml"


def test_a_config_names_a_folder_relative_to_itself(tmp_path: Path, monkeypatch) -> None:
    config = _config(tmp_path)
    monkeypatch.chdir(tmp_path.parent)
    result = CliRunner().invoke(cli, ["validate", str(config.relative_to(tmp_path.parent))])
    assert result.exit_code == 0, result.output
    bot = f"{tmp_path.name}/entries/alice/bot.py"
    assert result.stderr.startswith("arena: warning: the config writes seed: 1 and ")
    assert result.stdout == (
        "ok: 3 entrants, 6 games\n"
        f"entrant 'alice' (process, file {bot}): says it is 'folder', plays dice, dice-cards, "
        "cards\n"
        f"entrant 'alice2' (process, file {bot}): says it is 'folder', plays dice, dice-cards, "
        "cards\n")


def test_a_config_run_plays_folder_bots_inline(tmp_path: Path, monkeypatch) -> None:
    config = _config(tmp_path)
    config.write_text(CONFIG.replace("- bot: entries/alice\n", "- {bot: entries/alice, "
                                     "mode: inline}\n"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["run", "t.yaml", "--out", "out", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert len((tmp_path / "out" / "games.jsonl").read_text().splitlines()) == 6


def test_a_folder_bot_is_refused_on_a_cluster_in_one_line() -> None:
    from arena.tournament.config import EntrantConfig
    from arena.tournament.run.shipment import folder_refusal

    entrants = [EntrantConfig(name="alice", bot="entries/alice")]
    assert folder_refusal(entrants) == ("bot folder 'entries/alice' cannot play on a cluster "
                                        "(arena ships bot files, not folders): play it without "
                                        "--cluster")
