"""The cpusim oracle: the real pto-isa CPU simulator built from ``PTO_ISA_DIR`` with ptofuzz's harness.

Tests that build the simulator skip (with the reason) when ``PTO_ISA_DIR`` is unset; builds go to the user's
cache (``$XDG_CACHE_HOME/ptofuzz``), so only the first run pays for them. The bad-input tests need neither a
pto-isa tree nor a compiler.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from pathlib import Path

import numpy as np
import pytest

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.backend import CpusimBackend
from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, NAN, UNDEFINED, ZERO, Case, Tile
from ptofuzz.core.records import replace
from ptofuzz.engine import campaign
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry
from ptofuzz.io import records

PTO_ISA = os.environ.get("PTO_ISA_DIR")
_NO_SIM = pytest.mark.skipif(not PTO_ISA, reason="PTO_ISA_DIR is unset: set it to a pto-isa tree (CI uses the "
                                                 "pinned snapshot) to run the real simulator")


def needs_sim(test):
    """A test of the real simulator: marked ``cpusim``, skipped with the reason where PTO_ISA_DIR is unset."""
    return pytest.mark.cpusim(_NO_SIM(test))
TPART = ("TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN")
ARG = ("TPARTARGMAX", "TPARTARGMIN")
ELEMENTWISE = ("TADD", "TSUB", "TMUL", "TMAX", "TMIN")


def _eval(real: CpusimBackend, inst, case: Case, inputs):
    """``case`` on its platform: the simulator backend for a cpusim case, else the instruction's model."""
    return real.evaluate(inst, case, inputs) if case.platform == "cpusim" else inst.evaluate(case, inputs)


def _worker_cases(plan) -> int:
    """Cases the campaign's simulator worker has run in this process."""
    return plan.backends.get("cpusim").simulator().worker().cases


def _fake_tree(tmp_path: Path) -> Path:
    (tmp_path / "tree" / "include" / "pto").mkdir(parents=True)
    (tmp_path / "tree" / "include" / "pto" / "pto-inst.hpp").write_text("// not really\n")
    return tmp_path / "tree"


def _fake_compiler(tmp_path: Path) -> Path:
    cxx = tmp_path / "fake-c++"
    cxx.write_text("#!/bin/sh\necho 'fake c++ 1.0'\n")
    cxx.chmod(cxx.stat().st_mode | stat.S_IEXEC)
    return cxx


# ---- bad input: one line, exit 2 (no compiler, no pto-isa needed) -----------------------------------------------

def test_no_tree(cli, monkeypatch):
    monkeypatch.delenv("PTO_ISA_DIR", raising=False)
    r = cli("sim", "build")
    assert r.code == 2 and r.err.count("\n") == 1
    assert "needs a pto-isa tree: pass --pto-isa DIR or set PTO_ISA_DIR" in r.err


def test_missing_tree_and_a_tree_without_include_pto(cli, tmp_path):
    r = cli("sim", "build", "--pto-isa", tmp_path / "nowhere")
    assert r.code == 2 and "is no directory" in r.err and r.err.count("\n") == 1
    r = cli("sim", "build", "--pto-isa", tmp_path)
    assert r.code == 2 and r.err.count("\n") == 1
    assert "is not a pto-isa tree: it has no include/pto/pto-inst.hpp" in r.err


