"""Processes and the liveness of what they left: killing a process group, and locks the kernel releases when
their holder dies (so that "is its run still going?" needs no pid, which means nothing in another PID namespace
or on another machine sharing a folder)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
from pathlib import Path


def kill_group(pgid: int) -> None:
    """SIGKILL to every process of group ``pgid`` (a command started in a session of its own), if any is left."""
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)


def hold(path: str | Path) -> int:
    """Create ``path`` and hold an exclusive lock on it for as long as the returned descriptor stays open."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def take_if_free(path: str | Path, *, shared: bool = False) -> int | None:
    """A descriptor of ``path`` locked now (the caller closes it), or None while another process holds its lock.
    FileNotFoundError when there is no such file; any other OSError: None (nothing can be said)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise
    except OSError:
        return None
    try:
        fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd
