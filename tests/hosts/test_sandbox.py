"""The sandbox (issue 13, items 2, 4, 8 and 9): each attack a hostile entrant tried is played
by a zoo bot in a real game, at the strongest level this machine gives, and must fail while
the innocent seats play on unharmed. The tests need bubblewrap and libseccomp (CI installs
them; `tests/needs.py` fails a test there when one is missing)."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from isolation_support import LIMITS, ZOO, reports, require_sandbox, zoo
from needs import require

from arena import play_game
from arena.bot import Limits
from arena.cli.main import cli
from arena.hosts import walls
from arena.hosts.pipe import CommandHost, PipeHost, ProcessHost
from arena.hosts.python_path import named_in_pth, site_path
from arena.hosts.sandbox import ARENA, UidLease, shown_at
from arena.referee import GameRecord, Player

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def sandbox_here() -> None:
    """Every test here needs a level with bubblewrap and seccomp."""
    require_sandbox()


def _play(seats: list[object], seed: int = 1, decision: float = 2.0) -> GameRecord:
    try:
        return play_game("dice", seats, seed=seed, limits=Limits(decision))
    finally:
        for seat in seats:
            if isinstance(seat, Player) and isinstance(seat.host, PipeHost):
                seat.host.shutdown()


def test_a_bot_that_unmounts_proc_sees_no_other_process_and_cannot_jam_a_pipe(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_SECRET_FOR_TEST", "the secret seed is 42")
    mole = ProcessHost(zoo("mole.py"), LIMITS)
    victim = ProcessHost("random", LIMITS)
    options = {"referee": os.getpid(), "secret": "the secret seed is 42"}
    record = _play([Player("mole", mole, options=options), Player("victim", victim), "random"])
    assert record.faults == ()  # the victim's pipe carried no junk: nobody forfeited
    [report] = reports(mole, "MOLE")
    assert report == {
        "umount": "Operation not permitted", "mount": "Operation not permitted",
        "unshare": "Operation not permitted", "visible": 0, "referee_cmdline": False,
        "secret": False, "other_bots": 0, "memory": 0, "ptrace": [], "vm_readv": [],
        "pipes_jammed": 0, "signal_referee": "No such process",
        "ptrace_parent": "Operation not permitted", "vm_readv_parent": "Operation not permitted"}


def test_a_bot_reads_and_writes_nothing_outside_its_own_file_and_its_tmp(
        tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    tmp_path.chmod(0o755)
    victim = shared / "victim.py"
    victim.write_text((ZOO / "peeker.py").read_text())
    victim.chmod(0o666)
    (shared / "games.jsonl").write_text("{}\n")
    (shared / "games.jsonl").chmod(0o666)
    guarded = [victim, shared / "games.jsonl", ARENA / "__init__.py"]
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in guarded}
    reads = [str(victim), str(shared), str(ROOT / "tests" / "hosts" / "test_sandbox.py"),
             str(ROOT / "configs" / "quickstart.yaml"), str(ZOO / "mole.py"), "/home",
             str(ARENA / "__init__.py")]
    writes = [str(victim), str(shared / "games.jsonl"), str(shared / "new.py"),
              str(ARENA / "__init__.py"), "/arena/arena/__init__.py", "/arena/arena/new.py",
              str(ZOO / "vandal.py")]
    vandal = ProcessHost(zoo("vandal.py"), LIMITS)
    record = _play([Player("vandal", vandal, options={"read": reads, "write": writes}),
                    "random", "random"])
    assert record.faults == ()
    [report] = reports(vandal, "VANDAL")
    assert report == {"read": dict.fromkeys(reads, False), "write": dict.fromkeys(writes, False)}
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in guarded} == before
    assert not (shared / "new.py").exists()


def test_a_bot_in_a_run_cannot_touch_games_jsonl_or_another_entrants_source(
        tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    student = tmp_path / "student.py"
    student.write_text(textwrap.dedent('''
        import arena

        class Student(arena.Bot):
            name = "student"

            def act(self, observation):
                if observation.is_legal(arena.Challenge()):
                    return arena.Challenge()
                return observation.legal_actions()[0]
    '''))
    student.chmod(0o666)
    source = student.read_bytes()
    out = tmp_path / "out"
    writes = [str(student), str(out / "games.jsonl"), str(out / "config.yaml")]
    config = tmp_path / "vandal.yaml"
    config.write_text(textwrap.dedent(f"""
        name: vandal
        rules: dice
        entrants:
          - bot: {student}
          - bot: {zoo("vandal.py")}
            options: {{write: {json.dumps(writes)}}}
        format: {{type: round-robin, seats: 2, games: 3}}
        seed: 5
    """))
    result = CliRunner().invoke(cli, ["run", str(config), "--out", str(out), "--workers", "1",
                                      "-q"])
    assert result.exit_code == 0, result.output
    assert student.read_bytes() == source
    lines = (out / "games.jsonl").read_text().splitlines()
    assert len(lines) == 6
    assert all('"faults":[]' in line and "vandal was here" not in line for line in lines)
    games = [json.loads(line) for line in lines]  # every line is the referee's own
    assert len({g["id"] for g in games}) == 6
    assert all(sorted(g["entrants"]) == ["student", "vandal"] for g in games)


def _colluders(tag: str, port: int) -> tuple[ProcessHost, ProcessHost, list[Player]]:
    tell, listen = ProcessHost(zoo("colluder.py"), LIMITS), ProcessHost(zoo("colluder.py"), LIMITS)
    seats = [Player("tell", tell, options={"role": "tell", "port": port, "tag": tag}),
             Player("listen", listen, options={"role": "listen", "port": port, "tag": tag})]
    return tell, listen, seats


def test_two_bots_at_one_table_pass_nothing_over_sockets_or_dev_shm() -> None:
    tag, port = f"t{os.getpid()}", random.randrange(20000, 40000)
    tell, listen, seats = _colluders(tag, port)
    record = _play([*seats], seed=1)
    assert record.faults == ()
    [told] = reports(tell, "TOLD")
    tcp = "Permission denied" if walls.level().uses("landlock") else "ok"  # Landlock: no TCP
    assert told == {"unix": "ok", "tcp": tcp, "shm": "ok"}  # each in its own sandbox
    heard = reports(listen, "COLLUDE")
    assert len(heard) >= 3
    assert all(h["unix"].startswith("error") and h["tcp"].startswith("error")
               and h["shm"].startswith("error") for h in heard), heard
    assert not Path(f"/dev/shm/arena-collude-{tag}").exists()
    with socket.socket(socket.AF_UNIX) as probe, pytest.raises(OSError):
        probe.connect(f"\0arena-{tag}")  # nothing listens in the host's namespace either


def test_an_entrant_allowed_the_network_may_use_loopback_tcp() -> None:
    tag, port = f"w{os.getpid()}", random.randrange(20000, 40000)
    walled = replace(LIMITS, network=True)
    tell = ProcessHost(zoo("colluder.py"), walled)
    listen = ProcessHost(zoo("colluder.py"), walled)
    _play([Player("tell", tell, options={"role": "tell", "port": port, "tag": tag}),
           Player("listen", listen, options={"role": "listen", "port": port, "tag": tag})])
    assert reports(tell, "TOLD")[0]["tcp"] == "ok"
    heard = reports(listen, "COLLUDE")
    # its hand, as JSON, once the teller (frozen while the listener decides) has answered
    assert any(h["tcp"].startswith("[") for h in heard), heard
    assert all(h["shm"].startswith("error") for h in heard)  # /dev/shm stays its own


def test_dev_shm_left_by_one_bot_process_is_gone_for_the_next() -> None:
    tag, port = f"n{os.getpid()}", random.randrange(20000, 40000)
    tell, _, seats = _colluders(tag, port)
    _play([seats[0], "random"], seed=2)
    assert reports(tell, "TOLD")[0]["shm"] == "ok"
    listen = ProcessHost(zoo("colluder.py"), LIMITS)
    _play([Player("listen", listen, options={"role": "listen", "port": port, "tag": tag}),
           "random"], seed=3)
    assert all(h["shm"] == "error: No such file or directory"
               for h in reports(listen, "COLLUDE"))


@pytest.mark.parametrize(("mode", "signal_name"),
                         [("segv", "SIGSEGV"), ("term", "SIGTERM"), ("abort", "SIGABRT"),
                          ("x32", "SIGSYS")])
def test_a_command_bot_that_signals_itself_dies_of_that_signal(
        mode: str, signal_name: str) -> None:
    host = CommandHost([sys.executable, zoo("self_signal.py"), mode], LIMITS)
    record = _play([Player("self", host), "random"])
    assert [(f.seat, f.kind) for f in record.faults] == [(0, "crash")]
    assert record.faults[0].message.startswith(f"killed by {signal_name}")
    assert record.result.placements == (2, 1)


@pytest.mark.parametrize("isolation", ["none", None])
def test_a_command_bot_starts_with_sigpipe_and_sigxfsz_at_their_defaults(
        isolation: str | None) -> None:
    require(shutil.which("bash"), "bash is not installed")
    script = f"echo TRAPS >&2; trap -p >&2; exec {sys.executable} {zoo('wire.py')} ok"
    command = ["bash", "-c", script]  # bash lists a signal ignored when it started as trapped
    host = CommandHost(command, replace(LIMITS, isolation=isolation))
    record = _play([Player("bash", host), "random"])
    assert record.faults == ()
    traps = host.stderr_tail().split("TRAPS", 1)[-1]
    assert "SIGPIPE" not in traps and "SIGXFSZ" not in traps, traps


def test_a_sandboxed_command_finds_its_own_program_through_proc_self_exe() -> None:
    """The dynamic loader finds a program's libraries beside it ($ORIGIN: java) through
    /proc/self/exe, which the sandbox's /proc (no procfs) keeps as a link to the program."""
    code = ("import os, sys; sys.stderr.write('EXE ' + os.readlink('/proc/self/exe') + '\\n'); "
            "os.execv(sys.executable, [sys.executable, sys.argv[1], 'ok'])")
    host = CommandHost([sys.executable, "-c", code, zoo("wire.py")], LIMITS)
    record = _play([Player("python", host), "random"])
    assert record.faults == ()
    assert f"EXE {shown_at(os.path.realpath(sys.executable))}\n" in host.stderr_tail()