def test_no_compiler(cli, tmp_path, monkeypatch):
    tree = _fake_tree(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.delenv("CXX", raising=False)
    r = cli("sim", "build", "--pto-isa", tree)
    assert r.code == 2 and r.err.count("\n") == 1
    assert "no C++ compiler found (looked for g++ and clang++)" in r.err
    monkeypatch.setenv("CXX", "no-such-c++")
    r = cli("sim", "build", "--pto-isa", tree)
    assert r.code == 2 and "C++ compiler 'no-such-c++' (from CXX) not found" in r.err


def test_unwritable_cache(cli, tmp_path, monkeypatch):
    tree = _fake_tree(tmp_path)
    monkeypatch.setenv("CXX", str(_fake_compiler(tmp_path)))
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    r = cli("sim", "build", "--pto-isa", tree, "--cache-dir", blocker / "cache")
    assert r.code == 2 and r.err.count("\n") == 1
    assert f"cannot write the build cache '{blocker / 'cache' / 'cpusim'}'" in r.err and "--cache-dir" in r.err


def test_unknown_sanitizer_and_cpusim_on_an_instruction_without_it(cli):
    r = cli("sim", "build", "--sanitize", "address,thread")
    assert r.code == 2 and "--sanitize 'thread' is not one of: address, undefined" in r.err
    r = cli("fuzz", "tsort", "--oracles", "spec,cpusim", "--runs", "10")
    assert r.code == 2 and "TSORT is not in the cpusim harness yet; cpusim runs: tpartadd" in r.err


def test_cache_key_changes_with_the_tree_contents(tmp_path):
    tree = _fake_tree(tmp_path)
    first = build.tree_hash(tree / "include")
    (tree / "include" / "pto" / "extra.hpp").write_text("int x;\n")
    assert build.tree_hash(tree / "include") != first


def test_commit_from_a_snapshot_file_else_the_tree_hash(tmp_path):
    tree = _fake_tree(tmp_path)
    assert build.commit_of(tree, "ab" * 32) == "tree:" + "ab" * 8
    (tree / "COMMIT").write_text("3186c381bd49e1164092e67ff1b3564302754e76\n")
    assert build.commit_of(tree, "ab" * 32) == "3186c381bd49e1164092e67ff1b3564302754e76"


# ---- the real simulator -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sim() -> build.Build:
    if not PTO_ISA:
        pytest.skip("PTO_ISA_DIR is unset")
    return build.get(build.Settings(pto_isa=Path(PTO_ISA)))


@needs_sim
def test_the_build_is_cached_and_says_what_it_holds(sim):
    again = build.get(build.Settings(pto_isa=Path(PTO_ISA)))
    assert again.cached and again.folder == sim.folder and again.manifest == sim.manifest
    m = sim.manifest
    for op in TPART + ARG:  # the cpu model's seven types (TPartCheck's static_assert takes no other)
        assert set(m["kernels"][op]) == {"float32", "float16", "bfloat16", "int32", "int16", "int8", "uint8"}
        assert sim.unsupported_reason(op, "uint32") == "the cpu model does not accept it, so the harness leaves it out"
    for op in ELEMENTWISE:  # templates over every 8- to 32-bit type
        assert set(m["kernels"][op]) == {"float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32",
                                         "uint16", "uint8"}
    others = [op for op in build.OPS if op not in build.REDUCEIDX_OPS]
    assert {op: m["rejected"][op] for op in others} == {op: {} for op in others}
    assert sorted(m["ops"]) == sorted(build.OPS)
    for op in build.REDUCEIDX_OPS:  # skipped with TReduceIdx.hpp (GCC 12), each type saying so; else all there
        if m["reduceidx_skipped"]:
            assert m["kernels"][op] == [] and set(m["rejected"][op].values()) == {build.REDUCEIDX_SKIPPED}
        else:
            assert m["rejected"][op] == {} and "float32" in m["kernels"][op]
    assert set(m["objects"]) == set(build.OPS)
    assert m["tree_hash"] == build.tree_hash(Path(PTO_ISA) / "include")
    commit_file = Path(PTO_ISA) / "COMMIT"
    if commit_file.is_file() and not (Path(PTO_ISA) / ".git").exists():
        assert m["commit"] == commit_file.read_text().strip()
    assert sim.executable.is_file() and m["compiler"]


@needs_sim
def test_hand_worked_tpartadd(sim):
    """dst 2x32, src0 1x32, src1 2x16: row 0 adds where both are valid and copies src0 beyond column 16; row 1
    copies src1 in its first 16 columns and writes 0 where neither source is valid."""
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    a = np.arange(64, dtype=np.float32).reshape(2, 32)
    b = (100 * np.arange(64, dtype=np.float32)).reshape(2, 32)
    case = Case("TPARTADD", "cpusim", "float32", (("dst", Tile(2, 32, 2, 32)), ("src0", Tile(2, 32, 1, 32)),
                                                  ("src1", Tile(2, 32, 2, 16))))
    out = _eval(real, registry.get("tpartadd"), case, {"src0": a.view(np.uint32), "src1": b.view(np.uint32)})
    got = out.outputs["dst"].view(np.float32)
    want = np.zeros((2, 32), dtype=np.float32)
    want[0, :16] = 101 * np.arange(16)
    want[0, 16:] = np.arange(16, 32)
    want[1, :16] = 100 * np.arange(32, 48)
    np.testing.assert_array_equal(got, want)
    assert (out.classes["dst"] == EXACT).all()


@needs_sim
@pytest.mark.parametrize(("op", "want"), [
    ("TADD", [0x7FC00000, 0x0, 0x7FC00000, 0xFFC00000, 0x40400000]),
    ("TSUB", [0x7FC00000, 0x80000000, 0x7FC00000, 0x7F800000, 0xBF800000]),
    ("TMUL", [0x7FC00000, 0x80000000, 0x7FC00000, 0xFF800000, 0x40000000]),
    ("TMAX", [0x7FC00000, 0x80000000, 0x3F800000, 0x7F800000, 0x40000000]),  # std::max: src0 on a tie or NaN
    ("TMIN", [0x7FC00000, 0x80000000, 0x3F800000, 0xFF800000, 0x3F800000]),
])
def test_hand_worked_elementwise_in_the_real_simulator(sim, op, want):
    """src0 = [NaN, -0, 1, inf, 1], src1 = [1, +0, NaN, -inf, 2] (float32) through the simulator: its bits, and
    the classes it is compared under (the cpu model's: a NaN result "some NaN"; max/min with a NaN operand
    undefined, of mixed zeros "some zero"); int16 wraps where the page leaves overflow open."""
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    inst = registry.get(op)
    t = Tile(1, 32, 1, 5)
    a = np.zeros((1, 32), np.float32)
    b = np.zeros((1, 32), np.float32)
    a[0, :5] = [np.nan, -0.0, 1, np.inf, 1]
    b[0, :5] = [1, 0.0, np.nan, -np.inf, 2]
    out = real.evaluate(inst, Case(op, "cpusim", "float32", (("dst", t), ("src0", t), ("src1", t))),
                        {"src0": a.view(np.uint32), "src1": b.view(np.uint32)})
    assert [int(x) for x in out.outputs["dst"][0, :5]] == want
    cls = list(out.classes["dst"][0, :6])
    if op in ("TMAX", "TMIN"):
        assert cls == [UNDEFINED, ZERO, UNDEFINED, EXACT, EXACT, UNDEFINED]
    else:
        assert cls == [NAN, EXACT, NAN, NAN if op == "TADD" else EXACT, EXACT, UNDEFINED]
    x = np.array([[32767, -32768, 5] + [0] * 29], np.int16)
    y = np.array([[1, -1, 7] + [0] * 29], np.int16)
    t = Tile(1, 32, 1, 3)
    out = real.evaluate(inst, Case(op, "cpusim", "int16", (("dst", t), ("src0", t), ("src1", t))),
                        {"src0": x.view(np.uint16), "src1": y.view(np.uint16)})
    got = out.outputs["dst"][0, :3].view(np.int16).tolist()
    assert got == {"TADD": [-32768, 32767, 12], "TSUB": [32766, -32767, -2], "TMUL": [32767, -32768, 35],
                   "TMAX": [32767, -1, 7], "TMIN": [1, -32768, 5]}[op]
    overflow = {"TADD": [1, 1, 0], "TMUL": [0, 1, 0]}.get(op, [0, 0, 0])
    assert [int(c) for c in out.classes["dst"][0, :3]] == [UNDEFINED if o else EXACT for o in overflow]


@needs_sim
def test_against_spec_cpusim_is_excused_element_by_element_only_where_its_page_is_open(sim):
    """TMAX float32 against pto-spec: the simulator's NaN-operand and mixed-zero elements show nothing (the page
    leaves them open), while one wrong bit in an element the page pins, in the same case, is a mismatch."""
    from ptofuzz.engine.differential import compare_batch

    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    inst = registry.get("TMAX")
    t = Tile(1, 32, 1, 32)
    case = Case("TMAX", "cpusim", "float32", (("dst", t), ("src0", t), ("src1", t)))
    a = np.ones((1, 32), np.float32)
    b = np.full((1, 32), 2, np.float32)
    a[0, 0], b[0, 1] = np.nan, np.nan
    a[0, 2], b[0, 2] = -0.0, 0.0
    inputs = {"src0": a.view(np.uint32), "src1": b.view(np.uint32)}
    sim_out = real.evaluate(inst, case, inputs)
    spec_out = inst.evaluate(replace(case, platform="spec"), inputs)
    assert sim_out.outputs["dst"][0, 0] != spec_out.outputs["dst"][0, 0]  # NaN (std::max) against spec's 2.0
    assert not compare_batch(inst, case, {"cpusim": sim_out, "spec": spec_out}, None).counts
    planted = sim_out.copy()
    planted.outputs["dst"][0, 5] ^= 1  # 2.0 -> one ULP more, in an element both pages pin
    sigs = compare_batch(inst, case, {"cpusim": planted, "spec": spec_out}, None).counts
    assert [(s.pair, s.kind, s.region) for s in sigs] == [("cpusim~spec", "ulp-1", "op")]


@needs_sim
def test_nan_bits_of_the_simulator(sim):
    """What the simulator's NaN bits are (g++ on x86-64; the page says only "a NaN"): float32 returns
    the first NaN operand quieted with its sign; half (GCC's _Float16 arithmetic) returns src1's NaN when both
    are NaN."""
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    t = Tile(1, 32, 1, 32)
    inst = registry.get("tpartadd")
    a = np.full((1, 32), 0x3F800000, dtype=np.uint32)
    b = a.copy()
    a[0, 0], b[0, 0] = 0x7F800001, 0xFFC00002  # sNaN + qNaN
    b[0, 1] = 0xFF800003  # 1.0 + -sNaN
    a[0, 2], b[0, 2] = 0xFFC00005, 0x7F800006  # -qNaN + sNaN
    out = _eval(real, inst, Case("TPARTADD", "cpusim", "float32", (("dst", t), ("src0", t), ("src1", t))),
                        {"src0": a, "src1": b})
    assert [hex(x) for x in out.outputs["dst"][0, :3]] == ["0x7fc00001", "0xffc00003", "0xffc00005"]
    h = np.full((1, 32), 0x3C00, dtype=np.uint16)
    g = h.copy()
    h[0, 0], g[0, 0] = 0x7C01, 0xFE02
    g[0, 1] = 0xFC03
    out = _eval(real, inst, Case("TPARTADD", "cpusim", "float16", (("dst", t), ("src0", t), ("src1", t))),
                        {"src0": h, "src1": g})
    assert [hex(x) for x in out.outputs["dst"][0, :3]] == ["0xfe02", "0xfe03", "0x4000"]


@pytest.mark.slow
@needs_sim
def test_int32_overflow_is_undefined_behaviour_in_the_simulator(cli, sim, tmp_path):
    """cpusim-int32-overflow-ub: TPARTADD's `dst = src0 + src1` on int32_t overflows a signed int (UB in C++);
    the cpu model (and in practice the -O2 build) wraps. UBSan reports it as a crash finding, labelled as the known
    defect (saved, not new: the campaign exits 0)."""
    r = cli("fuzz", "tpartadd", "--oracles", "cpu,cpusim", "--runs", "1000", "--dtype", "int32", "--sanitize",
            "address,undefined", "--sim-plant", "off", "--seed", "1", "--out", tmp_path / "o", "--json")
    assert r.code == 0, r
    sigs = [(s["signature"], s["defect"], s["new"]) for s in json.loads(r.out)["signatures"]]
    assert sigs == [("TPARTADD/int/cpusim/crash/signed-integer-overflow/-", "cpusim-int32-overflow-ub", False)]
    rec = json.loads(next((tmp_path / "o").glob("*/record.json")).read_text())
    assert "runtime error: signed integer overflow" in rec["expect"]["cpusim"]["reason"]
    assert "TPartAdd.hpp" in rec["expect"]["cpusim"]["reason"]


@pytest.mark.slow
@needs_sim
@pytest.mark.parametrize(("op", "dtype", "cxx", "header"), [
    ("tadd", "int32", None, "TAdd.hpp"),  # (TSUB's TSub.hpp:25 is TMul.hpp:25's pattern: the table shows it)
    ("tmul", "uint16", "clang++-19", "TMul.hpp"),  # int promotion: g++ narrows the multiply, clang does not
    ("tabs", "int32", None, "TAbs.hpp"),
    ("tneg", "int32", None, "ElementOp.h"),
])
def test_elementwise_signed_overflow_is_undefined_behaviour_in_the_simulator(cli, sim, tmp_path, monkeypatch, op,
                                                                               dtype, cxx, header):
    """cpusim-elementwise-signed-overflow-ub and cpusim-int-min-negation-ub: UBSan reports the simulator's signed
    overflow (int32 operands; uint16 products promoted to int; -INT32_MIN) as a crash finding, labelled as the
    defect (saved, not new)."""
    if cxx is not None:
        if not shutil.which(cxx):
            pytest.skip(f"{cxx} is not installed (.ci/run installs it)")
        monkeypatch.setenv("CXX", cxx)
    r = cli("fuzz", op, "--oracles", "cpu,cpusim", "--runs", "1000", "--dtype", dtype, "--sanitize", "undefined",
            "--seed", "1", "--out", tmp_path / "o", "--json")
    assert r.code == 0, r
    sigs = [(s["signature"], s["defect"], s["new"]) for s in json.loads(r.out)["signatures"]]
    if op in ("tabs", "tneg"):
        assert sigs == [(f"{op.upper()}/int/cpusim/crash/negation-of-2147483648-cannot-be-represe/-",
                         "cpusim-int-min-negation-ub", False)]
    else:
        assert sigs == [(f"{op.upper()}/int/cpusim/crash/signed-integer-overflow/-",
                         "cpusim-elementwise-signed-overflow-ub", False)]
    rec = json.loads(next((tmp_path / "o").glob("*/record.json")).read_text())
    assert ("runtime error: negation of -2147483648" if op in ("tabs", "tneg") else
            "runtime error: signed integer overflow") in rec["expect"]["cpusim"]["reason"]
    assert header in rec["expect"]["cpusim"]["reason"]


@pytest.mark.slow
@needs_sim
@pytest.mark.parametrize(("op", "dtype"), [("tshl", "int32"), ("tshrs", "int8")])
def test_a_shift_count_outside_the_promoted_width_is_undefined_behaviour_in_the_simulator(cli, sim, tmp_path, op,
                                                                                          dtype):
    """cpusim-shift-count-ub: ElementOp.h shifts by the count as C++ does; UBSan reports a negative count and one
    of 32 or more as crash findings, labelled as the defect (saved, not new)."""
    r = cli("fuzz", op, "--oracles", "cpu,cpusim", "--runs", "1000", "--dtype", dtype, "--sanitize", "undefined",
            "--seed", "1", "--out", tmp_path / "o", "--json")
    assert r.code == 0, r
    sigs = sorted((s["signature"], s["defect"], s["new"]) for s in json.loads(r.out)["signatures"])
    assert sigs == [(f"{op.upper()}/int/cpusim/crash/shift-exponent-{why}/-", "cpusim-shift-count-ub", False)
                    for why in ("negative", "too-large")]
    reasons = [json.loads(p.read_text())["expect"]["cpusim"]["reason"] for p in (tmp_path / "o").glob("*/record.json")]
    assert all("ElementOp.h" in x and "runtime error: shift exponent" in x for x in reasons)


@needs_sim
@pytest.mark.parametrize(("op", "want", "classes"), [
    ("TADDS", [2.0, -1.5, "nan", 0.5, 4.5], [EXACT, EXACT, NAN, EXACT, EXACT]),
    ("TSUBS", [1.0, -2.5, "nan", -0.5, 3.5], [EXACT, EXACT, NAN, EXACT, EXACT]),
    ("TMULS", [0.75, -1.0, "nan", -0.0, 2.0], [EXACT, EXACT, NAN, EXACT, EXACT]),
    ("TMAXS", [1.5, 0.5, "nan", 0.5, 4.0], [EXACT, EXACT, UNDEFINED, EXACT, EXACT]),
    ("TMINS", [0.5, -2.0, "nan", -0.0, 0.5], [EXACT, EXACT, UNDEFINED, EXACT, EXACT]),
    ("TLRELU", [1.5, -1.0, "nan", -0.0, 4.0], [EXACT, EXACT, NAN, EXACT, EXACT]),  # slope 0.5 below zero
])
def test_hand_worked_tile_scalar_in_the_real_simulator(sim, op, want, classes):
    """src0 = [1.5, -2, NaN, -0, 4], scalar 0.5 (float32) through the simulator: its values, and the classes
    it is compared under (the cpu model's)."""
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    t = Tile(1, 32, 1, 5)
    case = Case(op, "cpusim", "float32", (("dst", t), ("src0", t), ("scalar", Tile(1, 1, 1, 1))))
    a = np.zeros((1, 32), np.float32)
    a[0, :5] = [1.5, -2, np.nan, -0.0, 4]
    out = real.evaluate(registry.get(op), case, {"src0": a.view(np.uint32),
                                                 "scalar": np.array([[0.5]], np.float32).view(np.uint32)})
    got = out.outputs["dst"].view(np.float32)[0, :5]
    assert [("nan" if np.isnan(g) else (float(g), bool(np.signbit(g)))) for g in got] == \
        [("nan" if w == "nan" else (float(w), bool(np.signbit(w)))) for w in want]
    assert list(out.classes["dst"][0, :6]) == [*classes, UNDEFINED]


@needs_sim
def test_hand_worked_bitwise_in_the_real_simulator(sim):
    """int16 through the simulator's TAND..TSHRS: src0 = [MIN, -1, 0x1234, 5, -8], src1 / the scalar as written;
    the bits, and the classes it is compared under (the cpu model's: a shift count outside [0, 16) undefined,
    what the promoted C++ shift gives there is no golden)."""
    from ptofuzz.engine.differential import compare_batch

    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    t = Tile(1, 32, 1, 5)
    a = np.zeros((1, 32), np.int16)
    a[0, :5] = [-32768, -1, 0x1234, 5, -8]
    other = np.zeros((1, 32), np.int16)
    other[0, :5] = [-1, 0x00FF, 0x0F0F, 0, 0x5555]
    counts = np.zeros((1, 32), np.int16)
    counts[0, :5] = [15, 3, 4, 16, 1]  # 16: outside [0, 16)
    want = {"TAND": [-32768, 0xFF, 0x0204, 0, 0x5550], "TOR": [-1, -1, 0x1F3F, 5, -3],
            "TXOR": [0x7FFF, -256, 0x1D3B, 5, 0x5555 ^ -8], "TSHL": [0, -8, 0x2340, 0, -16],
            "TSHR": [-1, -1, 0x123, 0, -4]}
    for op, bits in want.items():
        inst = registry.get(op)
        second = counts if op in ("TSHL", "TSHR") else other
        case = Case(op, "cpusim", "int16", (("dst", t), ("src0", t), ("src1", t)))
        inputs = {"src0": a.view(np.uint16), "src1": second.view(np.uint16)}
        out = real.evaluate(inst, case, inputs)
        got = out.outputs["dst"][0, :5].view(np.int16).tolist()
        assert got == np.array(bits, np.int64).astype(np.int16).tolist(), op
        model = inst.evaluate(replace(case, platform="cpu"), inputs)
        open_ = [UNDEFINED if op in ("TSHL", "TSHR") and k == 3 else EXACT for k in range(5)]
        assert model.classes["dst"][0, :5].tolist() == open_, op
        assert not compare_batch(inst, case, {"cpu": model, "cpusim": out}, None).counts, op
    s = Tile(1, 1, 1, 1)
    for op, scalar, bits in (("TANDS", 0x0F0F, [0, 0x0F0F, 0x0204, 5, 0x0F08]), ("TORS", 0x0F0F,
                             [-32768 | 0x0F0F, -1, 0x1F3F, 0x0F0F, -1]), ("TXORS", -1, [32767, 0, ~0x1234, -6, 7]),
                             ("TSHLS", 4, [0, -16, 0x2340, 80, -128]), ("TSHRS", 4, [-2048, -1, 0x123, 0, -1])):
        case = Case(op, "cpusim", "int16", (("dst", t), ("src0", t), ("scalar", s)))
        out = real.evaluate(registry.get(op), case, {"src0": a.view(np.uint16),
                                                     "scalar": np.array([[scalar]], np.int16).view(np.uint16)})
        got = out.outputs["dst"][0, :5].view(np.int16).tolist()
        assert got == np.array(bits, np.int64).astype(np.int16).tolist(), op
        assert list(out.classes["dst"][0, :6]) == [EXACT] * 5 + [UNDEFINED]


@needs_sim
def test_hand_worked_unary_in_the_real_simulator(sim):
    """src = [-0, -1.5, 2, -inf, NaN, +0] (float32) through TABS, TNEG, TRELU, once in place: the simulator's
    bits, the one disagreement with the cpu model being TABS(-0) = -0 (cpusim-tabs-negative-zero); TNOT of
    int16."""
    from ptofuzz.engine.differential import compare_batch

    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    x = np.zeros((1, 32), np.float32)
    x[0, :6] = [-0.0, -1.5, 2, -np.inf, np.nan, 0.0]
    want = {"TABS": [0x80000000, 0x3FC00000, 0x40000000, 0x7F800000, 0x7FC00000, 0],
            "TNEG": [0, 0x3FC00000, 0xC0000000, 0x7F800000, 0xFFC00000, 0x80000000],
            "TRELU": [0x80000000, 0, 0x40000000, 0, 0x7FC00000, 0]}
    for op, bits in want.items():
        inst = registry.get(op)
        for params in ((), (("inplace", "src"),)):
            t = Tile(1, 32, 1, 6)
            case = Case(op, "cpusim", "float32", (("dst", t), ("src", t)), params)
            inputs = {"src": x.view(np.uint32)}
            out = real.evaluate(inst, case, inputs)
            assert [int(v) for v in out.outputs["dst"][0, :6]] == bits, (op, params)
            model = inst.evaluate(replace(case, platform="cpu"), inputs)
            sigs = compare_batch(inst, case, {"cpu": model, "cpusim": out}, None).counts
            assert [(s.pair, s.kind) for s in sigs] == ([("cpu~cpusim", "signed-zero")] if op == "TABS" else [])
    t = Tile(1, 32, 1, 3)
    y = np.zeros((1, 32), np.int16)
    y[0, :3] = [0, -1, 0x1234]
    out = real.evaluate(registry.get("TNOT"), Case("TNOT", "cpusim", "int16", (("dst", t), ("src", t))),
                        {"src": y.view(np.uint16)})
    assert out.outputs["dst"][0, :3].view(np.int16).tolist() == [-1, 0, ~0x1234]


@needs_sim
def test_hand_worked_tsort32(sim):
    """One 1x40 float32 row, values 0..39 and indices 100..139: the first 32-block sorted descending into
    (value, index) records, then the 8-element tail block."""
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    inst = registry.get("tsort32")
    case = inst.explicit_case("cpu", {"dtype": "float32", "shape": (1, 40)}).on("cpusim")
    src = np.arange(40, dtype=np.float32).reshape(1, 40).view(np.uint32)
    idx = (100 + np.arange(40, dtype=np.uint32)).reshape(1, 40)
    out = _eval(real, inst, case, {"src": src, "idx": idx})
    words = out.outputs["dst"][0]
    values = words[0::2].view(np.float32).tolist()
    assert values == [*range(31, -1, -1), *range(39, 31, -1)]
    assert words[1::2].tolist() == [*range(131, 99, -1), *range(139, 131, -1)]


@needs_sim
def test_hand_worked_tmrgsort(sim):
    """Two float32 lists (5, 3) and (4, 1) with indices 0, 1 and 10, 11 merge into 5, 4, 3, 1; each list gave two
    records."""
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    inst = registry.get("tmrgsort")
    case = inst.explicit_case("cpu", {"dtype": "float32", "lists": 2, "shape": (1, 2)}).on("cpusim")

    def words(*records: tuple[float, int]) -> np.ndarray:
        return np.array([[w for v, i in records for w in (int(np.float32(v).view(np.uint32)), i)]], np.uint32)

    out = _eval(real, inst, case, {"src0": words((5, 0), (3, 1)), "src1": words((4, 10), (1, 11))})
    np.testing.assert_array_equal(out.outputs["dst"], words((5, 0), (4, 10), (3, 1), (1, 11)))
    assert out.extra["executed"] == [2, 2, 0, 0]


@needs_sim
def test_the_simulator_s_16_bit_tsort32_blocks_overlap_against_the_page(sim):
    """Defect cpusim-tsort32-16bit-overlap, hand-worked: one float16 row of 64 values 0..63 (indices 0..63). The
    page puts block 1's 32 records at 32..63; the simulator writes them at 16..47, over block 0's second half,
    and never writes 48..63. The cpu model follows the page, so the two disagree exactly there."""
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    inst = registry.get("tsort32")
    case = inst.explicit_case("cpu", {"dtype": "float16", "shape": (1, 64)})
    inputs = {"src": np.arange(64, dtype=np.float16).reshape(1, 64).view(np.uint16),
              "idx": np.arange(64, dtype=np.uint32).reshape(1, 64)}
    got = _eval(real, inst, case.on("cpusim"), inputs)
    model = inst.evaluate(case, inputs)
    indices = got.outputs["dst"][0, 1::2]
    assert indices[:16].tolist() == list(range(31, 15, -1))  # block 0's first half survives
    assert indices[16:48].tolist() == list(range(63, 31, -1))  # block 1, at record 16 instead of 32
    assert (got.classes["dst"][0, 96:] == UNDEFINED).all()  # records 48..63: never written
    want = model.outputs["dst"][0, 1::2]
    assert want[:32].tolist() == list(range(31, -1, -1)) and want[32:64].tolist() == list(range(63, 31, -1))


@pytest.mark.slow
@needs_sim
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int16"])
def test_the_cpu_tsort32_model_agrees_with_the_simulator_but_for_its_named_defect(sim, dtype):
    """Random geometries and 20 % special values: 32-bit types agree everywhere; 16-bit types disagree only on
    rows of more than one block, and every such signature is the defect cpusim-tsort32-16bit-overlap (one block
    agrees)."""
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    plan = campaign.make_plan("tsort32", ["cpu", "cpusim"], seed=5, dtype=dtype, rate=0.2, sim=real.settings)
    before = _worker_cases(plan)
    store, stats = campaign.run_random(plan, runs=2000)
    assert stats.cases == 2000
    assert _worker_cases(plan) - before == 2000
    found = {k: (f.defect, f.new) for k, f in store.findings.items()}
    if dtype.endswith("32"):
        assert found == {}
    else:
        assert found and all(d == ("cpusim-tsort32-16bit-overlap", False) for d in found.values()), found
        assert all(k.endswith("/16-bit,cols>32") for k in found)


@pytest.mark.slow
@needs_sim
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_the_cpu_tmrgsort_model_agrees_with_the_simulator(sim, dtype):
    """Random merges (2-4 lists, exhausted or not, the single-list form): outputs and executed counts."""
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    inst = registry.get("tmrgsort")
    plan = campaign.make_plan("tmrgsort", ["cpu", "cpusim"], seed=6, dtype=dtype, rate=0.2, sim=real.settings)
    before = _worker_cases(plan)
    store, stats = campaign.run_random(plan, runs=2000)
    ran = _worker_cases(plan) - before
    assert stats.cases == 2000 and ran >= 1500  # the rest: pto-isa's topk kernel, not one instruction
    assert {k: f.hits for k, f in store.findings.items()} == {}
    src = seeded(6, "executed")
    compared = 0
    for _ in range(300):
        case = inst.random_case(src, "cpu", {"dtype": dtype})
        inputs = inst.draw_inputs(src, case, values.ValueMix.parse(None, 0.0))
        model, got = _eval(real, inst, case, inputs), _eval(real, inst, case.on("cpusim"), inputs)
        if got.kind == "unsupported":
            continue
        assert model.extra.get("executed") == got.extra.get("executed"), case
        compared += model.extra.get("executed") is not None
    assert compared >= 100


@needs_sim
def test_hand_worked_tpartargmax_in_the_real_simulator(sim):
    """pto-isa's own code: a smaller src0, a tie, -0 against +0 and a NaN src0 all take src1 (TPartArgCommon.hpp:
    src0 only when src0 > src1); where only src1 is valid its value and index; where neither, value 0 and
    index 0."""
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    nan = np.float32("nan")
    a = np.array([[1, 5, -0.0, nan, 2, 7], [3, 3, 3, 3, 3, 3]], np.float32)
    b = np.array([[2, 5, 0.0, 1, nan, 7], [9, 9, 9, 9, 9, 9]], np.float32)
    full, left = Tile(2, 6, 2, 6), Tile(2, 6, 1, 6)
    case = Case("TPARTARGMAX", "cpusim", "float32", (("dst", full), ("src0", Tile(2, 6, 1, 4)), ("src1", left),
                                                     ("dst_idx", full), ("src0_idx", Tile(2, 6, 1, 4)),
                                                     ("src1_idx", left)), (("idx", "uint32"),))
    idx0 = np.arange(12, dtype=np.uint32).reshape(2, 6)
    out = _eval(real, registry.get("tpartargmax"), case, {"src0": a.view(np.uint32), "src1": b.view(np.uint32),
                                                      "src0_idx": idx0, "src1_idx": idx0 + 100})
    assert out.kind == "ok", out.reason
    assert out.outputs["dst_idx"].tolist() == [[100, 101, 102, 103, 104, 105], [0] * 6]
    assert out.outputs["dst"][0].tolist() == b.view(np.uint32)[0].tolist() and (out.outputs["dst"][1] == 0).all()
    model = _eval(real, registry.get("tpartargmax"), case.on("cpu"), {"src0": a.view(np.uint32),
                                                                 "src1": b.view(np.uint32), "src0_idx": idx0,
                                                                 "src1_idx": idx0 + 100})
    for role in ("dst", "dst_idx"):
        np.testing.assert_array_equal(model.outputs[role], out.outputs[role])


@needs_sim
def test_outside_the_destination_valid_region_is_undefined(sim):
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    t = Tile(4, 32, 3, 5)
    case = Case("TPARTMAX", "cpusim", "int8", (("dst", t), ("src0", t), ("src1", t)))
    a = np.full((4, 32), 7, dtype=np.uint8)
    out = _eval(real, registry.get("tpartmax"), case, {"src0": a, "src1": a})
    assert (out.classes["dst"][:3, :5] == EXACT).all() and (out.outputs["dst"][:3, :5] == 7).all()
    assert (out.classes["dst"][3:] == UNDEFINED).all() and (out.classes["dst"][:, 5:] == UNDEFINED).all()


@pytest.mark.slow
@needs_sim
@pytest.mark.parametrize("op", TPART)
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int16", "int8", "uint8"])
def test_the_cpu_model_agrees_with_the_simulator(sim, op, dtype):
    """A few thousand random cases (random geometries, 20 % special values) per instruction and dtype."""
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    plan = campaign.make_plan(op, ["cpu", "cpusim"], seed=11, batch=256, dtype=dtype, rate=0.2, sim=real.settings)
    before = _worker_cases(plan)
    store, stats = campaign.run_random(plan, runs=3000)
    assert stats.cases == 3000
    assert _worker_cases(plan) - before == 3000  # every case really went through the simulator
    assert {k: f.hits for k, f in store.findings.items()} == {}


@pytest.mark.slow
@needs_sim
@pytest.mark.parametrize("op", ARG)
@pytest.mark.parametrize(("dtype", "index"), [("float32", "uint32"), ("float16", "int32"), ("int8", "uint32"),
                                              ("int16", "int32"), ("int32", "uint32"), ("uint8", "int32")])
def test_the_cpu_arg_model_agrees_with_the_simulator(sim, op, dtype, index):
    """Value and index, random geometries (any: the cpu checks none), 20 % special values and ties."""
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    plan = campaign.make_plan(op, ["cpu", "cpusim"], seed=12, batch=256, dtype=dtype, rate=0.2, index_dtype=index,
                              sim=real.settings)
    before = _worker_cases(plan)
    store, stats = campaign.run_random(plan, runs=3000)
    assert stats.cases == 3000 and _worker_cases(plan) - before == 3000
    assert {k: f.hits for k, f in store.findings.items()} == {}


@needs_sim
def test_cpusim_leaves_16_bit_index_tiles_out(sim):
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    t = Tile(1, 32, 1, 32)
    case = Case("TPARTARGMIN", "cpusim", "float16", tuple((r, t) for r in ("dst", "src0", "src1", "dst_idx",
                                                                            "src0_idx", "src1_idx")),
                (("idx", "int16"),))
    z = np.zeros((1, 32), np.uint16)
    out = _eval(real, registry.get("tpartargmin"), case, {"src0": z, "src1": z, "src0_idx": z, "src1_idx": z})
    assert out.kind == "unsupported" and "32-bit index tiles" in out.reason


@needs_sim
@pytest.mark.parametrize("op", TPART)
def test_bfloat16_is_a_placeholder_finding_not_a_flood_of_mismatches(sim, op):
    """cpusim-bf16-placeholder: without C++23 std::bfloat16_t, pto-isa's bfloat16_t is _Float16, so the
    simulator computes half arithmetic on bf16 bits. By default cpusim says bfloat16 is unsupported (with that
    reason); forced to run, its results are exactly IEEE half arithmetic on the same bits."""
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    t = Tile(2, 32, 2, 32)
    case = Case(op, "cpusim", "bfloat16", (("dst", t), ("src0", t), ("src1", t)))
    rng = np.random.default_rng(1)
    a = np.frombuffer(rng.uniform(-4, 4, 64).astype(np.float16).tobytes(), dtype=np.uint16).reshape(2, 32)
    b = np.frombuffer(rng.uniform(-4, 4, 64).astype(np.float16).tobytes(), dtype=np.uint16).reshape(2, 32)
    if op in ("TPARTMAX", "TPARTMIN"):  # bits that are NaN as half but huge (+ for max, - for min) as bf16
        b = (rng.integers(1, 0x200, size=(2, 32)) | (0x7E00 if op == "TPARTMAX" else 0xFE00)).astype(np.uint16)
    inst = registry.get(op)
    if sim.manifest["bfloat16_native"]:
        out = _eval(real, inst, case, {"src0": a, "src1": b})
        assert out.kind == "ok"
        return
    out = _eval(real, inst, case, {"src0": a, "src1": b})
    assert out.kind == "unsupported" and "cpusim-bf16-placeholder" in out.reason
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA), placeholder_bf16=True))
    out = _eval(real, inst, case, {"src0": a, "src1": b})
    ha, hb = a.view(np.float16), b.view(np.float16)
    want = {"TPARTADD": ha + hb, "TPARTMUL": ha * hb, "TPARTMAX": np.where(ha < hb, hb, ha),  # std::max
            "TPARTMIN": np.where(hb < ha, hb, ha)}[op]  # std::min
    np.testing.assert_array_equal(out.outputs["dst"], want.view(np.uint16))
    cpu = _eval(real, inst, case.on("cpu"), {"src0": a, "src1": b})
    assert (cpu.outputs["dst"] != out.outputs["dst"]).mean() > 0.5  # the cpu model computes bf16: most differ


