"""The images in memory do not pile up: a new image sweeps away those no process holds, but
the most recently used, and never one a live process holds (arena.hosts.images)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from arena.hosts import images, view

HOLDER = """
import sys
from pathlib import Path
from arena.hosts import images, view
images.IMAGES = Path(sys.argv[1])
files = view.Files()
files.add(sys.argv[2])
print(view.image(files, libraries=False), flush=True)
sys.stdin.read()  # held until the test closes stdin
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of images of its own, for this test alone."""
    shm = tmp_path / "shm"
    shm.mkdir()
    monkeypatch.setattr(images, "IMAGES", shm)
    monkeypatch.setattr(images, "_held", {})
    return shm


def _source(tmp_path: Path, n: int) -> str:
    path = tmp_path / f"file{n}.txt"
    path.write_text(f"file {n}\n")
    return str(path)


def _made(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob(images.PREFIX + "*") if p.is_dir())


def _made_by_a_process_that_ended(folder: Path, source: str) -> Path:
    out = subprocess.run([sys.executable, "-c", HOLDER, str(folder), source], input="",
                         capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def test_images_no_process_holds_are_swept_down_to_the_most_recently_used(
        folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(images, "KEPT_UNUSED", 3)
    made = []
    for n in range(6):
        made.append(_made_by_a_process_that_ended(folder, _source(tmp_path, n)))
        os.utime(made[-1], (1000.0 + n, time.time() - 600 + n))
    assert _made(folder) == sorted(made)  # building alone sweeps only as it builds
    files = view.Files()
    files.add(_source(tmp_path, 99))
    newest = view.image(files, libraries=False)
    assert _made(folder) == sorted([*made[-3:], newest])
    assert (newest / _source(tmp_path, 99).lstrip("/")).read_text() == "file 99\n"


def test_an_image_a_live_process_holds_is_never_swept(folder: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(images, "KEPT_UNUSED", 0)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), _source(tmp_path, 1)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        held = Path(holder.stdout.readline().strip())
        ended = _made_by_a_process_that_ended(folder, _source(tmp_path, 2))
        assert images.sweep() == [ended]
        assert _made(folder) == [held]
    finally:
        holder.communicate("")
    assert images.sweep() == [held]  # let go when its process ended
    assert _made(folder) == []


def test_an_image_idle_for_a_day_is_swept_and_a_dead_builders_leftovers_too(
        folder: Path, tmp_path: Path) -> None:
    old = _made_by_a_process_that_ended(folder, _source(tmp_path, 1))
    recent = _made_by_a_process_that_ended(folder, _source(tmp_path, 2))
    day_ago = time.time() - images.IDLE_LIMIT - 60
    os.utime(old, (day_ago, day_ago))
    half_made = folder / (images.PREFIX + "new-abc")
    (half_made / "usr").mkdir(parents=True)
    assert images.sweep() == [old]
    assert _made(folder) == [recent]


def test_an_image_swept_while_a_process_waits_to_hold_it_is_made_again(
        folder: Path, tmp_path: Path) -> None:
    source = _source(tmp_path, 1)
    path = _made_by_a_process_that_ended(folder, source)
    sweeper = images._unused(path)  # a sweep has locked it and is about to remove it
    assert sweeper is not None
    held: list[bool] = []
    waiter = threading.Thread(target=lambda: held.append(images.hold(path)))
    waiter.start()
    time.sleep(0.2)  # it waits for the lock (or, if slower, finds the path gone): either way
    images._remove(path)
    os.close(sweeper)
    waiter.join(10)
    assert held == [False] and not path.exists()
    files = view.Files()
    files.add(source)
    again = view.image(files, libraries=False)
    assert again == path
    assert (again / source.lstrip("/")).read_text() == "file 1\n"
    assert images.sweep() == []  # this process holds it now


def test_a_program_s_libraries_are_asked_of_ldd_once_until_the_program_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each image for a new set of a bot's files shows the same programs (setpriv, the
    interpreter): their libraries are found once a process, yet a program changed in place
    (an upgrade) is asked again, never shown with the libraries of the file it replaced."""
    ls, bwrap = (os.path.realpath(shutil.which(name) or name) for name in ("ls", "bwrap"))
    runs: list[list[str]] = []
    real = view._run_ldd
    monkeypatch.setattr(view, "_run_ldd", lambda paths: runs.append(paths) or real(paths))
    program = tmp_path / "program"
    shutil.copyfile(ls, program)
    first = view._ldd([str(program)])
    assert first == real([ls]) and view._ldd([str(program)]) == first
    assert len(runs) == 1
    shutil.copyfile(bwrap, program)  # the same file, rewritten: bubblewrap now
    assert view._ldd([str(program)]) == real([bwrap]) != first
    assert len(runs) == 2


def test_a_program_rewritten_with_its_old_size_and_time_is_asked_of_ldd_again(
        tmp_path: Path) -> None:
    """Attack: a program rewritten in place, as long as before and stamped with its old
    modification time (`touch -r`, rsync -t), must not be shown with the libraries of the
    file it replaced."""
    ls, bwrap = (os.path.realpath(shutil.which(name) or name) for name in ("ls", "bwrap"))
    program = tmp_path / "program"
    shutil.copyfile(ls, program)
    old = os.stat(program)
    assert view._ldd([str(program)]) == view._run_ldd([ls])
    other = Path(bwrap).read_bytes()
    assert len(other) <= old.st_size and view._run_ldd([bwrap]) != view._run_ldd([ls])
    with program.open("r+b") as file:  # in place: the same inode, padded to the old size
        file.write(other + bytes(old.st_size - len(other)))
    os.utime(program, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert view._ldd([str(program)]) == view._run_ldd([bwrap])
