"""The cpusim worker's protocol and failure isolation, against a stand-in harness written in Python (no compiler
needed): it adds src0 and src1 as uint8 and dies (or hangs) on cases whose src0 starts with 0x5A, as the
real harness does when built with a planted bug."""

from __future__ import annotations

import os
import stat
import sys
import textwrap

import numpy as np
import pytest

from ptofuzz.backends.cpusim import worker as w

FAKE = textwrap.dedent("""\
    #!{python}
    import mmap, os, struct, sys, time
    mode = {mode!r}
    fd = os.open(sys.argv[1], os.O_RDWR); progress = mmap.mmap(fd, 8); os.close(fd)
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    def read(n):
        b = inp.read(n)
        if len(b) < n: sys.exit(0)
        return b
    while True:
        magic, op, dt, ci, rows, n, alias, _ = struct.unpack("<8I", read(32))
        cols = (32, 64, 128, 256, 512, 1024, 2048, 4096)[ci]
        read(24 * n)
        a = read(n * rows * cols); b = read(n * rows * cols)
        size = rows * cols
        res = bytearray(n * size)
        for k in range(n):
            progress[:8] = struct.pack("<q", k)
            if a[k * size] == 0x5A:
                if mode == "crash":
                    sys.stderr.write("==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1\\n")
                    sys.stderr.flush(); os._exit(86)
                time.sleep(60)
            for i in range(size):
                res[k * size + i] = (a[k * size + i] + b[k * size + i]) & 0xFF
        out.write(struct.pack("<4I", magic, 0, n, len(res)) + bytes(res)); out.flush()
""")