@pytest.mark.slow
@needs_sim
def test_fuzz_spec_cpu_cpusim_finds_nothing_new(cli, sim, tmp_path):
    r = cli("fuzz", "tpartadd", "--oracles", "spec,cpu,cpusim", "--runs", "20000", "--seed", "4",
            "--out", tmp_path / "out", "--json")
    assert r.code == 0, r
    summary = json.loads(r.out)
    assert summary["cases"] == 20000 and summary["new"] == 0
    assert any("cpusim~spec" in s["signature"] for s in summary["signatures"])  # the documented spec differences
    rec = json.loads(next((tmp_path / "out").glob("*cpusim*/record.json")).read_text())
    assert rec["finding"]["target"]["pto_isa_commit"] == sim.manifest["commit"]
    assert rec["finding"]["target"]["compiler"] == sim.manifest["compiler"]


@pytest.mark.slow
@needs_sim
def test_a_planted_out_of_bounds_write_under_asan_is_a_crash_finding(cli, sim, tmp_path):
    out = tmp_path / "out"
    # small requests (8x8 tiles, 16 a batch: 16 KB buffers): ASan's primary allocator, whose redzone reports the
    # planted write as a heap-buffer-overflow in the batch and alone alike; past a large buffer that ends on a page
    # boundary the same write is a SEGV, so a batch and its case run alone would name different causes
    r = cli("fuzz", "tpartadd", "--oracles", "cpu,cpusim", "--runs", "2000", "--batch", "16", "--dtype",
            "float32", "--shape", "8x8", "--sanitize", "address,undefined", "--sim-plant", "oob", "--seed", "1",
            "--out", out, "--json")
    assert r.code == 1, r
    summary = json.loads(r.out)
    assert summary["cases"] == 2000  # the campaign went on past every crash
    sigs = {s["signature"]: s for s in summary["signatures"]}
    assert list(sigs) == ["TPARTADD/float/cpusim/crash/heap-buffer-overflow/-"]  # and nothing else differs
    assert sigs["TPARTADD/float/cpusim/crash/heap-buffer-overflow/-"]["hits"] >= 2
    path = next(out.glob("*crash*/record.json"))
    rec = json.loads(path.read_text())
    assert rec["expect"]["cpusim"]["outcome"] == "crash"
    assert "ERROR: AddressSanitizer: heap-buffer-overflow" in rec["expect"]["cpusim"]["reason"]
    assert int(records.read(path).inputs["src0"].ravel()[0]) & 0xFF == 0x5A  # the planted trigger
    assert rec["finding"]["target"]["sanitize"] == ["address", "undefined"]
    again = cli("replay", out)
    assert again.code == 0, again
    assert "cpusim crash: " in again.out and "AddressSanitizer: heap-buffer-overflow" in again.out  # what, not "SAME"
    shown = cli("diff", path.parent)  # it said "--oracles cpusim,: name two of cpu, cpusim"
    assert shown.code == 1, shown
    assert shown.out.startswith("cpusim crash on this case") and "heap-buffer-overflow" in shown.out
    assert f"reproduce: ptofuzz replay {path.parent}" in shown.out
    assert cli("diff", path.parent, "--oracles", "cpu,cpusim").code == 1  # the pair names cpusim: shown too