def test_a_bot_runs_in_an_empty_private_tmp_with_a_clean_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_SECRET_FOR_TEST", "the dice are 9 9 9 9 9")
    host = ProcessHost(zoo("inspector.py"), LIMITS)
    record = _play([Player("i", host), "random"], seed=3)
    [report] = reports(host, "INSPECT")
    assert record.faults == ()
    assert report["cwd"] == "/tmp" and report["files"] == []  # wherever arena is installed
    assert "ARENA_SECRET_FOR_TEST" not in report["env"]
    assert report["limits"]["RLIMIT_AS"] == [LIMITS.memory] * 2


def test_a_sandboxed_bot_sees_the_path_and_builtins_site_gives(level: str) -> None:
    """Its interpreter starts without `site` (which costs a start more than all else), so
    what `site` would add is given: arena first, the standard library, then each
    site-packages folder with what its .pth files name, and `exit`, `help` and the rest."""
    host = ProcessHost(zoo("inspector.py"), replace(LIMITS, isolation=level))
    record = _play([Player("i", host), "random"], seed=3)
    [report] = reports(host, "INSPECT")
    assert record.faults == ()
    path, stdlib = report["path"], os.path.dirname(os.__file__)
    assert path[0] == "/arena" and stdlib in path, path
    sites = [path.index(shown_at(folder)) for folder in site_path()]
    assert sites == sorted(sites) and min(sites) > path.index(stdlib), path
    assert report["site_builtins"] == ["copyright", "credits", "exit", "help", "license", "quit"]


