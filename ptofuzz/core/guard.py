"""Run one command so that it cannot outlive the process that asked for it (Linux).

``python -I guard.py CMD ARGS...`` is started by :class:`ptofuzz.core.processes.Commands` in a session of its own.
It asks the kernel for a TERM when its parent dies (even by SIGKILL, which no clean-up code sees), runs CMD as
its child in the same process group, and on that TERM kills the whole group: CMD and whatever CMD started (a
compiler driver's cc1plus, as and ld). Otherwise it exits as CMD did. It imports nothing of ptofuzz (it is run by
its path, for a fast start).
"""

from __future__ import annotations

import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def _kill_group(*_: object) -> None:
    os.killpg(0, signal.SIGKILL)  # this guard included


def main(argv: list[str]) -> int:
    parent = os.getppid()
    signal.signal(signal.SIGTERM, _kill_group)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # no parent-death signal here: the command is still killed with its group by the caller
    if os.getppid() != parent:  # the parent died before the request took effect
        _kill_group()
    pid = os.fork()
    if pid == 0:
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.execvp(argv[0], argv)
        except OSError as e:
            os.write(2, f"{argv[0]}: {e.strerror}\n".encode())
        finally:
            os._exit(127)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