@pytest.mark.slow
@needs_sim
def test_a_planted_hang_is_a_hang_finding(cli, sim, tmp_path):
    r = cli("fuzz", "tpartadd", "--oracles", "cpu,cpusim", "--runs", "1000", "--batch", "64", "--dtype",
            "float32", "--shape", "8x8", "--sanitize", "address,undefined", "--sim-plant", "hang", "--sim-timeout",
            "0.5", "--seed", "1", "--out", tmp_path / "o", "--json")
    assert r.code == 1, r
    summary = json.loads(r.out)
    assert summary["cases"] == 1000
    assert [s["signature"] for s in summary["signatures"]] == ["TPARTADD/float/cpusim/hang/timeout/-"]
    rec = json.loads(next((tmp_path / "o").glob("*hang*/record.json")).read_text())
    assert rec["expect"]["cpusim"]["outcome"] == "hang"
    assert rec["finding"]["campaign"].endswith("--sanitize address,undefined --sim-plant hang --sim-timeout 0.5")


@needs_sim
def test_sim_build_prints_what_it_built(cli, sim):
    r = cli("sim", "build", "--pto-isa", PTO_ISA)
    assert r.code == 0, r
    own = build.commit_of(Path(PTO_ISA), sim.manifest["tree_hash"])  # the tree asked for, whoever built the cache
    assert "found in the cache" in r.out and f"  pto-isa   {PTO_ISA} (commit {own})" in r.out
    assert "  TPARTADD  float32, float16, bfloat16, int32, int16, int8, uint8  (object c" in r.out
    assert "  TADD      float32, float16, bfloat16, int32, int16, int8, uint32, uint16, uint8  (object c" in r.out
    out = "\n".join(line for line in r.out.splitlines() if build.REDUCEIDX_SKIPPED not in line)  # GCC 12
    assert "unsupported" not in out.replace("unsupported unless --sim-placeholder-bf16", "")



