"""Native coverage: the simulator as a shared library instrumented for libFuzzer, run in ptofuzz's process.

The library must answer exactly as the out-of-process harness does (the same simulator, the same request layout),
its planted bug must fire on its own bytes only, and under the atheris engine libFuzzer must see the simulator's
branches (its coverage far above what the oracles alone give). Tests that build need ``PTO_ISA_DIR`` and clang++.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import numpy as np
import pytest

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.inprocess import Library
from ptofuzz.backends.cpusim.simulator import like
from ptofuzz.backends.cpusim.worker import Worker
from ptofuzz.core.errors import UsageError
from ptofuzz.engine import atheris_engine

PTO_ISA = os.environ.get("PTO_ISA_DIR")


needs_native = pytest.mark.skipif(not PTO_ISA or build.clang_path() is None,
                                  reason="needs PTO_ISA_DIR (a pto-isa tree) and clang++ for the native-coverage build")


def _settings(**kw) -> build.Settings:
    return build.Settings(pto_isa=Path(str(PTO_ISA)), ops=("TMRGSORT",), **kw)


@pytest.fixture(scope="module")
def native() -> build.Build:
    if not PTO_ISA or build.clang_path() is None:
        pytest.skip("needs PTO_ISA_DIR and clang++")
    return build.get(_settings(coverage=True))


@pytest.fixture(scope="module")
def planted() -> build.Build:
    if not PTO_ISA or build.clang_path() is None:
        pytest.skip("needs PTO_ISA_DIR and clang++")
    return build.get(_settings(coverage=True, plant="deep"))


COLS_INDEX, COLS = 3, 256  # the stride: room for 71 float32 records in the destination


DEEP = 0x7F4F5450  # kernels.hpp's kDeepPlant: the first score that the deep plant answers wrongly


def _mrgsort_request(lens: tuple[int, ...] = (4, 4), n: int = 3, dst_records: int | None = None,
                     seed: int = 1, head: int | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """``n`` TMRGSORT float32 cases of lists of ``lens`` records each (descending scores, distinct indices) at the
    stride :data:`COLS`, the first list's first score the bits ``head`` if given: the valid ints (elements), the A
    buffer (n x 4 lists x COLS floats) and the mode."""
    rng = np.random.default_rng(seed)
    a = np.zeros((n, 4, COLS), dtype=np.float32)
    for li, k in enumerate(lens):
        a[:, li, 0:2 * k:2] = -np.sort(-rng.integers(-1000, 1000, (n, k)).astype(np.float32), axis=1)
        a[:, li, 1:2 * k:2] = (np.arange(k, dtype=np.uint32) + 100 * li).view(np.float32)
    if head is not None:
        a.view(np.uint32)[:, 0, 0] = head
    total = sum(lens) if dst_records is None else dst_records
    ints = [2 * total, *(2 * k for k in lens)] + [0] * (6 - 1 - len(lens))
    return np.tile(np.array([ints], dtype=np.int32), (n, 1)), a, len(lens)


def _run(runner, valid: np.ndarray, a: np.ndarray, mode: int) -> np.ndarray:
    n = valid.shape[0]
    out = np.zeros((n, COLS * 4 + 8), dtype=np.uint8)  # one row of COLS floats, then the four uint16 counts
    got, failures = runner.run(build.OPS["TMRGSORT"], build.DTYPES["float32"][0], COLS_INDEX, 4, valid, a,
                               np.zeros((n, 0), np.uint8), alias=mode, out=out)
    assert failures == []
    return got


# ---- what needs no build ------------------------------------------------------------------------------------------

def test_the_coverage_build_is_a_key_of_its_own_with_clang_only_and_no_sanitizer(tmp_path):
    plain = build.Settings(pto_isa=tmp_path, coverage=False)
    assert dataclasses.replace(plain, coverage=True) != plain
    fake = tmp_path / "g++"
    fake.write_text("#!/bin/sh\necho 'g++ (Debian 12.2.0-14) 12.2.0'\n")
    fake.chmod(0o755)
    (tmp_path / "include" / "pto").mkdir(parents=True)
    (tmp_path / "include" / "pto" / "pto-inst.hpp").write_text("//\n")
    with pytest.raises(UsageError, match=r"native coverage needs clang\+\+.*--no-native-coverage"):
        build.lookup(build.Settings(pto_isa=tmp_path, cxx=str(fake), coverage=True, cache_dir=tmp_path / "c"))
    with pytest.raises(UsageError, match="does not go with native coverage"):
        build.lookup(build.Settings(pto_isa=tmp_path, cxx=str(fake), coverage=True, sanitize=("address",),
                                    cache_dir=tmp_path / "c"))


def test_libfuzzer_coverage_is_its_last_report():
    log = ("INFO: Seed: 1\n#2\tINITED cov: 12 ft: 13 corp: 1/1b exec/s: 0 rss: 40Mb\n"
           "#64\tNEW    cov: 1303 ft: 7362 corp: 9/99b lim: 4 exec/s: 0 rss: 60Mb L: 4/4 MS: 1 ChangeByte-\n"
           "#128\tpulse  cov: 1303 ft: 7400 corp: 9/99b\n")
    assert atheris_engine.libfuzzer_coverage(log) == {"cov": 1303, "ft": 7400}
    assert atheris_engine.libfuzzer_coverage("no stats") == {"cov": 0, "ft": 0}


def test_without_a_loaded_libfuzzer_nothing_is_exposed():
    assert atheris_engine.expose_libfuzzer() is False  # pytest's process never starts libFuzzer


def test_a_native_finding_replays_out_of_process_with_clang():
    if build.clang_path() is None:
        pytest.skip("needs clang++")
    got = like(build.Settings(coverage=True), {"native_coverage": True, "sanitize": []})
    assert got.coverage is False and got.cxx == build.clang_path()
    plain = like(build.Settings(), {"sanitize": []})
    assert plain.coverage is False and plain.cxx is None  # a finding of the g++ harness keeps its compiler


@pytest.mark.parametrize(("args", "said"), [
    (["--engine", "random", "--oracles", "cpu,cpusim", "--runs", "1", "--native-coverage"], "--engine atheris"),
    (["--engine", "atheris", "--oracles", "spec,cpu", "--runs", "1", "--native-coverage"], "add cpusim"),
])
def test_native_coverage_where_it_does_not_apply_is_one_line(cli, args, said):
    res = cli("fuzz", "tmrgsort", *args)
    assert res.code == 2, res.out + res.err
    assert said in res.err and "Traceback" not in res.err
    assert len(res.err.strip().splitlines()) == 1 and not res.out


# ---- the library against the harness process ---------------------------------------------------------------------

@needs_native
def test_the_library_answers_as_the_harness_process(native):
    assert native.coverage and native.library.is_file() and not native.executable.exists()
    assert native.manifest["coverage"] is True and "-fsanitize=fuzzer-no-link" in native.manifest["flags"]
    process = build.get(_settings(cxx=build.clang_path()))  # the same compiler, out of process, uninstrumented
    for lens, seed in (((4, 4), 2), ((23, 41, 7), 3), ((1, 64, 0, 5), 4)):
        request = _mrgsort_request(lens, n=8, seed=seed)
        worker = Worker(process.executable, 30.0)
        try:
            want = _run(worker, *request)
        finally:
            worker.close()
        got = _run(Library(native.library), *request)
        np.testing.assert_array_equal(got, want)
        assert want[:, :8].any(), lens


@needs_native
def test_a_request_of_the_wrong_size_is_refused_not_run(native):
    from ptofuzz.backends.cpusim.worker import HarnessError

    valid, a, mode = _mrgsort_request()
    with pytest.raises(HarnessError, match="sizes"):
        _run(Library(native.library), valid, a[:, :3], mode)  # one list short of the four the header asks for


@needs_native
def test_the_deep_plant_fires_on_its_score_only_in_process_and_out(planted):
    plain, deep = Library(planted.library, plant="off"), Library(planted.library, plant="deep")
    worker = Worker(build.get(_settings(cxx=build.clang_path(), plant="deep")).executable, 30.0, plant="deep")

    def flipped(head: int | None, **kw) -> tuple[np.ndarray, np.ndarray]:
        """Per case, the bits the planted library and the planted harness process changed in the first output
        byte, against the same library unplanted."""
        request = _mrgsort_request(head=head, **kw)
        base = _run(plain, *request)[:, 0]
        return _run(deep, *request)[:, 0] ^ base, _run(worker, *request)[:, 0] ^ base

    try:
        for lens in ((4, 4), (23, 41, 7, 5), (1,)):
            for got in flipped(DEEP, lens=lens):
                assert (got == 1).all(), lens
        for head in (None, DEEP + 1, DEEP - 0x10, DEEP ^ 0x01000000, DEEP ^ 0x80000000):  # one bit or byte off
            for got in flipped(head):
                assert not got.any(), head
        for got in flipped(DEEP, dst_records=0):  # no valid destination element: nothing to corrupt
            assert not got.any()
    finally:
        worker.close()


# ---- under the engine ---------------------------------------------------------------------------------------------

@pytest.mark.slow
@needs_native
def test_under_atheris_libfuzzer_sees_the_simulator_s_branches(cli, native, tmp_path):
    """The same engine and executions with and without native coverage: the simulator's branches lift libFuzzer's
    coverage far above the oracles' own (measured: about 1,300 PCs against about 100 for TMRGSORT)."""
    cov = {}
    for flag in ("--native-coverage", "--no-native-coverage"):
        res = cli("fuzz", "tmrgsort", "--engine", "atheris", "--oracles", "cpu,cpusim", "--runs", "300", "--json",
                  flag, "--out", str(tmp_path / flag))
        assert res.code == 0, res.err
        data = json.loads(res.out)
        assert data["libfuzzer"]["native_coverage"] is (flag == "--native-coverage")
        assert flag in data["command"] or flag == "--no-native-coverage"
        cov[flag] = data["libfuzzer"]["cov"]
    assert cov["--no-native-coverage"] > 0
    assert cov["--native-coverage"] > cov["--no-native-coverage"] + 500, cov