def _fake(tmp_path, mode: str):
    path = tmp_path / f"harness-{mode}"
    path.write_text(FAKE.format(python=sys.executable, mode=mode))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def _batch(n: int, bad: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    a = rng.integers(0, 256, size=(n, 1, 32), dtype=np.uint8)
    a[a == 0x5A] = 0x5B
    a[bad, 0, 0] = 0x5A
    b = rng.integers(0, 256, size=(n, 1, 32), dtype=np.uint8)
    return np.tile(np.array([1, 32, 1, 32, 1, 32], dtype=np.int32), (n, 1)), a, b


def test_a_batch_comes_back_whole(tmp_path):
    valid, a, b = _batch(6, [])
    wk = w.Worker(_fake(tmp_path, "crash"), timeout=30)
    try:
        dst, failures = wk.run(0, 6, 0, 1, valid, a, b)
    finally:
        wk.close()
    assert failures == []
    np.testing.assert_array_equal(dst, (a.astype(np.uint16) + b) & 0xFF)


def test_crashing_cases_are_isolated_and_the_rest_still_computed(tmp_path):
    valid, a, b = _batch(10, [2, 7])
    wk = w.Worker(_fake(tmp_path, "crash"), timeout=30)
    try:
        dst, failures = wk.run(0, 6, 0, 1, valid, a, b)
    finally:
        wk.close()
    assert [(f.item, f.kind, f.cause) for f in failures] == [(2, "crash", "heap-buffer-overflow"),
                                                             (7, "crash", "heap-buffer-overflow")]
    assert failures[0].first_line.startswith("==1==ERROR: AddressSanitizer: heap-buffer-overflow")
    good = [i for i in range(10) if i not in (2, 7)]
    np.testing.assert_array_equal(dst[good], ((a.astype(np.uint16) + b) & 0xFF)[good])
    assert wk.restarts == 2


@pytest.mark.slow
def test_a_hang_is_killed_after_the_timeout(tmp_path):
    valid, a, b = _batch(4, [1])
    wk = w.Worker(_fake(tmp_path, "hang"), timeout=1.5)
    try:
        dst, failures = wk.run(0, 6, 0, 1, valid, a, b)
    finally:
        wk.close()
    assert [(f.item, f.kind) for f in failures] == [(1, "hang")]
    np.testing.assert_array_equal(dst[[0, 2, 3]], ((a.astype(np.uint16) + b) & 0xFF)[[0, 2, 3]])


def test_too_many_failures_skip_the_rest_of_the_batch(tmp_path):
    valid, a, b = _batch(8, [0, 1, 2, 3])
    wk = w.Worker(_fake(tmp_path, "crash"), timeout=30, max_failures=2)
    try:
        _, failures = wk.run(0, 6, 0, 1, valid, a, b)
    finally:
        wk.close()
    assert [(f.item, f.kind) for f in failures[:2]] == [(0, "crash"), (1, "crash")]
    assert sorted(f.item for f in failures[2:]) == [2, 3, 4, 5, 6, 7]
    assert {f.kind for f in failures[2:]} == {"skipped"}


@pytest.mark.parametrize(("report", "code", "cause"), [
    ("==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020", 86, "heap-buffer-overflow"),
    ("x.hpp:30:49: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented", 87,
     "signed-integer-overflow"),
    ("ElementOp.h:216:82: runtime error: shift exponent -1512516592 is negative", 87, "shift-exponent-negative"),
    ("ElementOp.h:216:82: runtime error: shift exponent -1 is negative", 87, "shift-exponent-negative"),
    ("ElementOp.h:221:82: runtime error: shift exponent 40 is too large for 32-bit type 'int'", 87,
     "shift-exponent-too-large"),
    ("TAbs.hpp:25:9: runtime error: negation of -2147483648 cannot be represented in type 'int'", 87,
     "negation-of-2147483648-cannot-be-represe"),
    ("", -11, "SIGSEGV"),
    ("", 3, "exit-3"),
])
def test_crash_causes(report, code, cause):
    assert w.crash_cause(report, code)[0] == cause


def test_a_forked_copy_does_not_stop_its_parents_harness(tmp_path):
    valid, a, b = _batch(2, [])
    wk = w.Worker(_fake(tmp_path, "crash"), timeout=30)
    try:
        wk.run(0, 6, 0, 1, valid, a, b)
        pid = os.fork()
        if pid == 0:  # the child drops its copy
            wk.close()
            os._exit(0)
        os.waitpid(pid, 0)
        assert wk.proc is not None and wk.proc.poll() is None
        _, failures = wk.run(0, 6, 0, 1, valid, a, b)
        assert failures == [] and wk.restarts == 0
    finally:
        wk.close()


def test_a_campaign_counts_the_cases_a_real_target_skipped():
    """Cases a real target left unanswered (after too many failures in their batch) are counted in the
    campaign summary, not silently passed off as compared (an oracle standing in for cpusim skips all but the
    first two cases of every batch)."""
    import dataclasses

    from ptofuzz.backends.base import Backends, Plain
    from ptofuzz.backends.model import ModelBackend
    from ptofuzz.core.failures import SKIPPED, Failure
    from ptofuzz.engine import campaign

    @dataclasses.dataclass(frozen=True)
    class HalfAnswered(Plain):  # a backend standing in for the simulator: the cpu model, all but two cases skipped
        name: str = "cpusim"
        platform: str = "cpu"

        def cannot_answer(self, inst):
            return None

        def evaluate(self, inst, case, inputs):
            out = inst.evaluate(case.on("cpu"), inputs)
            n = inputs["src0"].shape[0] if inputs["src0"].ndim == 3 else 1
            out.extra["failures"] = [Failure(i, SKIPPED, "after-failures", "not run") for i in range(2, n)]
            return out

    plan = campaign.make_plan("tpartadd", ["cpu", "cpusim"], seed=1, batch=16, dtype="int16")
    plan = dataclasses.replace(plan, backends=Backends((ModelBackend("cpu"), HalfAnswered())))
    store, stats = campaign.run_random(plan, runs=160)
    assert stats.cases == 160 and stats.batches >= 10
    assert stats.skipped == stats.cases - 2 * stats.batches
    assert campaign.summary_json(store, stats)["skipped"] == stats.skipped


def test_closing_a_worker_twice_leaves_a_later_file_alone(tmp_path):
    """close() releases the progress file once: a second call (``__del__`` makes one) must not close a descriptor
    that a later file has taken since."""
    from ptofuzz.backends.cpusim.worker import Worker

    w = Worker(tmp_path / "no-harness", 1.0)
    number = w._progress_fd
    w.close()
    with open(tmp_path / "later", "w+b") as later:
        assert later.fileno() == number  # the lowest free descriptor: the worker's old one
        w.close()
        later.write(b"still open")
        later.flush()
    assert (tmp_path / "later").read_bytes() == b"still open"
