"""Process hygiene helpers: commands that die with their caller, and private folders swept by their lock."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from ptofuzz.core import processes

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signals are Linux's")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def _gone(pid: int, within: float = 5.0) -> bool:
    """Whether ``pid`` is dead (or a zombie) within ``within`` seconds: a SIGKILL is delivered asynchronously, so a
    loaded machine may show the process running for a moment after the kill."""
    deadline = time.monotonic() + within
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    return not _alive(pid)


def _wait_for(path: Path) -> str:
    deadline = time.monotonic() + 20
    while not (path.is_file() and path.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return path.read_text()


def test_a_command_runs_and_reports_its_exit_status_and_output(tmp_path):
    r = processes.Commands().run(["sh", "-c", "echo out; echo err >&2; exit 3"], cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (3, "out\n", "err\n")
    r = processes.Commands().run(["no-such-command-anywhere"])
    assert r.returncode == 127 and "no-such-command-anywhere" in r.stderr


def test_kill_all_ends_running_commands_at_once_with_what_they_started_and_refuses_new_ones(tmp_path):
    """What made a Ctrl-C of ``sim build`` wait about 28 s for the compiles under way."""
    commands = processes.Commands()
    pids = tmp_path / "pids"
    result: list[BaseException] = []

    def job() -> None:
        try:
            commands.run(["sh", "-c", f"sleep 600 & echo $! > {pids}; wait"])
        except BaseException as e:  # noqa: BLE001 - the test looks at what it was
            result.append(e)

    thread = threading.Thread(target=job)
    thread.start()
    child = int(_wait_for(pids))
    start = time.monotonic()
    commands.kill_all()
    thread.join(timeout=10)
    assert not thread.is_alive() and time.monotonic() - start < 5
    assert len(result) == 1 and isinstance(result[0], processes.Interrupted)
    assert _gone(child)
    with pytest.raises(processes.Interrupted):
        commands.run(["true"])


def test_a_command_that_outlasts_its_timeout_is_killed_with_its_group(tmp_path):
    pids = tmp_path / "pids"
    r = processes.Commands().run(["sh", "-c", f"sleep 600 & echo $! > {pids}; wait"], timeout=1)
    assert r.returncode != 0 and "timed out after 1 s" in r.stderr
    assert _gone(int(pids.read_text()))


@linux
def test_a_command_and_what_it_started_die_with_a_caller_killed_by_sigkill(tmp_path):
    """No clean-up code runs on SIGKILL: the guard's parent-death signal takes the whole group down."""
    pids = tmp_path / "pids"
    caller = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        from ptofuzz.core import processes
        processes.Commands().run(["sh", "-c", "sleep 600 & echo $$ $! > {pids}; wait"])
        """)])
    shell, child = map(int, _wait_for(pids).split())
    caller.kill()
    caller.wait()
    deadline = time.monotonic() + 10
    while (_alive(shell) or _alive(child)) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(shell) and not _alive(child)


def test_private_folders_are_swept_by_their_lock_unless_kept_or_young(tmp_path):
    import fcntl

    running, dead, kept, young, old = (tmp_path / n for n in ("running", "dead", "kept", "young", "old"))
    for folder in (running, dead, kept, young, old):
        folder.mkdir()
        (folder / "work").write_text("x")
    for folder in (running, dead, kept):
        (folder / processes.LOCK).write_text("")
    (kept / processes.KEPT).write_text("")  # a failed run's log and input, which its message names
    os.utime(old, (0, 0))
    held = os.open(running / processes.LOCK, os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)
    try:
        swept = processes.sweep_unlocked(sorted(tmp_path.iterdir()))
    finally:
        os.close(held)
    assert swept == [dead, old]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept", "running", "young"]


def test_a_held_lock_is_not_free_and_a_released_one_is(tmp_path):
    path = tmp_path / "lock"
    fd = processes.hold(path)
    assert processes.take_if_free(path) is None
    os.close(fd)
    free = processes.take_if_free(path)
    assert free is not None
    os.close(free)
    with pytest.raises(FileNotFoundError):
        processes.take_if_free(tmp_path / "none")


def test_kill_group_of_a_gone_group_is_quiet():
    proc = subprocess.Popen(["true"], start_new_session=True)
    proc.wait()
    processes.kill_group(proc.pid)  # no such group any more: nothing raised


def test_an_atomic_write_removes_what_a_killed_writer_of_the_same_file_left(tmp_path):
    """A report or summary written when its writer was killed by SIGKILL left ``.NAME.tmp-PID`` for good; the
    next write of that file removes it (not one of a live writer, nor another file's)."""
    from ptofuzz.core.atomic import write_file

    dead = tmp_path / f".r.html.tmp-{2 ** 22 + 99}"
    live = tmp_path / f".r.html.tmp-{os.getppid()}"  # another process writing it now
    other = tmp_path / f".s.html.tmp-{2 ** 22 + 99}"
    for p in (dead, live, other):
        p.write_text("half")
    write_file(tmp_path / "r.html", "<html></html>")
    assert (tmp_path / "r.html").read_text() == "<html></html>"
    assert not dead.exists() and other.exists() and live.read_text() == "half"


def test_an_exclusive_folder_makes_a_second_holder_wait_and_says_so_once(tmp_path):
    folder = tmp_path / "build"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from ptofuzz.core import processes
        with processes.exclusive(Path({str(folder)!r})):
            print("held", flush=True)
            time.sleep(1.0)
        """)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    said: list[str] = []
    start = time.monotonic()
    with processes.exclusive(folder, said.append):
        waited = time.monotonic() - start
    holder.communicate()
    assert said == [f"waiting for another ptofuzz run using {folder}"] and waited > 0.3
    said.clear()
    with processes.exclusive(folder, said.append):  # free now: no wait, nothing said
        pass
    assert said == [] and (tmp_path / ".build.lock").is_file() and not folder.exists()
