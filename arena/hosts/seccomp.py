"""The seccomp filter a sandboxed bot runs under, compiled by libseccomp (Debian's libseccomp2)
through its documented C API (seccomp_init, seccomp_rule_add_array, seccomp_export_bpf,
seccomp_release): no hand-written BPF. bubblewrap loads it (`--seccomp FD`) just before it
starts the bot, so bubblewrap's own mounts are done and the bot can make none.

What it refuses (EPERM) is what an attacker uses to undo the sandbox: mounts (old and new
API), chroot and pivot_root, new namespaces (unshare, setns, clone with a namespace flag),
reading or steering other processes (ptrace, process_vm_*, pidfd_getfd, kcmp), the kernel's
keyrings, BPF, modules, kexec, perf, userfaultfd and io_uring; sysinfo and Linux AIO
(io_setup...), whose machine-wide load, process count and AIO count two bots could signal
each other through; and every call that evicts a page of a file all sandboxes share or tells
whether one is cached without reading it (fadvise, readahead, mincore, cachestat,
sync_file_range, remap_file_pages, process_madvise, move_pages, madvise's MADV_COLD and
MADV_PAGEOUT, preadv2 and pwritev2 with RWF_NOWAIT), through which two bots passed a hand
exactly; and a process's own fault, disk-read and wait counts (getrusage, and wait4 or waitid
asked for a child's), which tell whether a page was cached just as exactly. clone3 answers
ENOSYS, so libc falls back to clone, whose flags the filter can read. A system call of another
architecture (i386, x32) kills the process. What reads or sets kernel state that every
sandbox shares exactly (locks and watches on shared files, the machine's task and socket
counters) is refused too (`SHARED_STATE`), so two bots cannot pass a hand through it. What
makes an object numbered by the machine's inode counters (pipes, sockets, memfds) is refused
once the bot plays, by the second filter of `arena.hosts.gate`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
from collections.abc import Callable

LIBRARY = "libseccomp.so.2"
ACT_KILL_PROCESS = 0x80000000
ACT_ALLOW = 0x7FFF0000
FILTER_ATTR_ACT_BADARCH = 2
CMP_NE, CMP_MASKED_EQ = 1, 7

DENIED = (
    "mount", "umount2", "pivot_root", "chroot",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    "setns", "unshare", "keyctl", "add_key", "request_key", "bpf",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "swapon", "swapoff", "reboot", "open_by_handle_at", "name_to_handle_at",
    "acct", "quotactl", "syslog", "lookup_dcookie", "uselib", "personality",
    "sysinfo", "io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents",
    "io_pgetevents",
    *("fadvise64", "fadvise64_64", "arm_fadvise64_64", "readahead", "mincore", "cachestat",
      "sync_file_range", "sync_file_range2", "arm_sync_file_range", "remap_file_pages",
      "process_madvise", "move_pages", "getrusage"),
)
"""System calls refused with EPERM (names this kernel or libseccomp does not know are skipped).
The last line is the page cache's: each evicts pages of a file every sandbox shares, or tells
whether a page is resident without reading it (move_pages: whether it is mapped, which a
fault's mapping of the cached pages around it gives away), so two bots could pass a hand
through it exactly. getrusage counts the caller's faults, disk reads and waits: touching a
page after a fault that maps the cached pages around another, or reading one, tells whether
it was cached."""
RUSAGE_ARGUMENT = {"wait4": 3, "waitid": 4}
"""The argument through which these report a child's getrusage counts: refused unless NULL
(waitpid, which libc and subprocess use, passes NULL)."""
MADVICE_DENIED = (20, 21)
"""MADV_COLD and MADV_PAGEOUT: madvise's advice that evicts (or readies to evict) a file's
shared pages. MADV_DONTNEED only drops the caller's own mapping (the page stays cached), and
malloc frees memory with it, so it stays allowed."""
RWF_NOWAIT = 0x00000008
"""preadv2 and pwritev2 with this flag answer EAGAIN for a page not in the cache."""
RW_FLAGS = {"preadv2": 5, "pwritev2": 5}
"""The argument that carries the RWF_ flags (fd, iov, iovcnt, pos_l, pos_h, flags)."""
INT_MASK = 0xFFFFFFFF
"""An int argument's bits: the kernel reads only these, so the filter compares only these."""
NAMESPACE_FLAGS = (0x00000080, 0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000,
                   0x20000000, 0x40000000)
"""CLONE_NEWTIME, NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET: clone refuses each."""
SHARED_STATE = {"flock": errno.ENOLCK, "inotify_init": errno.ENOSYS,
                "inotify_init1": errno.ENOSYS, "inotify_add_watch": errno.ENOSYS,
                "fanotify_init": errno.ENOSYS, "fanotify_mark": errno.ENOSYS,
                "pidfd_open": errno.ENOSYS}
"""Calls that read or set state of the kernel's that every sandbox shares, and the errno each
answers: a lock on a file every sandbox sees (/usr), a watch on one (another bot's opening it
is an event), a new task's pidfs inode number (the machine's count of tasks made). Two bots
passed 16 bits a decision, exactly, through each (benchmarks/channels.py). ENOSYS: the
callers (asyncio, file watchers) fall back as on a kernel without them."""
FCNTL_DENIED = {5: errno.ENOLCK, 6: errno.ENOLCK, 7: errno.ENOLCK, 36: errno.ENOLCK,
                37: errno.ENOLCK, 38: errno.ENOLCK, 1024: errno.EPERM, 1026: errno.EPERM}
"""fcntl's commands on those shared files: F_GETLK, F_SETLK, F_SETLKW, their OFD forms,
F_SETLEASE and F_NOTIFY (dnotify's watch on a folder)."""
SOCKET_OPTIONS_DENIED = {"getsockopt": (57, 77), "setsockopt": (76,)}
"""SO_COOKIE (a number from the machine's socket counter), SO_PEERPIDFD and SO_PASSPIDFD (a
pidfd, hence a task's pidfs number, by another door)."""
CLONE_PIDFD = 0x00001000
AF_NETLINK, NETLINK_SOCK_DIAG = 16, 4
"""sock_diag tells each socket's cookie: refused as SO_COOKIE is."""


class SeccompError(OSError):
    """libseccomp is missing or refused to build the filter."""


class _ArgCmp(ctypes.Structure):
    """struct scmp_arg_cmp: one comparison of a system call argument."""

    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


def _errno_action(code: int) -> int:
    """SCMP_ACT_ERRNO(code)."""
    return 0x00050000 | (code & 0xFFFF)


@functools.cache
def library() -> ctypes.CDLL | None:
    """libseccomp, or None where it is not installed."""
    for name in (LIBRARY, ctypes.util.find_library("seccomp")):
        if name:
            try:
                lib = ctypes.CDLL(name, use_errno=True)
            except OSError:
                continue
            lib.seccomp_init.restype = ctypes.c_void_p
            lib.seccomp_init.argtypes = [ctypes.c_uint32]
            lib.seccomp_release.argtypes = [ctypes.c_void_p]
            lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
            lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
            lib.seccomp_rule_add_array.argtypes = [
                ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                ctypes.POINTER(_ArgCmp)]
            lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
            return lib
    return None


def rule(lib: ctypes.CDLL, ctx: int, action: int, name: str,
          compare: tuple[_ArgCmp, ...] = ()) -> None:
    """Add one rule; a system call unknown here is skipped."""
    number = lib.seccomp_syscall_resolve_name(name.encode())
    if number < 0:
        return
    array = (_ArgCmp * max(1, len(compare)))(*compare)
    result = lib.seccomp_rule_add_array(ctx, action, number, len(compare), array)
    if result < 0:
        raise SeccompError(-result, f"libseccomp refused the rule for {name}")


def _add_rules(lib: ctypes.CDLL, ctx: int) -> None:
    """The rules: the denied calls, clone with a namespace flag, madvise's evicting advice,
    a child's usage counts, reads and writes that must not wait for the disk, clone3."""
    if lib.seccomp_attr_set(ctx, FILTER_ATTR_ACT_BADARCH, ACT_KILL_PROCESS) < 0:
        raise SeccompError(errno.EINVAL, "libseccomp cannot kill other architectures' calls")
    eperm = _errno_action(errno.EPERM)
    _add_shared_state_rules(lib, ctx)
    for name in DENIED:
        rule(lib, ctx, eperm, name)
    for flag in NAMESPACE_FLAGS:
        rule(lib, ctx, eperm, "clone", (_ArgCmp(0, CMP_MASKED_EQ, flag, flag),))
    for advice in MADVICE_DENIED:
        rule(lib, ctx, eperm, "madvise", (_ArgCmp(2, CMP_MASKED_EQ, INT_MASK, advice),))
    for name, index in RUSAGE_ARGUMENT.items():
        rule(lib, ctx, eperm, name, (_ArgCmp(index, CMP_NE, 0, 0),))
    for name, index in RW_FLAGS.items():
        rule(lib, ctx, eperm, name, (_ArgCmp(index, CMP_MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT),))
    rule(lib, ctx, _errno_action(errno.ENOSYS), "clone3")


def _word(index: int, value: int) -> _ArgCmp:
    """Argument `index`, as the int the kernel reads, equals `value`."""
    return _ArgCmp(index, CMP_MASKED_EQ, INT_MASK, value)


def _add_shared_state_rules(lib: ctypes.CDLL, ctx: int) -> None:
    """Refuse what reads or sets kernel state two sandboxes share exactly (SHARED_STATE)."""
    for name, code in SHARED_STATE.items():
        rule(lib, ctx, _errno_action(code), name)
    for command, code in FCNTL_DENIED.items():
        rule(lib, ctx, _errno_action(code), "fcntl", (_word(1, command),))
    eperm = _errno_action(errno.EPERM)
    for name, options in SOCKET_OPTIONS_DENIED.items():
        for option in options:
            rule(lib, ctx, eperm, name, (_word(1, 1), _word(2, option)))  # SOL_SOCKET
    rule(lib, ctx, eperm, "clone", (_ArgCmp(0, CMP_MASKED_EQ, CLONE_PIDFD, CLONE_PIDFD),))
    rule(lib, ctx, _errno_action(errno.EAFNOSUPPORT), "socket",
          (_word(0, AF_NETLINK), _word(2, NETLINK_SOCK_DIAG)))


@functools.cache
def filter_bpf() -> bytes:
    """The compiled filter (BPF program bytes), built once per process."""
    return compile_filter(_add_rules)


def compile_filter(rules: Callable[[ctypes.CDLL, int], None]) -> bytes:
    """A filter that allows what `rules` does not say otherwise, compiled to BPF bytes."""
    lib = library()
    if lib is None:
        raise SeccompError(errno.ENOENT, "libseccomp is not installed: apt-get install libseccomp2")
    ctx = lib.seccomp_init(ACT_ALLOW)
    if not ctx:
        raise SeccompError(errno.ENOMEM, "seccomp_init failed")
    try:
        rules(lib, ctx)
        fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC)
        try:
            if lib.seccomp_export_bpf(ctx, fd) < 0:
                raise SeccompError(errno.EIO, "seccomp_export_bpf failed")
            size = os.lseek(fd, 0, os.SEEK_END)
            return os.pread(fd, size, 0)
        finally:
            os.close(fd)
    finally:
        lib.seccomp_release(ctx)


def filter_fd() -> int:
    """A fresh readable file descriptor holding the filter, for bubblewrap's `--seccomp FD`
    (the caller passes it to the child and closes it)."""
    fd = os.memfd_create("arena-seccomp")
    os.write(fd, filter_bpf())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