@pytest.mark.slow
@needs_sim
def test_check_with_the_real_simulator(cli, sim, tmp_path):
    """`check --oracle cpusim`: cpu case folders written by `gen` agree with the real simulator wherever their
    golden is defined; a changed golden element fails; what cpusim cannot run is an error naming why."""
    dtype = {"tpartmax": "int8", "tsort32": "float32"}  # 16-bit TSORT32 rows show the defect: below
    for op in ("tpartadd", "tpartmax", "tsort32", "tmrgsort"):
        assert cli("gen", op, "--platform", "cpu", "--random", "12", "--seed", "8", "--dtype",
                   dtype.get(op, "float16"), "--out", tmp_path / op).code == 0
    r = cli("check", *(tmp_path / op for op in ("tpartadd", "tpartmax", "tsort32", "tmrgsort")), "--oracle",
            "cpusim", "--json")
    assert r.code == 0, r
    summary = json.loads(r.out)
    assert summary["passed"] == 48 and summary["failed"] == summary["errors"] == 0
    assert cli("gen", "tsort32", "--platform", "cpu", "--dtype", "float16", "--shape", "1x64", "--out",
               tmp_path / "overlap").code == 0
    shown = cli("check", tmp_path / "overlap", "--oracle", "cpusim", "--json")  # cpusim-tsort32-16bit-overlap
    assert shown.code == 1 and json.loads(shown.out)["cases"][0]["files"][0]["file"] in ("golden.bin",
                                                                                         "golden_output.bin")
    victim = min((tmp_path / "tpartadd").iterdir())
    out = np.frombuffer((victim / "golden.bin").read_bytes(), dtype=np.uint16).copy()
    finite = np.nonzero((out & 0x7C00) != 0x7C00)[0]
    out[finite[0]] ^= 0x0001  # one ULP off at a defined element: the output a broken target would write
    (victim / "output.bin").write_bytes(out.tobytes())
    bad = cli("check", victim, "--oracle", "cpusim", "--json")
    assert bad.code == 1, bad
    files = {f["file"]: f for f in json.loads(bad.out)["cases"][0]["files"]}
    assert files["golden.bin"]["ok"] and files["output.bin"]["mismatches"] == 1
    assert cli("gen", "tpartadd", "--platform", "a5", "--out", tmp_path / "a5").code == 0
    other = cli("check", tmp_path / "a5", "--oracle", "cpusim", "--json")
    assert other.code == 2
    assert all("recomputes cpu case folders" in c["message"] for c in json.loads(other.out)["cases"])
    # bfloat16 folders: the build's bfloat16 is pto-isa's placeholder, so cpusim cannot answer them; skipped and
    # said so, not bad input (they were "could not be read", exit 2), and the others still pass
    assert cli("gen", "tpartadd", "--platform", "cpu", "--random", "6", "--dtype", "bfloat16", "--seed", "2",
               "--out", tmp_path / "mixed").code == 0
    assert cli("gen", "tpartadd", "--platform", "cpu", "--random", "4", "--dtype", "float32", "--seed", "2",
               "--out", tmp_path / "mixed").code == 0
    mixed = cli("check", tmp_path / "mixed", "--oracle", "cpusim")
    assert mixed.code == 0, mixed
    assert mixed.out.strip().splitlines()[-1] == "4 of 10 case(s) pass; 6 skipped (cpusim cannot run them)"
    assert mixed.out.count("SKIP  TPARTADD_Test.case_bf16") == 6 and "not passing" not in mixed.out


@pytest.mark.slow
@needs_sim
@pytest.mark.parametrize("op", ["tsort32", "tmrgsort"])
def test_cpusim_defines_exactly_what_the_simulator_writes(sim, op):
    """With plain values, the elements cpusim calls defined are those the cpu model defines: records past an
    exhausted merge and partial single-list groups are undefined on both sides (the harness zero-fills its output,
    so unwritten zeros must not count as results); a 16-bit TSORT32 row of more than one block is the simulator's
    defect, where it writes less than the page defines."""
    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    inst = registry.get(op)
    src = seeded(3, "definedness", op)
    compared = 0
    for _ in range(400):
        case = inst.random_case(src, "cpu", {})
        inputs = inst.draw_inputs(src, case, values.ValueMix.parse(None, 0.0))
        model, got = _eval(real, inst, case, inputs), _eval(real, inst, case.on("cpusim"), inputs)
        if got.kind != "ok" or model.kind != "ok":
            continue
        if op == "tsort32" and dtypes.get(case.dtype).bits == 16 and case.tile("src").valid_cols > 32:
            # the defect cpusim-tsort32-16bit-overlap: the simulator never writes a row's last records, which
            # the page (and the model) define
            assert np.count_nonzero(got.classes["dst"] != UNDEFINED) < np.count_nonzero(
                model.classes["dst"] != UNDEFINED)
            continue
        compared += 1
        np.testing.assert_array_equal(got.classes["dst"] != UNDEFINED, model.classes["dst"] != UNDEFINED,
                                      err_msg=str(case))
    assert compared >= 200


