"""Landlock, the sandbox's second wall: the launcher restricts itself before any bot code runs
(an exec'd command inherits it), through the kernel's three system calls as its documentation
shows (landlock_create_ruleset, landlock_add_rule, landlock_restrict_self).

The bot may read and execute what it sees and write only beneath its /tmp and /dev/shm (and
to devices such as /dev/null); from ABI 4 it may neither bind nor connect a TCP socket, and
from ABI 6 it can reach no abstract unix socket and signal no process outside its own domain.

It imports nothing from arena: the launcher loads it by file path when run with `-I`.
"""

from __future__ import annotations

import ctypes
import os

CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
"""The system call numbers (the same on every architecture since Linux 5.13)."""
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
READ = EXECUTE | READ_FILE | READ_DIR
ABI_FS = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1,
          5: (1 << 16) - 1}
"""Every file system right each ABI knows (ABI 2 adds REFER, 3 TRUNCATE, 5 IOCTL_DEV)."""
IOCTL_DEV = 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1
WRITABLE = ("/tmp", "/dev/shm")


class _RulesetAttr(ctypes.Structure):
    """struct landlock_ruleset_attr."""

    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    """struct landlock_path_beneath_attr (packed)."""

    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi() -> int:
    """The Landlock ABI version this kernel offers (0: none, or disabled)."""
    try:
        version = _libc().syscall(CREATE_RULESET, None, ctypes.c_size_t(0),
                                  ctypes.c_uint32(CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(0, int(version))


def _fail(what: str) -> OSError:
    code = ctypes.get_errno()
    return OSError(code, f"landlock: {what}: {os.strerror(code)}")


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, access: int) -> None:
    """Allow `access` beneath `path` (a path absent in this sandbox is skipped)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        rule = _PathBeneath(access, fd)
        if libc.syscall(ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
            raise _fail(f"cannot add the rule for {path}")
    finally:
        os.close(fd)


def restrict(network: bool = False) -> int:
    """Restrict this process and its future children; return the ABI used (0: no Landlock)."""
    version = abi()
    if version == 0:
        return 0
    every = ABI_FS[min(version, 5)]
    attr = _RulesetAttr(every, 0 if network or version < 4 else NET_BIND_TCP | NET_CONNECT_TCP,
                        SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if version >= 6 else 0)
    size = 8 if version < 4 else 16 if version < 6 else 24
    libc = _libc()
    ruleset = libc.syscall(CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if ruleset < 0:
        raise _fail("cannot create a ruleset")
    try:
        _allow(libc, ruleset, "/", READ)
        _allow(libc, ruleset, "/dev", READ | WRITE_FILE | (IOCTL_DEV & every))
        for path in WRITABLE:
            _allow(libc, ruleset, path, every)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise _fail("cannot set no_new_privs")
        if libc.syscall(RESTRICT_SELF, ruleset, 0) != 0:
            raise _fail("cannot restrict the bot")
    finally:
        os.close(ruleset)
    return version