@needs_native
def test_sim_build_says_it_built_the_library(cli, native):
    res = cli("sim", "build", "--op", "tmrgsort", "--native-coverage")
    assert res.code == 0, res.err
    assert "native-coverage library" in res.out and build.LIBRARY in res.out
    res = cli("sim", "build", "--op", "tmrgsort", "--native-coverage", "--json")
    data = json.loads(res.out)
    assert data["coverage"] is True and data["folder"] == str(native.folder)


def test_an_in_process_hang_is_libfuzzer_s_timeout_of_a_batch():
    assert atheris_engine.native_timeout(10.0) == 60  # the default: a minute an input
    assert atheris_engine.native_timeout(30.0) == 180  # six times the per-case timeout
    assert atheris_engine.native_timeout(30.1) == 181  # rounded up, never down
    assert atheris_engine.native_timeout(1e-6) == 60


@pytest.mark.parametrize(("log", "said"), [
    ("==7== ERROR: libFuzzer: deadly signal\nartifact_prefix='/o/'; Test unit written to /o/crash-ab\n",
     "the fuzzing process died under atheris (exit -6, libFuzzer: deadly signal)"),
    ("==7== ERROR: libFuzzer: timeout after 61 seconds\nTest unit written to /o/timeout-cd\n",
     "libFuzzer: timeout after 61 seconds"),
    ("Traceback...\nValueError: bad\n==7== ERROR: libFuzzer: deadly signal\nTest unit written to /o/crash-ef\n",
     "an oracle raised under atheris (exit -6): ValueError: bad"),
])
def test_a_native_death_is_told_apart_from_an_oracle_exception(tmp_path, log, said):
    from ptofuzz.engine import campaign

    path = tmp_path / "libfuzzer.log"
    path.write_text(log)
    text = atheris_engine._crash_message(-6, path, tmp_path, campaign.make_plan("tmrgsort", ["cpu", "spec"]))
    assert said in text
    assert "--rerun /o/" in text  # the saved input, and the command that runs it again
    assert ("--no-native-coverage" in text) is ("oracle raised" not in said)


@needs_native
def test_without_a_fuzzer_the_library_counts_its_own_coverage(native, tmp_path):
    """Loaded with no libFuzzer, the library's counters are its own: a request reaches some of the simulator's
    code, a second request of another geometry reaches more, and asking again without running adds nothing.
    (In a process of its own: this one may have loaded the library already.)"""
    import subprocess
    import sys

    code = f"""
import sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_cpusim_native import _mrgsort_request, _run
from ptofuzz.backends.cpusim.inprocess import Library
lib = Library(sys.argv[1])
print(lib.covered())
_run(lib, *_mrgsort_request((4, 4)))
a = lib.covered()
_run(lib, *_mrgsort_request((23, 41, 7, 5)))
b = lib.covered()
print(a, b, lib.covered())
"""
    res = subprocess.run([sys.executable, "-c", code, str(native.library)], capture_output=True, text=True,
                         check=False, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    first, rest = res.stdout.split("\n", 1)
    a, b, again = (int(x) for x in rest.split())
    assert int(first) == 0 or int(first) < a  # the library's start-up (static initialisers) may count a few
    assert 20 < a < b == again