FAKE_CXX = """#!/bin/sh
# a stand-in compiler: answers --version, accepts every probe, and "builds" executables that exit 1
out=""
prev=""
for a in "$@"; do
    [ "$a" = "--version" ] && { echo "fake c++ 2.0"; exit 0; }
    [ "$prev" = "-o" ] && out="$a"
    prev="$a"
done
if [ -n "$out" ]; then printf '#!/bin/sh\\nexit 1\\n' > "$out"; chmod +x "$out"; fi
exit 0
"""


def _fake_cxx(tmp_path: Path, text: str = FAKE_CXX) -> Path:
    cxx = tmp_path / "fake-cxx"
    cxx.write_text(text)
    cxx.chmod(cxx.stat().st_mode | stat.S_IEXEC)
    return cxx


def test_a_damaged_cache_entry_is_rebuilt(tmp_path, monkeypatch):
    tree = _fake_tree(tmp_path)
    cxx = _fake_cxx(tmp_path)
    settings = build.Settings(pto_isa=tree, cache_dir=tmp_path / "cache", cxx=str(cxx))
    first = build.get(settings)
    assert not first.cached and first.executable.is_file()
    assert first.manifest["compiler"].endswith("(fake c++ 2.0)")
    assert build.get(settings).cached
    first.executable.unlink()  # damaged by hand
    again = build.get(settings)
    assert not again.cached and again.executable.is_file() and again.folder == first.folder
    (again.folder / "manifest.json").write_text("{not json")
    assert not build.get(settings).cached  # rebuilt again, no JSON traceback
    assert build.lookup(settings) is not None


def test_a_full_disk_during_the_build_says_so_not_just_that_ld_failed(tmp_path, cli, monkeypatch):
    """The linker's last words on a full disk are "ld returned 1 exit status"; the message names the cause."""
    tree = _fake_tree(tmp_path)
    full = FAKE_CXX.replace('if [ -n "$out" ]', 'if [ -n "$out" ] && [ "${out##*/}" = harness ]; then '
                            'echo "/usr/bin/ld: final link failed: No space left on device" >&2; '
                            'echo "collect2: error: ld returned 1 exit status" >&2; exit 1; fi\nif [ -n "$out" ]')
    cxx = _fake_cxx(tmp_path, full)
    monkeypatch.setenv("CXX", str(cxx))
    r = cli("sim", "build", "--pto-isa", tree, "--cache-dir", tmp_path / "cache")
    errors = [line for line in r.err.splitlines() if line.startswith("ptofuzz: error: ")]
    assert r.code == 2 and r.err.splitlines()[-1:] == errors and len(errors) == 1, r  # after the progress lines
    assert "no space left on the device of" in errors[0] and "--cache-dir" in errors[0]
    assert not list((tmp_path / "cache" / "cpusim").glob(".build-*"))  # its private folder went with it


def test_a_first_build_says_what_it_does_and_a_cached_one_is_quiet(tmp_path):
    """The first `sim build` was silent for one to three minutes (the CLI prints these lines on stderr)."""
    tree = _fake_tree(tmp_path)
    cxx = _fake_cxx(tmp_path)
    settings = build.Settings(pto_isa=tree, cache_dir=tmp_path / "cache", cxx=str(cxx))
    said: list[str] = []
    build.get(settings, say=said.append)
    n = len(build.OPS)
    assert said[0].startswith(f"building the cpusim harness of {n} instruction(s) from {tree.resolve()} with "
                              "fake c++ 2.0 (cached in")
    assert said[1] == (f"compiling {n} instruction object(s) of {n}, 2 at a time: {', '.join(build.OPS)}") or \
        said[1].startswith(f"compiling {n} instruction object(s) of {n}, ")
    assert sorted(line.split(":")[0].split("] ")[1] for line in said[2:]) == sorted(build.OPS)
    assert [line.split("]")[0] for line in said[2:]] == [f"[{k}/{n}" for k in range(1, n + 1)]
    said.clear()
    assert build.get(settings, say=said.append).cached and said == []


def test_one_instruction_compiles_only_its_object_and_a_larger_build_reuses_it(tmp_path):
    """`fuzz OP --oracles ...,cpusim` builds OP's kernels only; a build of every instruction then compiles the
    others and links OP's cached object, whose record says how long it took."""
    tree = _fake_tree(tmp_path)
    cxx = _fake_cxx(tmp_path)
    base = build.Settings(pto_isa=tree, cache_dir=tmp_path / "cache", cxx=str(cxx))
    said: list[str] = []
    one = build.get(build.Settings(**{**base.__dict__, "ops": ("TADD",)}), say=said.append)
    assert one.manifest["ops"] == ["TADD"] and list(one.manifest["kernels"]) == ["TADD"]
    assert not one.manifest["objects"]["TADD"]["cached"]
    assert any(line.startswith("compiling 1 instruction object(s) of 1") for line in said)
    assert one.unsupported_reason("TPARTADD", "float32") == "this build holds no TPARTADD"
    said.clear()
    every = build.get(base, say=said.append)
    assert every.folder != one.folder
    objs = every.manifest["objects"]
    assert objs["TADD"] == {**one.manifest["objects"]["TADD"], "cached": True}
    assert not any(o["cached"] for op, o in objs.items() if op != "TADD")
    assert any(line.startswith(f"compiling {len(build.OPS) - 1} instruction object(s) of {len(build.OPS)}")
               for line in said)


def test_a_type_that_does_not_compile_is_left_out_with_the_compiler_s_words(tmp_path):
    """An instruction's object that fails is compiled type by type: the others stay in the harness."""
    tree = _fake_tree(tmp_path)
    picky = FAKE_CXX.replace('if [ -n "$out" ]', 'for a in "$@"; do case "$a" in *.cpp) grep -q "uint8_t, 6)" "$a" && '
                             '{ echo "x.cpp:3:1: error: no uint8 here" >&2; exit 1; } ;; esac; done\nif [ -n "$out" ]',
                             1)
    settings = build.Settings(pto_isa=tree, cache_dir=tmp_path / "cache", cxx=str(_fake_cxx(tmp_path, picky)),
                              ops=("TADD", "TSORT32"))
    b = build.get(settings)
    assert b.manifest["rejected"] == {"TADD": {"uint8": "does not compile: error: no uint8 here"}, "TSORT32": {}}
    assert b.manifest["kernels"]["TADD"] == ["float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32",
                                             "uint16"]
    assert b.unsupported_reason("TADD", "uint8") == "does not compile: error: no uint8 here"
    assert b.unsupported_reason("TADD", "int8") is None


def test_an_instruction_cpusim_does_not_run_is_named(cli):
    r = cli("sim", "build", "--op", "tadd,tsort")
    assert r.code == 2 and r.err.startswith("ptofuzz: error: --op 'tsort' is not an instruction cpusim runs; "
                                            "choose from: tpartadd, ")


def test_the_cache_key_covers_flags_and_compiler(tmp_path):
    tree = _fake_tree(tmp_path)
    cxx = _fake_cxx(tmp_path)
    base = build.Settings(pto_isa=tree, cache_dir=tmp_path / "cache", cxx=str(cxx))
    folders = {build.get(s).folder for s in (base, build.Settings(**{**base.__dict__, "sanitize": ("address",)}),
                                              build.Settings(**{**base.__dict__, "plant": "hang"}))}
    assert len(folders) == 3
    assert build.get(build.Settings(**{**base.__dict__, "plant": "oob"})).folder in folders  # one plant build
    cxx.write_text(FAKE_CXX.replace("fake c++ 2.0", "fake c++ 2.1"))  # a compiler upgrade
    assert build.get(base).folder not in folders


@needs_sim
def test_a_finding_names_the_tree_it_ran_on_even_when_another_tree_shares_the_build(sim, tmp_path, cli):
    """Two trees with the same include/ share one cached build; the record names the one configured."""
    import shutil

    twin = tmp_path / "twin"
    shutil.copytree(Path(PTO_ISA) / "include", twin / "include")
    (twin / "COMMIT").write_text("0123456789abcdef0123456789abcdef01234567\n")
    real = CpusimBackend(build.Settings(pto_isa=twin))
    target = real.provenance()
    assert real.simulator().build().folder == sim.folder  # the same build, found in the cache
    assert target["pto_isa"] == str(twin.resolve())
    assert target["pto_isa_commit"] == "0123456789abcdef0123456789abcdef01234567"
    r = cli("sim", "build", "--pto-isa", twin)  # it showed the other tree's path and commit
    assert r.code == 0, r
    assert f"  pto-isa   {twin.resolve()} (commit 0123456789abcdef0123456789abcdef01234567)" in r.out
    builder = sim.manifest["pto_isa"]  # whichever tree built it first: this one, another test's, an earlier run's
    assert builder != str(twin.resolve())
    assert f"built from {builder}, whose include/ is the same" in r.out
    shown = json.loads(cli("sim", "build", "--pto-isa", twin, "--json").out)
    assert shown["pto_isa"] == str(twin.resolve()) and shown["commit"].startswith("0123456789abcdef")