def test_a_sandbox_uid_held_by_another_referee_is_never_leased(tmp_path: Path) -> None:
    """Only the lock keeps two bots apart: a uid whose lock another process holds is
    skipped, however recently this referee gave it back, and each live lease has its own."""
    leases = [UidLease(tmp_path) for _ in range(3)]
    taken = leases[1].uid
    leases[1].release()
    other = os.open(tmp_path / str(taken), os.O_RDWR)  # another referee's bot takes it
    fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        fresh = UidLease(tmp_path)
        assert fresh.uid not in {taken, leases[0].uid, leases[2].uid}
    finally:
        os.close(other)
    fresh.release()
    again = UidLease(tmp_path)
    assert again.uid in {taken, fresh.uid}
    for lease in [leases[0], leases[2], again]:
        lease.release()


def test_the_path_given_for_site_is_the_one_site_makes(tmp_path: Path) -> None:
    """Each .pth line as `site` reads it: comments, blank lines and imports skipped, a
    relative or absolute folder added if it exists, once."""
    for name in ("inside", "beside"):
        (tmp_path / name).mkdir()
    (tmp_path / "a.pth").write_text(f"# a comment\n\ninside\nimport os\n{tmp_path}/beside\n")
    (tmp_path / "b.pth").write_text("missing\ninside\n")
    (tmp_path / ".hidden.pth").write_text("beside\n")
    made = subprocess.run(
        [sys.executable, "-I", "-S", "-c", ("import json, site, sys; before = list(sys.path); "
         f"site.addsitedir({str(tmp_path)!r}); print(json.dumps(sys.path[len(before):]))")],
        capture_output=True, text=True, check=True)
    assert [str(tmp_path), *named_in_pth(str(tmp_path))] == json.loads(made.stdout)


