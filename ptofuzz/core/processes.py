"""Processes and the liveness of what they left: killing a process group, and locks the kernel releases when
their holder dies (so that "is its run still going?" needs no pid, which means nothing in another PID namespace
or on another machine sharing a folder)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # subprocess is imported where a command runs: ``gen`` only takes locks (2-3 ms of its start-up)
    import subprocess
    from pathlib import Path


def kill_group(pgid: int) -> None:
    """SIGKILL to every process of group ``pgid`` (a command started in a session of its own), if any is left."""
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists here (another user's counts as alive; a pid no system hands out does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's process (or no such pid at all): leave it
        return pid < 1 << 22
    return True


def hold(path: str | Path) -> int:
    """Create ``path`` and hold an exclusive lock on it for as long as the returned descriptor stays open."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


@contextlib.contextmanager
def exclusive(folder: Path, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold ``folder``'s lock (``.<name>.lock`` beside it) for the block: another process asking for the same
    folder waits (``on_wait`` is told so once). The kernel drops the lock with its holder, killed or not."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder.parent / f".{folder.name}.lock", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait:
                on_wait(f"waiting for another ptofuzz run using {folder}")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


LOCK = ".lock"  # in a private working folder: locked (see :func:`hold`) for as long as its run goes on
KEPT = "KEPT"  # in a private working folder: kept on purpose (a message points into it), never swept
UNLOCKED_GRACE_S = 600.0  # a private folder without its lock file is stale once it is this old (made, not locked)


def sweep_unlocked(folders: Iterable[Path]) -> list[Path]:
    """Remove the private working folders (each with its :data:`LOCK` held by its run) of runs that have ended,
    killed or not: a folder whose lock any process can take is stale, whichever process, PID namespace or machine
    made it. A running one's folder is kept, and so is one holding :data:`KEPT`. Returns what was removed."""
    import shutil
    import time

    removed = []
    for work in folders:
        if os.path.lexists(work / KEPT):
            continue
        try:
            fd = take_if_free(work / LOCK)
        except FileNotFoundError:  # made before its lock file was: stale only when old
            with contextlib.suppress(OSError):
                if time.time() - work.stat().st_mtime > UNLOCKED_GRACE_S:
                    shutil.rmtree(work, ignore_errors=True)
                    removed.append(work)
            continue
        if fd is None:  # its run goes on
            continue
        shutil.rmtree(work, ignore_errors=True)
        os.close(fd)
        removed.append(work)
    return removed


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


# ---- what a command detached from its process group (``setsid CMD &``) --------------------------------------

MARK = "PTOFUZZ_COMMAND_MARK"  # set in a command's environment: its descendants inherit it, detached or not
_PR_SET_CHILD_SUBREAPER = 36


def adopt_orphans() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux): what a command detached and left
    running when it exited becomes a child of ours, so :func:`kill_marked` can find it. False where the kernel
    offers no such thing (then a detached process outlives its command, as it always did)."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _children() -> list[int]:
    """This process's children, from every thread's ``/proc/self/task/TID/children``."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for tid in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError), open(f"/proc/self/task/{tid}/children", "rb") as f:
                found.extend(int(p) for p in f.read().split())
    return found


def _marked(pid: int, mark: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return mark in f.read(1 << 20).split(b"\0")
    except OSError:
        return False


def kill_marked(mark: str) -> int:
    """SIGKILL every child of ours whose environment holds ``MARK=mark`` (a command's descendant that outlived it
    and, orphaned, was handed to us by :func:`adopt_orphans`), with its process group, and reap it; each one
    killed hands its own children to us, so this goes on until none is left. Returns how many were killed.
    Children of ours that are not marked (a campaign's workers, a simulator, another thread's command) are
    never touched."""
    needle = f"{MARK}={mark}".encode()
    killed = 0
    for _ in range(1000):  # a bound, should something respawn without end
        strays = [pid for pid in _children() if _marked(pid, needle)]
        if not strays:
            break
        for pid in strays:
            with contextlib.suppress(OSError):
                group = os.getpgid(pid)
                if group != os.getpgrp():
                    os.killpg(group, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            killed += 1
    return killed


# ---- commands that die with their caller: a build's compilers ---------------------------------------------

class Interrupted(KeyboardInterrupt):
    """A command asked for after :meth:`Commands.kill_all` (the job is being interrupted)."""


class Commands:
    """The commands one job runs (from several threads at once, say), each in a process group of its own under
    a guard (:mod:`ptofuzz.core.guard`) that kills the group should this process die, even by SIGKILL.
    :meth:`kill_all` ends every running one at once (an interrupt need not wait for a compile to finish) and
    refuses new ones."""

    def __init__(self) -> None:
        import threading

        self._lock = threading.Lock()
        self._groups: set[int] = set()
        self._closed = False

    def run(self, cmd: list[str], *, cwd: Path | None = None, timeout: float = 900.0,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        import subprocess

        guard = os.path.join(os.path.dirname(__file__), "guard.py")
        with self._lock:
            if self._closed:
                raise Interrupted
            proc = subprocess.Popen([sys.executable, "-I", guard, *cmd], cwd=cwd, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                                    start_new_session=True, env=env)
            self._groups.add(proc.pid)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc.pid)
            out, err = proc.communicate()
            err += f"\nerror: timed out after {timeout:g} s"
        finally:
            kill_group(proc.pid)
            proc.wait()
            with self._lock:
                self._groups.discard(proc.pid)
        if self._closed:
            raise Interrupted
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err)

    def kill_all(self) -> None:
        with self._lock:
            self._closed = True
            for group in self._groups:
                kill_group(group)


def carrying(variable: str, value: str) -> list[str]:
    """Every live process (zombies aside) whose environment holds ``variable=value``, as ``PID: command line``:
    what a command and everything it started leaves running (Linux; elsewhere nothing is found)."""
    needle = f"{variable}={value}".encode()
    found = []
    with contextlib.suppress(OSError):
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat", "rb") as f:
                    if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                        continue
                if not _marked(int(pid), needle):
                    continue
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    line = f.read().replace(b"\0", b" ")[:120].decode(errors="replace")
                found.append(f"{pid}: {line}")
            except (OSError, IndexError):
                continue
    return found