def test_list_says_what_cpusim_needs_without_a_tree(cli, monkeypatch):
    monkeypatch.delenv("PTO_ISA_DIR", raising=False)
    r = cli("list", "--json")
    rows = [row for row in json.loads(r.out) if row["platform"] == "cpusim"]
    assert [row["op"] for row in rows] == ["TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN", "TPARTARGMAX",
                                           "TPARTARGMIN", "TSORT32", "TMRGSORT", *ELEMENTWISE, "TADDS", "TSUBS",
                                           "TMULS", "TMAXS", "TMINS", "TLRELU", "TABS", "TNEG", "TRELU", "TNOT",
                                           "TAND", "TOR", "TXOR", "TSHL", "TSHR", "TANDS", "TORS", "TXORS", "TSHLS",
                                           "TSHRS", "TEXPANDS", "TCI", "TTRI", "TCMP", "TCMPS", "TSEL",
                                           "TSELS", "TCVT", "TDEQUANT", "TQUANT", "TROWEXPAND", "TCOLEXPAND",
                                           "TROWMAX", "TROWMIN", "TCOLMAX", "TCOLMIN", "TROWEXPANDADD",
                                           "TROWEXPANDSUB", "TROWEXPANDMUL", "TROWEXPANDMAX", "TROWEXPANDMIN",
                                           "TCOLEXPANDADD", "TCOLEXPANDSUB", "TCOLEXPANDMUL", "TCOLEXPANDMAX",
                                           "TCOLEXPANDMIN", "TROWSUM", "TCOLSUM", "TROWPROD", "TCOLPROD",
                                           "TROWARGMAX", "TROWARGMIN", "TCOLARGMAX", "TCOLARGMIN", "TPAIRREDUCESUM"]
    assert all(row["dtypes"] == [] and "needs a pto-isa tree" in row["notes"] for row in rows)


@needs_sim
def test_list_shows_the_cached_build(cli, sim):
    rows = {row["op"]: row for row in json.loads(cli("list", "--json").out) if row["platform"] == "cpusim"}
    native = sim.manifest["bfloat16_native"]
    from ptofuzz.instructions import registry

    for op, dts in sim.manifest["kernels"].items():
        cpu = registry.get(op).platforms["cpu"].dtypes  # the list shows the cpu's (not a device form's sources)
        assert rows[op]["dtypes"] == [d for d in dts if (native or d != "bfloat16") and d in cpu]
        assert sim.manifest["commit"] in rows[op]["notes"]


@pytest.mark.slow
@needs_sim
@pytest.mark.parametrize("engine", [["--jobs", "2", "--runs", "3000"],
                                    ["--engine", "atheris", "--runs", "30", "--no-native-coverage"]])
def test_simulator_settings_reach_every_worker(cli, sim, tmp_path, engine):
    """The simulator backend built from the command line runs in --jobs workers and in the atheris engine's
    fuzzing processes with its settings: a timeout no request can meet makes every simulator call a hang there,
    where the default settings (10 s) would answer every one. (With native coverage the simulator runs in the
    fuzzing process, where a hang is libFuzzer's own timeout: test_cpusim_native.py.)"""
    r = cli("fuzz", "tpartadd", "--oracles", "cpu,cpusim", *engine, "--dtype", "int16", "--sim-timeout", "1e-06",
            "--seed", "1", "--out", tmp_path / "o", "--json")
    assert r.code == 1, r
    summary = json.loads(r.out)
    assert summary["command"].endswith("--sim-timeout 1e-06") and summary["cases"] > 0, summary
    assert [s["signature"] for s in summary["signatures"]] == ["TPARTADD/int/cpusim/hang/timeout/-"]
    (rec,) = (tmp_path / "o").glob("*/record.json")
    assert json.loads(rec.read_text())["finding"]["target"]["timeout"] == 1e-06


# ---- a damaged or broken harness: rebuilt, or reported as a broken build, never a finding ---------------------

def _stand_in_compiler(tmp_path: Path, harness_text: str) -> Path:
    """A compiler whose every "build" is ``harness_text`` (probes succeed, --version answers)."""
    harness = tmp_path / "stand-in-harness"
    harness.write_text(harness_text)
    cxx = tmp_path / "stand-in-cxx"
    cxx.write_text(f"""#!/bin/sh
out=""
prev=""
for a in "$@"; do
    [ "$a" = "--version" ] && {{ echo "stand-in c++ 1.0"; exit 0; }}
    [ "$prev" = "-o" ] && out="$a"
    prev="$a"
done
if [ -n "$out" ]; then cp "{harness}" "$out"; chmod +x "$out"; fi
exit 0
""")
    cxx.chmod(cxx.stat().st_mode | stat.S_IEXEC)
    return cxx


def _adding_harness() -> str:
    from test_cpusim_worker import FAKE  # the worker tests' stand-in harness: adds bytes, as TPARTADD uint8 does

    return FAKE.format(python=sys.executable, mode="crash")


ECHO = "#!/bin/sh\nexec cat\n"  # answers every request with the request itself


@pytest.mark.parametrize("damage", ["not-executable", "echoes", "truncated", "crashes-at-start"])
def test_a_damaged_cached_harness_fails_its_self_test_and_is_rebuilt(tmp_path, damage):
    from ptofuzz.backends.cpusim.simulator import Simulator

    settings = build.Settings(pto_isa=_fake_tree(tmp_path), cache_dir=tmp_path / "cache",
                              cxx=str(_stand_in_compiler(tmp_path, _adding_harness())))
    first = Simulator(settings).build()
    assert not first.cached
    harness = first.executable
    if damage == "not-executable":
        harness.chmod(0o644)
    elif damage == "echoes":
        harness.write_text(ECHO)
    elif damage == "truncated":
        harness.write_bytes(harness.read_bytes()[:40])
    else:
        harness.write_text("#!/bin/sh\nkill -SEGV $$\n")
    assert build.get(settings).cached  # the cache alone cannot tell
    again = Simulator(settings).build()
    assert not again.cached and again.folder == first.folder  # built again, and now it answers
    assert harness.read_text() == _adding_harness()