@pytest.fixture
def under_tmp() -> Iterator[Path]:
    """A folder under the host's own /tmp (whatever TMPDIR says), as an organiser's temp
    folder, a checkout or a venv there would be."""
    folder = Path(tempfile.mkdtemp(prefix="arena-organiser-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_bot_whose_file_lies_under_tmp_still_finds_its_tmp_empty(under_tmp: Path) -> None:
    bot = under_tmp / "inspector.py"
    shutil.copy(zoo("inspector.py"), bot)
    host = ProcessHost(str(bot), LIMITS)
    record = _play([Player("i", host), "random"], seed=3)
    [report] = reports(host, "INSPECT")
    assert record.faults == ()
    assert report["cwd"] == "/tmp" and report["files"] == []


def test_a_command_bot_under_tmp_runs_and_finds_its_tmp_empty(under_tmp: Path) -> None:
    wire = under_tmp / "wire.py"
    shutil.copy(zoo("wire.py"), wire)
    script = f"ls -A /tmp | sed 's/^/IN-TMP /' >&2; exec {sys.executable} {wire} ok"
    host = CommandHost(["sh", "-c", script], LIMITS)
    record = _play([Player("sh", host), "random"])
    assert record.faults == ()
    assert "IN-TMP" not in host.stderr_tail()


def _uid(pid: int | None) -> int:
    return Path(f"/proc/{pid}").stat().st_uid


def test_as_root_each_bot_process_at_a_table_runs_as_its_own_unprivileged_uid() -> None:
    require(walls.level().uses("uids"), "one uid per bot needs root and setpriv")
    hosts = [ProcessHost(zoo("inspector.py"), LIMITS) for _ in range(3)]
    try:
        play_game("dice", [Player(f"i{n}", h) for n, h in enumerate(hosts)], seed=1)
        uids = [_uid(h.process.handle.bot_pid) for h in hosts if h.process is not None]
    finally:
        for host in hosts:
            host.shutdown()
    assert len(set(uids)) == 3
    assert all(61000 <= uid < 65000 for uid in uids)


OTHER_REFEREE = """
import sys
from arena import play_game
from arena.hosts.pipe import ProcessHost, ProcessLimits
from arena.referee import Player
hosts = [ProcessHost(sys.argv[1], ProcessLimits(start_timeout=20.0)) for _ in range(3)]
play_game("dice", [Player(f"i{n}", h) for n, h in enumerate(hosts)], seed=2)
print(" ".join(str(h.process.handle.bot_pid) for h in hosts), flush=True)
sys.stdin.read()
for host in hosts:
    host.shutdown()
"""


def test_two_referees_on_one_machine_never_give_two_live_bots_one_uid() -> None:
    require(walls.level().uses("uids"), "one uid per bot needs root and setpriv")
    import subprocess

    other = subprocess.Popen([sys.executable, "-c", OTHER_REFEREE, zoo("inspector.py")],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    hosts = [ProcessHost(zoo("inspector.py"), LIMITS) for _ in range(3)]
    try:
        assert other.stdout is not None
        theirs = [int(pid) for pid in other.stdout.readline().split()]
        play_game("dice", [Player(f"i{n}", h) for n, h in enumerate(hosts)], seed=1)
        ours = [h.process.handle.bot_pid for h in hosts if h.process is not None]
        uids = [_uid(pid) for pid in [*theirs, *ours]]
    finally:
        for host in hosts:
            host.shutdown()
        other.communicate("", timeout=30)
    assert len(uids) == 6 and len(set(uids)) == 6
