"""`arena doctor` and the isolation levels: exact output with every wall faked away at its
boundary (the program on PATH, the kernel's answers, the files read), a real run, and a
`strict` run on a machine missing a wall, which is refused in one line before any bot starts."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from needs import require

from arena.cli.main import cli
from arena.hosts import cgroups, landlock, seccomp, walls
from arena.hosts.process_tree import started_tokens
from arena.replay import read_replay

ZOO = Path(__file__).resolve().parents[1] / "hosts" / "zoo"


def _invoke(*args: object) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(autouse=True)
def fresh_survey() -> Iterator[None]:
    """Each test looks at the machine anew (the survey is cached per process)."""
    walls.survey.cache_clear()
    cgroups.controllers.cache_clear()
    yield
    walls.survey.cache_clear()
    cgroups.controllers.cache_clear()


def _missing(monkeypatch: pytest.MonkeyPatch, *programs: str) -> None:
    real = walls.find_program
    monkeypatch.setattr(walls, "find_program",
                        lambda name: None if name in programs else real(name))


def _bare_machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A machine with no wall: no programs, no libseccomp, no Landlock, no cgroups."""
    _missing(monkeypatch, "bwrap", "setpriv")
    (tmp_path / "max_user_namespaces").write_text("0\n")
    monkeypatch.setattr(walls, "USER_NAMESPACES", tmp_path / "max_user_namespaces")
    monkeypatch.setattr(seccomp, "library", lambda: None)
    monkeypatch.setattr(seccomp, "filter_bpf", seccomp.filter_bpf.__wrapped__)
    monkeypatch.setattr(landlock, "abi", lambda: 0)
    monkeypatch.setenv("ARENA_NO_CGROUPS", "1")


