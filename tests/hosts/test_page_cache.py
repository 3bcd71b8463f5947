"""The page cache (issue 38, item 1): two sandboxed bots at one table passed the sender's whole
hand, exactly, within one decision, by evicting pages of a file every sandbox shares and
asking the kernel which were still resident. At `strict` and `standard` every call that
evicts a shared page or tells whether one is resident without reading it is refused (EPERM),
so the listener hears nothing, and a bot that allocates and frees memory as usual plays on.

With reads alone, a pair still passed a hand by timing: the receiver's first read of a page
nobody had read comes from the disk, one the sender read from the cache. So every file a
sandboxed bot can read is shown from memory (tmpfs images, `arena.hosts.view`): no page it
reads was ever cold, and the pair's timings say nothing."""

from __future__ import annotations

import ctypes
import importlib.util
import os
import shutil
import sys
from dataclasses import replace
from pathlib import Path

from isolation_support import LIMITS, reports, zoo
from needs import require

from arena import play_game
from arena.bot import Limits
from arena.hosts.pipe import PipeHost, ProcessHost
from arena.hosts.sandbox import shown_at
from arena.referee import GameRecord, Player

SHARED_SIZE = 24 * 1024 * 1024
"""The pager's regions (one per channel, and one for the rest of the class: 16 blocks of
256 KiB each) fit in a file this big."""
FELT_SIZE = 72 * 1024 * 1024
"""The feeler's regions (past the pager's: 15 pages for each of its probes, a stride apart)
fit in a file this big."""



REFUSED = ("error: EPERM", "error: ENOSYS")
"""How the filter answers a call of the class (or one it needs first)."""


def _pair_folder(tmp_path: Path, bot: str, size: int) -> tuple[str, str]:
    """One bot folder for both entrants of a pair: the zoo bot and a large data file; its
    path, and the data file's as the bots see it. (Nothing else a bot reads is a file of a
    disk both share: its interpreter's files come from memory, and each bot reads its own
    copy of its folder; the calls below are refused whatever they name.)"""
    folder = tmp_path / bot.removesuffix(".py")
    folder.mkdir()
    shutil.copy(zoo(bot), folder / "bot.py")
    with open(folder / "data.bin", "wb") as data:
        data.truncate(size)
    return str(folder), shown_at(str(folder / "data.bin"))


def _play(seats: list[object], seed: int) -> GameRecord:
    try:
        return play_game("dice", seats, seed=seed, limits=Limits(5.0))
    finally:
        for seat in seats:
            if isinstance(seat, Player) and isinstance(seat.host, PipeHost):
                seat.host.shutdown()


def test_two_bots_pass_nothing_through_the_page_cache(level: str, tmp_path: Path) -> None:
    folder, shared = _pair_folder(tmp_path, "pager.py", SHARED_SIZE)
    limits = replace(LIMITS, isolation=level)
    send, hear = ProcessHost(folder, limits), ProcessHost(folder, limits)
    record = _play([Player("send", send, options={"role": "send", "file": shared}),
                    Player("hear", hear, options={"role": "hear", "file": shared})], seed=4)
    assert record.faults == ()
    [told] = reports(send, "TOLD")
    heard = reports(hear, "HEARD")
    assert heard, hear.stderr_tail()
    hand = told.pop("hand")
    for channel in told:
        assert all(report[channel] != hand for report in heard), (channel, hand, heard)
        # the sender cannot evict, nor the receiver probe (process_madvise needs a pidfd,
        # and pidfd_open itself answers ENOSYS: the shared-state rules)
        assert told[channel] in REFUSED, (channel, told)
        assert all(report[channel] in REFUSED for report in heard), heard
    [tried] = reports(send, "CALLS")
    assert tried.pop("preadv2_plain") == 0  # a plain read with preadv2 still works
    assert tried == dict.fromkeys(tried, 1), tried  # everything else in the class: EPERM


def test_bots_that_use_memory_as_usual_play_on_under_the_filter(level: str) -> None:
    limits = replace(LIMITS, isolation=level)
    spender = ProcessHost(zoo("spender.py"), limits)
    record = _play([Player("spender", spender), Player("statistician", ProcessHost(
        "statistician", limits)), Player("honest", ProcessHost("honest", limits))], seed=6)
    assert record.faults == ()
    [spent] = reports(spender, "SPENT")
    numpy = "ok" if importlib.util.find_spec("numpy") else "absent"
    assert spent == {"block": "ok", "small": "ok", "advised": "ok", "numpy": numpy,
                     "helpers": "ok"}


