"""The harness as a persistent worker process fed over a pipe, out of ptofuzz's process.

:meth:`Worker.run` sends one request (a batch of cases) and returns the reply's bytes. When the harness dies
(a crash, a sanitizer report) or spends longer than the timeout on one case (a hang), the case it was on is read from
the progress file the harness keeps, the process is replaced and the rest of the batch is sent again; those
cases come back as :class:`Failure` entries (at most ``max_failures`` per batch; the cases after that are not
run and are reported as skipped).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import re
import selectors
import signal
import struct
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from ptofuzz.core.failures import CRASH, HANG, SKIPPED, Failure

MAGIC = 0x50544F46
HEADER = struct.Struct("<8I")
REPLY = struct.Struct("<4I")


class HarnessError(RuntimeError):
    """The harness refused a request (a bug in ptofuzz's side of the protocol)."""


_SAN = re.compile(r"(ERROR: AddressSanitizer: [\w-]+.*|runtime error: .*|ERROR: \w+Sanitizer: .*)")


def crash_cause(report: str, returncode: int | None) -> tuple[str, str]:
    """(cause, first line) of a dead harness from its stderr and exit status."""
    for line in report.splitlines():
        m = _SAN.search(line)
        if m:
            text = m.group(1).strip()
            if text.startswith("runtime error:"):
                # "runtime error: signed integer overflow: ..." -> signed-integer-overflow
                what = text[len("runtime error:"):].split(":")[0].strip()
                # "shift exponent -7 is negative", "shift exponent 40 is too large for ...": one cause each,
                # whatever the count
                what = re.sub(r"^shift exponent -?\d+ is (negative|too large).*$", r"shift exponent \1", what)
                # "3e+09 is outside the range of representable values of type 'int'" (a float-to-integer
                # conversion, clang's float-cast-overflow): one cause, whatever the value
                what = re.sub(r"^\S+ is outside the range of representable values.*$",
                              "value outside the range of representable values", what)
                what = re.sub(r"\s+\d.*$", "", what)
                cause = re.sub(r"[^a-z0-9]+", "-", what.lower()).strip("-")[:40] or "ub"
            else:
                cause = text.split(":")[2].split()[0] if text.count(":") >= 2 else "sanitizer"
            return cause, line.strip()[:300]
    if returncode is not None and returncode < 0:
        name = signal.Signals(-returncode).name if -returncode in signal.valid_signals() else f"signal {-returncode}"
        return name, f"harness killed by {name}"
    return f"exit-{returncode}", f"harness exited with status {returncode}"


class Worker:
    """One harness process (restarted as needed)."""

    def __init__(self, executable: Path, timeout: float, max_failures: int = 8, plant: str | None = None) -> None:
        self.executable, self.timeout, self.max_failures, self.plant = executable, timeout, max_failures, plant
        self.proc: subprocess.Popen[bytes] | None = None
        fd, name = tempfile.mkstemp(prefix="ptofuzz-progress-")
        os.unlink(name)  # nothing to clean up, however this process ends: the harness opens it as /dev/fd/N
        os.write(fd, b"\0" * 8)
        self._progress_fd = fd
        self._progress = mmap.mmap(fd, 8)
        self._stderr = tempfile.TemporaryFile(prefix="ptofuzz-harness-stderr-")
        self.restarts = 0
        self.cases = 0  # cases the harness answered (for tests and reports)
        self._owner = os.getpid()  # a forked copy of this object must not stop its parent's process

    def close(self) -> None:
        """Stop the harness and release the progress file; once only (``__del__`` calls it again, and a second
        ``os.close`` would close whatever file took the descriptor's number since)."""
        if os.getpid() != self._owner or self._progress_fd < 0:
            return
        self._stop()
        self._progress.close()
        os.close(self._progress_fd)
        self._progress_fd = -1
        self._stderr.close()

    def __del__(self) -> None:  # pragma: no cover - best effort at interpreter exit
        with contextlib.suppress(Exception):
            self.close()

    def _start(self) -> subprocess.Popen[bytes]:
        self._stderr.seek(0)
        self._stderr.truncate()
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0:exitcode=86")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=0:exitcode=87")
        env.pop("PTOFUZZ_PLANT", None)
        if self.plant and self.plant != "off":  # test-only, and only a PTOFUZZ_PLANTS build reads it
            env["PTOFUZZ_PLANT"] = self.plant
        self.proc = subprocess.Popen([str(self.executable), f"/dev/fd/{self._progress_fd}"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self._stderr, env=env, start_new_session=True,
                                     pass_fds=(self._progress_fd,))
        return self.proc

    def _stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except OSError:
                    pass
            self.proc.wait()
            for pipe in (self.proc.stdin, self.proc.stdout):
                if pipe is not None:
                    pipe.close()
            self.proc = None

    def _progress_index(self) -> int:
        return int(struct.unpack("<q", self._progress[:8])[0])

    def _exchange(self, request: bytes, reply_bytes: int) -> bytes | str:
        """Send ``request``, return the reply payload; "dead" or "timeout" when the harness fails."""
        proc = self.proc if self.proc is not None and self.proc.poll() is None else self._start()
        self._progress[:8] = struct.pack("<q", -1)
        assert proc.stdin is not None and proc.stdout is not None
        out_fd, in_fd = proc.stdout.fileno(), proc.stdin.fileno()
        os.set_blocking(in_fd, False)
        sel = selectors.DefaultSelector()
        sel.register(out_fd, selectors.EVENT_READ)
        sel.register(in_fd, selectors.EVENT_WRITE)
        view, sent = memoryview(request), 0
        need = REPLY.size + reply_bytes
        got = bytearray()
        deadline = time.monotonic() + self.timeout
        seen = -1
        try:
            while len(got) < need:
                now = time.monotonic()
                at = self._progress_index()
                if at != seen:  # the timeout is per case: a new case restarts it
                    seen, deadline = at, now + self.timeout
                left = deadline - now
                if left <= 0:
                    return "timeout"
                for key, _ in sel.select(min(left, 0.25)):
                    if key.fd == in_fd:
                        try:
                            sent += os.write(in_fd, view[sent:sent + (1 << 20)])
                        except (BrokenPipeError, OSError):
                            return "dead"
                        if sent == len(view):
                            sel.unregister(in_fd)
                    else:
                        chunk = os.read(out_fd, min(need - len(got), 1 << 22))
                        if not chunk:
                            return "dead"
                        got += chunk
                        if len(got) >= REPLY.size:
                            magic, status, _, nbytes = REPLY.unpack_from(got)
                            if magic != MAGIC:
                                raise HarnessError("the harness answered with a malformed reply")
                            if status != 0:
                                raise HarnessError("the harness has no kernel for this request (status "
                                                   f"{status}); rebuild with `ptofuzz sim build`")
                            need = REPLY.size + nbytes
        finally:
            sel.close()
        return bytes(got[REPLY.size:])

    def run(self, op: int, dtype: int, cols_index: int, rows: int, valid: np.ndarray, src0: np.ndarray,
            src1: np.ndarray, alias: int = 0, out: np.ndarray | None = None) -> tuple[np.ndarray, list[Failure]]:
        """Run ``n`` cases (``valid``: n x 6 int32; ``src0``/``src1``: n x rows x cols) and return the output
        (into ``out``, zeros of the output's shape and type, default: like ``src0``) and the cases that failed."""
        n = valid.shape[0]
        dst = np.zeros_like(src0) if out is None else out
        failures: list[Failure] = []
        pending = np.arange(n)  # the cases still to run; a failed one is taken out and the rest sent again
        while pending.size:
            whole = pending.size == n
            v, a, b = (valid, src0, src1) if whole else (valid[pending], src0[pending], src1[pending])
            header = HEADER.pack(MAGIC, op, dtype, cols_index, rows, pending.size, alias, 0)
            request = b"".join((header, np.ascontiguousarray(v, dtype="<i4").tobytes(),
                                np.ascontiguousarray(a).tobytes(), np.ascontiguousarray(b).tobytes()))
            result = self._exchange(request, dst[0].nbytes * pending.size)
            if isinstance(result, bytes):
                dst[pending] = np.frombuffer(result, dtype=dst.dtype).reshape((pending.size, *dst.shape[1:]))
                self.cases += int(pending.size)
                return dst, failures
            index = self._progress_index()
            if result == "timeout":
                self._stop()
                kind, cause, line = HANG, "timeout", f"no answer within {self.timeout:g} s"
            else:
                assert self.proc is not None
                code = self.proc.wait()
                self._stderr.seek(0)
                report = self._stderr.read().decode(errors="replace")
                self._stop()
                kind = CRASH
                cause, line = crash_cause(report, code)
            self.restarts += 1
            at = index if 0 <= index < pending.size else 0  # died reading the request: blame the first
            failures.append(Failure(int(pending[at]), kind, cause, line))
            pending = np.delete(pending, at)
            if len(failures) >= self.max_failures and pending.size:
                failures.extend(Failure(int(i), SKIPPED, "after-failures", "not run: too many failures in "
                                        "this batch") for i in pending)
                break
        return dst, failures