def test_doctor_on_a_machine_without_any_wall_says_what_each_would_stop_and_how_to_get_it(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _bare_machine(monkeypatch, tmp_path)
    result = _invoke("doctor")
    assert result.exit_code == 0
    assert result.output == textwrap.dedent("""\
        missing bubblewrap: not installed
                stops: a bot sees only the interpreter, arena's launcher and its own file, in its own PID, IPC, UTS and network namespaces
                install: apt-get install bubblewrap
        missing user namespaces: max 0
                stops: bubblewrap without root (arena as an ordinary user)
                install: sysctl user.max_user_namespaces=15000
        missing seccomp: libseccomp not found
                stops: mount, ptrace, process_vm_*, new namespaces, keyrings, bpf, modules
                install: apt-get install libseccomp2
        missing Landlock: none
                stops: writing outside /tmp and /dev/shm; TCP (ABI 4); abstract sockets and signals out of the sandbox (ABI 6)
                install: a kernel with CONFIG_SECURITY_LANDLOCK=y and lsm=landlock (Linux 5.13+)
        missing cgroups: none writable
                stops: a bot's total memory, processes and CPU, its helpers' included
                install: run arena as root, or delegate a cgroup v2 subtree with memory, pids and cpu (systemd-run --user --scope -p Delegate=yes)
        missing one uid per bot: not root: every bot shares this user's uid
                stops: bots at one table signalling, reading or tracing each other as the same user
                install: run arena as root (util-linux setpriv: apt-get install util-linux)
        level: none: no sandbox, for bots you trust only
        strict would need: bubblewrap, seccomp, Landlock, cgroups, one uid per bot
        standard would need: bubblewrap, seccomp
    """)  # noqa: E501 - the lines as printed


def test_doctor_on_this_machine_names_every_wall_and_the_level_it_supports() -> None:
    result = _invoke("doctor")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert [line.split(":")[0].split(None, 1)[1] for line in lines
            if line.startswith(("found", "missing"))] == [w.name for w in walls.survey()]
    assert f"level: {walls.strongest()}: " in result.output


def _config(tmp_path: Path, extra: str = "") -> Path:
    config = tmp_path / "iso.yaml"
    config.write_text(textwrap.dedent(f"""
        name: iso
        rules: dice
        entrants:
          - random
          - bot: {ZOO / "inspector.py"}
        format: {{type: round-robin, seats: 2, games: 1}}
        seed: 3
    """) + extra)
    return config


@pytest.mark.parametrize("given", [["--isolation", "strict"], []])
def test_strict_on_a_machine_without_bubblewrap_is_refused_before_any_bot_starts(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, given: list[str]) -> None:
    _missing(monkeypatch, "bwrap")
    config = _config(tmp_path, "" if given else "isolation: strict\n")
    before = started_tokens()
    for command in ("run", "validate"):
        out = ["--out", tmp_path / "out"] if command == "run" else []
        result = _invoke(command, config, *out, *given)
        assert result.exit_code == 2
        assert result.output == ("arena: error: isolation strict needs bubblewrap, which is "
                                 "missing here (not installed): apt-get install bubblewrap\n")
    assert started_tokens() == before
    assert not (tmp_path / "out").exists()


def test_an_unknown_isolation_level_in_a_config_is_one_line(tmp_path: Path) -> None:
    result = _invoke("validate", _config(tmp_path, "isolation: paranoid\n"))
    assert result.exit_code == 2
    assert result.output == (f"arena: error: {tmp_path / 'iso.yaml'}:9: isolation: unknown "
                             "isolation level 'paranoid' (expected one of: none, standard, "
                             "strict)\n")


@pytest.mark.parametrize("level", ["none", None])
def test_the_level_used_is_printed_and_written_in_the_replays_and_the_saved_config(
        tmp_path: Path, level: str | None) -> None:
    out = tmp_path / "out"
    result = _invoke("run", _config(tmp_path), "--out", out, "--workers", "1",
                     *(["--isolation", level] if level else []))
    assert result.exit_code == 0, result.output
    used = level or walls.strongest()
    assert f"arena: isolation: {walls.level(used).describe()}\n" in result.stderr
    seats = [read_replay(p).header["entrants"] for p in sorted(out.glob("replays/*.json.gz"))]
    assert {s["name"]: s.get("isolation") for game in seats for s in game} == {
        "random": None, "inspector": used}
    assert f"isolation: {used}\n" in (out / "config.yaml").read_text()


def test_standard_without_libseccomp_is_refused_naming_it(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(seccomp, "library", lambda: None)
    monkeypatch.setattr(seccomp, "filter_bpf", seccomp.filter_bpf.__wrapped__)
    result = _invoke("validate", _config(tmp_path), "--isolation", "standard")
    assert result.exit_code == 2
    assert result.output == ("arena: error: isolation standard needs seccomp, which is missing "
                             "here (libseccomp not found): apt-get install libseccomp2\n")


def test_without_landlock_the_default_is_standard_and_a_bot_still_plays_walled_in(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    require(walls.strongest() != "none", "bubblewrap and libseccomp are needed here")
    monkeypatch.setattr(landlock, "abi", lambda: 0)
    walls.survey.cache_clear()
    assert "level: standard: " in _invoke("doctor").output
    out = tmp_path / "out"
    result = _invoke("run", _config(tmp_path), "--out", out, "--workers", "1")
    assert result.exit_code == 0, result.output
    assert "arena: isolation: standard (bubblewrap" in result.stderr
    seats = read_replay(next(out.glob("replays/*.json.gz"))).header["entrants"]
    assert seats[1]["isolation"] == "standard"


def test_compare_says_the_isolation_its_bot_processes_run_at_and_none_when_all_are_inline(
        ) -> None:
    napper = ZOO / "napper.py"
    walled = _invoke("compare", napper, "random", "--games", "2", "--workers", "1",
                     "--seed", "1", "--isolation", "none")
    assert "\nisolation   none (" in walled.output, walled.output
    inline = _invoke("compare", "honest", "random", "--games", "2", "--workers", "1",
                     "--seed", "1")
    assert "isolation" not in inline.output


def test_strict_as_an_ordinary_user_without_cgroups_names_every_missing_wall(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_NO_CGROUPS", "1")
    monkeypatch.setattr(walls.os, "geteuid", lambda: 1000)
    result = CliRunner().invoke(cli, ["play", "--bots", "random,random", "--seed", "1",
                                      "--isolation", "strict"])
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith("arena: error: isolation strict needs 2 walls missing here: ")
    assert "cgroups (" in line and "one uid per bot (not root" in line
    assert "run arena as root" in line