def _evict(path: str) -> None:
    """Drop the feeler's pages from the cache (the host may): pages nobody has read yet."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def test_a_bot_cannot_tell_a_cached_page_from_its_own_counters(level: str,
                                                               tmp_path: Path) -> None:
    folder, shared = _pair_folder(tmp_path, "feeler.py", FELT_SIZE)
    limits = replace(LIMITS, isolation=level)
    load, feel = ProcessHost(folder, limits), ProcessHost(folder, limits)
    record = _play([Player("load", load, options={"role": "load", "file": shared}),
                    Player("feel", feel, options={"role": "feel", "file": shared})], seed=4)
    assert record.faults == ()
    [loaded] = reports(load, "LOADED")
    felt = reports(feel, "FELT")
    assert felt, feel.stderr_tail()
    for probe in felt[0]:  # each probe fails; none hears the hand
        assert all(report[probe] != loaded["hand"] for report in felt), (probe, felt)
        assert all(str(report[probe]).startswith("error: ") for report in felt), (probe, felt)


IN_MEMORY = (0x01021994, 0x858458F6)
"""tmpfs and ramfs (statfs's f_type)."""


def _on_disk(path: Path) -> bool:
    """Whether a folder lives on a disk (its pages can be cold), as statfs says."""
    buffer = ctypes.create_string_buffer(256)
    if ctypes.CDLL(None).statfs(os.fsencode(str(path)), buffer) != 0:
        return False
    return int.from_bytes(buffer.raw[:8], sys.byteorder) not in IN_MEMORY


def _cold_pair_folder(tmp_path: Path) -> Path:
    """One bot folder for both entrants: the warmer and a data file written, synced to the
    disk and dropped from the cache (pages nobody has read)."""
    warmer = importlib.util.spec_from_file_location("warmer", zoo("warmer.py"))
    assert warmer is not None and warmer.loader is not None
    module = importlib.util.module_from_spec(warmer)
    warmer.loader.exec_module(module)
    folder = tmp_path / "pair"
    folder.mkdir()
    shutil.copy(zoo("warmer.py"), folder / "bot.py")
    with open(folder / "data.bin", "wb") as data:
        data.write(os.urandom(module.SIZE))
        data.flush()
        os.fsync(data.fileno())
    _evict(str(folder / "data.bin"))
    return folder


def test_two_bots_pass_no_hand_by_timing_their_first_reads(level: str, tmp_path: Path) -> None:
    require(_on_disk(tmp_path), "a temp folder on a disk (its pages can be cold)")
    folder = _cold_pair_folder(tmp_path)
    limits = replace(LIMITS, isolation=level)
    load, timer = ProcessHost(str(folder), limits), ProcessHost(str(folder), limits)
    record = _play([Player("load", load, options={"role": "load"}),
                    Player("time", timer, options={"role": "time"})], seed=4)
    assert record.faults == ()
    [told] = reports(load, "TOLD")
    [heard] = reports(timer, "HEARD")
    assert heard["hand"] != told["hand"], heard  # chance: 1 in 2**15


def test_every_file_a_sandboxed_bot_can_read_lives_in_memory(level: str) -> None:
    limits = replace(LIMITS, isolation=level)
    surveyor = ProcessHost(zoo("surveyor.py"), limits)
    record = _play([Player("surveyor", surveyor), Player("honest", ProcessHost(
        "honest", limits))], seed=5)
    assert record.faults == ()
    [survey] = reports(surveyor, "SURVEY")
    assert survey["errors"] == [], survey
    assert survey["on_disk"] == [], survey  # no page of any file it reads can be cold
    assert survey["checked"] > 100, survey  # it saw its interpreter's files


def test_a_package_the_bot_imports_only_by_a_call_is_a_fault_that_says_what_to_do(
        level: str) -> None:
    require(importlib.util.find_spec("docutils") is not None, "docutils installed here")
    limits = replace(LIMITS, isolation=level)
    importer = ProcessHost(zoo("importer.py"), limits)
    record = _play([Player("importer", importer, options={"module": "docutils"}),
                    Player("honest", ProcessHost("honest", limits))], seed=5)
    [fault] = record.faults
    assert fault.message.startswith("ModuleNotFoundError: No module named 'docutils' ("), fault
    assert "put `import docutils` in the bot's file" in fault.message, fault
    assert "\n" not in fault.message