def test_a_build_that_fails_its_self_test_is_a_broken_build_not_a_finding(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("CXX", str(_stand_in_compiler(tmp_path, ECHO)))
    out = tmp_path / "o"
    r = cli("fuzz", "tpartadd", "--oracles", "cpu,cpusim", "--runs", "100", "--dtype", "uint8", "--pto-isa",
            _fake_tree(tmp_path), "--cache-dir", tmp_path / "cache", "--out", out)
    errors = [line for line in r.err.splitlines() if line.startswith("ptofuzz: error: ")]
    assert r.code == 2 and r.err.splitlines()[-1:] == errors and len(errors) == 1, r  # after the progress lines
    assert "fails its self-test (a known case came back wrong)" in errors[0] and "sim build" in errors[0]
    assert not out.exists() or not any(out.glob("*/record.json"))  # no finding against the simulator


@pytest.mark.slow
def test_a_huge_stray_file_in_the_tree_costs_no_memory(tmp_path):
    """A 3 GiB file (sparse) under include/: the tree is hashed in pieces, under a 1 GiB address-space limit
    (reading each file whole ran out of memory: exit 3), to the same digest as hashing each file whole."""
    import hashlib
    import resource
    import subprocess

    tree = _fake_tree(tmp_path)
    (tree / "include" / "pto" / "a.hpp").write_text("// a header\n")
    stray = tree / "include" / "stray.bin"
    with stray.open("wb") as f:
        f.truncate(3 << 30)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    code = f"from pathlib import Path; from ptofuzz.backends.cpusim import build; " \
           f"print(build.tree_hash(Path({str(tree / 'include')!r})))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, preexec_fn=limit, timeout=300)
    assert r.returncode == 0, r.stderr
    stray.write_bytes(b"\0" * 4096)  # the same digest rule, by hand, on a file small enough to read whole
    want = hashlib.sha256()
    for path in sorted(p for p in (tree / "include").rglob("*") if p.is_file()):
        want.update(str(path.relative_to(tree / "include")).encode() + b"\0" + path.read_bytes() + b"\0")
    assert build.tree_hash(tree / "include") == want.hexdigest()


def test_a_stale_build_folder_is_swept_and_a_running_one_kept(tmp_path):
    """Liveness by a lock the kernel releases: a private build folder whose lock nobody holds is removed by the
    next build; one whose lock is held (a build running, here or in another PID namespace) is kept."""
    import fcntl
    import os

    root = tmp_path / "cpusim"
    running, dead, lockless = root / ".build-a-1", root / ".build-b-2", root / ".build-c-3"
    for folder in (running, dead, lockless):
        folder.mkdir(parents=True)
        (folder / "harness.o").write_text("half a build")
    for folder in (running, dead):
        (folder / build.LOCK).write_text("")
    held = os.open(running / build.LOCK, os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)
    try:
        assert build.sweep_stale_builds(root) == [dead]  # a fresh lockless one may be a build just starting
        os.utime(lockless, (0, 0))
        assert build.sweep_stale_builds(root) == [lockless]
        assert running.is_dir()
    finally:
        os.close(held)
    assert build.sweep_stale_builds(root) == [running]
    assert not list(root.glob(".build-*"))


@needs_sim
def test_a_second_build_of_a_key_waits_for_the_first_and_takes_its_build(tmp_path):
    """Two processes asking for one build (two commands, two test workers) do not compile it twice: the second
    waits for the first one's lock, says so, and then finds the build in the cache."""
    import threading
    import time

    from ptofuzz.core import processes

    settings = build.Settings(pto_isa=Path(PTO_ISA), cache_dir=tmp_path, ops=("TADD",))
    final = build._identity(settings).final
    said: list[str] = []
    got: list[build.Build] = []
    with processes.exclusive(final):  # the first process's build, under way
        waiter = threading.Thread(target=lambda: got.append(build.get(settings, say=said.append)))
        waiter.start()
        deadline = time.monotonic() + 30
        while not said and time.monotonic() < deadline:
            time.sleep(0.01)
        assert said == [f"waiting for another ptofuzz run using {final}"] and not got
        final.mkdir(parents=True)  # what the first one leaves: a whole build
        (final / "harness").write_text("the first one's harness")
        (final / "manifest.json").write_text(json.dumps({"kernels": {"TADD": ["int32"]}, "ops": ["TADD"]}))
    waiter.join(30)
    assert got and got[0].cached and got[0].folder == final and got[0].manifest["kernels"] == {"TADD": ["int32"]}
    assert not list((tmp_path / "cpusim").glob(".build-*")) and not (tmp_path / "cpusim" / "objects").exists()


@pytest.mark.slow
def test_a_killed_sim_build_leaves_nothing_after_the_next_build(tmp_path):
    import os
    import signal
    import subprocess
    import time

    tree, cache = _fake_tree(tmp_path), tmp_path / "cache"
    slow = tmp_path / "slow-cxx"
    slow.write_text('#!/bin/sh\nfor a in "$@"; do [ "$a" = "--version" ] && { echo "slow c++ 1.0"; exit 0; }; done\n'
                    "sleep 120\n")
    slow.chmod(0o755)
    env = {**os.environ, "CXX": str(slow)}
    proc = subprocess.Popen([sys.executable, "-m", "ptofuzz", "sim", "build", "--pto-isa", str(tree), "--cache-dir",
                             str(cache)], env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not list(cache.glob("cpusim/.build-*")) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        os.kill(proc.pid, signal.SIGKILL)  # no clean-up of its own can run
        proc.wait()
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the compilers it had started
        except ProcessLookupError:
            pass
    assert list(cache.glob("cpusim/.build-*"))  # left behind by the kill
    env["CXX"] = str(_stand_in_compiler(tmp_path, _adding_harness()))
    r = subprocess.run([sys.executable, "-m", "ptofuzz", "sim", "build", "--pto-isa", str(tree), "--cache-dir",
                        str(cache)], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert not list(cache.glob("cpusim/.build-*"))


# ---- the generation family (TEXPANDS, TCI, TTRI) ----------------------------------------------------------------

@needs_sim
def test_hand_worked_generation_in_the_real_simulator(sim):
    """TEXPANDS of a signaling NaN with a payload and of -0 over a 2x3 region (bits copied, nothing written
    outside); TCI int16 descending from -32767 (-32767, -32768, then past INT16_MIN: the page leaves it open);
    TTRI lower and upper of a 3x4 region: the simulator's values and the cpu model's agree."""
    from ptofuzz.engine.differential import compare_batch

    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    inst = registry.get("TEXPANDS")
    for bits in (0x7F800001, 0x80000000):
        case = Case("TEXPANDS", "cpusim", "float32", (("dst", Tile(2, 8, 2, 3)), ("scalar", Tile(1, 1, 1, 1))))
        inputs = {"scalar": np.array([[bits]], np.uint32)}
        out = real.evaluate(inst, case, inputs)
        assert (out.outputs["dst"][:, :3] == bits).all() and (out.classes["dst"][:, :3] == EXACT).all()
        assert (out.classes["dst"][:, 3:] == UNDEFINED).all()
        model = inst.evaluate(case.on("cpu"), inputs)
        assert not compare_batch(inst, case, {"cpu": model, "cpusim": out}, None).counts
    tci = registry.get("TCI")
    case = Case("TCI", "cpusim", "int16", (("dst", Tile(1, 16, 1, 4)),), (("descending", 1), ("start", 0x8001)))
    out = real.evaluate(tci, case, {})
    assert out.outputs["dst"][0, :2].view(np.int16).tolist() == [-32767, -32768]
    assert out.classes["dst"][0, :5].tolist() == [EXACT, EXACT, UNDEFINED, UNDEFINED, UNDEFINED]
    ttri = registry.get("TTRI")
    for upper, diag, want in ((0, 0, [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0]]),
                              (1, 1, [[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1]])):
        case = Case("TTRI", "cpusim", "float32", (("dst", Tile(3, 8, 3, 4)),), (("diagonal", diag), ("upper", upper)))
        out = real.evaluate(ttri, case, {})
        assert out.outputs["dst"][:, :4].view(np.float32).tolist() == want
        model = ttri.evaluate(case.on("cpu"), {})
        assert not compare_batch(ttri, case, {"cpu": model, "cpusim": out}, None).counts


@needs_sim
def test_a_batch_of_starts_and_diagonals_in_the_real_simulator(sim):
    """One request carries each item's own TCI start (int16: 0, 5, -32767 descending past INT16_MIN, 0x7fff) and
    TTRI diagonal (-1, 0, 2): item by item the simulator's values are the cpu model's and the hand-worked ones."""
    from ptofuzz.engine.differential import compare_batch

    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    tci = registry.get("TCI")
    case = Case("TCI", "cpusim", "int16", (("dst", Tile(1, 16, 1, 3)),), (("descending", 1),))
    starts = np.array([0, 5, 0x8001, 0x7FFF]).reshape(4, 1, 1)
    out = real.evaluate(tci, case, {"start": starts})
    assert out.outputs["dst"].shape == (4, 1, 16)
    assert out.outputs["dst"][:, 0, :3].view(np.int16).tolist() == [[0, -1, -2], [5, 4, 3], [-32767, -32768, 32767],
                                                                     [32767, 32766, 32765]]
    model = tci.evaluate(case.on("cpu"), {"start": starts})
    assert model.classes["dst"][2, 0, :3].tolist() == [EXACT, EXACT, UNDEFINED]
    assert not compare_batch(tci, case, {"cpu": model, "cpusim": out}, 4).counts
    ttri = registry.get("TTRI")
    case = Case("TTRI", "cpusim", "int32", (("dst", Tile(2, 8, 2, 3)),), (("upper", 0),))
    diagonals = np.array([-1, 0, 2]).reshape(3, 1, 1)
    out = real.evaluate(ttri, case, {"diagonal": diagonals})
    assert out.outputs["dst"][:, :, :3].tolist() == [[[0, 0, 0], [1, 0, 0]], [[1, 0, 0], [1, 1, 0]],
                                                     [[1, 1, 1], [1, 1, 1]]]
    model = ttri.evaluate(case.on("cpu"), {"diagonal": diagonals})
    assert not compare_batch(ttri, case, {"cpu": model, "cpusim": out}, 3).counts


@needs_sim
def test_the_simulator_s_ttri_diagonal_overflow_against_the_page(sim):
    """cpusim-ttri-diagonal-overflow: with diagonal INT32_MAX every j <= i + d holds (docs/isa/TTRI.md), so a
    lower triangle is all ones; TTRI.hpp:36 computes diagonal + r + 1 in int, which wraps negative at -O2 and
    leaves every row zero. The mismatch lies in the int-edge region and is labelled as the defect; a diagonal
    that stays inside int is no instance of it."""
    from ptofuzz.engine.differential import compare_batch
    from ptofuzz.instructions import defects

    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    ttri = registry.get("TTRI")
    case = Case("TTRI", "cpusim", "int32", (("dst", Tile(2, 8, 2, 8)),), (("diagonal", 2**31 - 1), ("upper", 0)))
    out, model = real.evaluate(ttri, case, {}), ttri.evaluate(case.on("cpu"), {})
    assert (model.outputs["dst"] == 1).all() and (out.outputs["dst"] == 0).all()
    (sig,) = compare_batch(ttri, case, {"cpu": model, "cpusim": out}, None).counts
    assert sig.region == "int-edge" and defects.matching(sig).name == "cpusim-ttri-diagonal-overflow"
    inside = case.replace(params=(("diagonal", 2**31 - 10), ("upper", 0)))
    assert not compare_batch(ttri, inside, {"cpu": ttri.evaluate(inside.on("cpu"), {}),
                                            "cpusim": real.evaluate(ttri, inside, {})}, None).counts


@pytest.mark.slow
@needs_sim
def test_tci_int32_overflow_is_undefined_behaviour_in_the_simulator(cli, sim, tmp_path):
    """cpusim-tci-signed-overflow-ub: TCI.hpp's start + j on int32_t overflows a signed int; UBSan reports it as
    a crash finding, labelled as the defect (saved, not new). Batches of 4 (one start each): a batch's starts
    wrap all or none, so 300 batches meet the wrapping class as 300 single cases did."""
    r = cli("fuzz", "tci", "--oracles", "cpu,cpusim", "--runs", "1200", "--batch", "4", "--dtype", "int32",
            "--sanitize", "undefined", "--seed", "1", "--out", tmp_path / "o", "--json")
    assert r.code == 0, r
    sigs = [(s["signature"], s["defect"], s["new"]) for s in json.loads(r.out)["signatures"]]
    assert sigs == [("TCI/int/cpusim/crash/signed-integer-overflow/-", "cpusim-tci-signed-overflow-ub", False)]
    rec = json.loads(next((tmp_path / "o").glob("*/record.json")).read_text())
    assert "runtime error: signed integer overflow" in rec["expect"]["cpusim"]["reason"]
    assert "TCI.hpp" in rec["expect"]["cpusim"]["reason"]


@pytest.mark.slow
@needs_sim
@pytest.mark.parametrize("op", ["TEXPANDS", "TCI", "TTRI"])
def test_the_cpu_generation_model_agrees_with_the_simulator(sim, op):
    """Random geometries and parameters (the ends of the ranges included), every cpu dtype: nothing but the
    named TTRI defect."""
    from ptofuzz.core.signature import Signature
    from ptofuzz.instructions import defects

    real = CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA)))
    for dtype in registry.get(op).platforms["cpu"].dtypes:
        if dtype == "bfloat16" and not sim.manifest["bfloat16_native"]:
            continue
        plan = campaign.make_plan(op, ["cpu", "cpusim"], seed=13, batch=64, dtype=dtype, rate=0.3, sim=real.settings)
        store, stats = campaign.run_random(plan, runs=300)
        assert stats.cases == 300
        named = {k: defects.matching(Signature.from_key(k)) for k in store.findings}
        assert all(d is not None and d.name == "cpusim-ttri-diagonal-overflow" for d in named.values()), named
