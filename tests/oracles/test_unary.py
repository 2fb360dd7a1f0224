"""The elementwise unary oracles (TABS, TNEG, TRELU, TNOT): hand-worked examples from pto-isa's pages and
pto-spec, what the pages leave open (classed, never filled), geometry and legality, and recomputation by
independent means (numpy and ml_dtypes, Python integers)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, NAN, UNDEFINED, ZERO, Case, OutcomeKind, Tile
from ptofuzz.instructions import registry

PLATFORMS = ("spec", "cpu", "a2a3", "a5")
NP = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _run(op: str, platform: str, bits: np.ndarray, dtype: str):
    """One row of elements through the platform's oracle (via the registry's dtype check)."""
    n = bits.size
    dt = dtypes.get(dtype)
    cols = max(32 // dt.itemsize, -(-n // (32 // dt.itemsize)) * (32 // dt.itemsize))
    if platform == "spec":
        cols = max(1 << max(n - 1, 0).bit_length(), 128 // dt.itemsize)
    case = Case(op, platform, dtype, (("dst", Tile(1, cols, 1, n)), ("src", Tile(1, cols, 1, n))))
    x = np.zeros((1, cols), dtype=bits.dtype)
    x[0, :n] = bits
    out = registry.get(op).evaluate(case, {"src": x})
    assert out.kind is OutcomeKind.OK, out
    return out.outputs["dst"][0, :n], out.classes["dst"][0, :n], out


def f32(*xs: float) -> np.ndarray:
    return np.array(xs, np.float32).view(np.uint32)


# ---- hand-worked examples ----------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_pages_formulas_on_ordinary_values(platform):
    """docs/isa/TABS.md, TNEG.md, TRELU.md: |src|, -src, max(src, 0) of 1.5, -2.25, 0.5 (float32); TNOT ~src."""
    x = f32(1.5, -2.25, 0.5)
    for op, want in (("TABS", (1.5, 2.25, 0.5)), ("TNEG", (-1.5, 2.25, -0.5)), ("TRELU", (1.5, 0.0, 0.5))):
        res, cls, _ = _run(op, platform, x, "float32")
        assert res.tolist() == f32(*want).tolist() and cls.tolist() == [EXACT] * 3, op
    res, cls, _ = _run("TNOT", platform, np.array([0, 0x0F, 0xFF], np.uint8), "uint8")
    assert res.tolist() == [0xFF, 0xF0, 0x00] and cls.tolist() == [EXACT] * 3


@pytest.mark.parametrize("platform", PLATFORMS)
def test_signed_zero_is_pinned_by_abs_and_neg_and_open_for_relu(platform):
    """|-0| = +0 and -(+0) = -0 are the IEEE operations (pinned everywhere); relu(-0) = max(-0, +0) is +0 in
    pto-spec and some zero on the pages (mixed zeros of max)."""
    z = f32(-0.0, 0.0)
    res, cls, _ = _run("TABS", platform, z, "float32")
    assert res.tolist() == [0, 0] and cls.tolist() == [EXACT, EXACT]
    res, cls, _ = _run("TNEG", platform, z, "float32")
    assert res.tolist() == [0x0, 0x80000000] and cls.tolist() == [EXACT, EXACT]
    res, cls, _ = _run("TRELU", platform, z, "float32")
    assert res.tolist() == [0, 0]
    assert cls.tolist() == ([EXACT, EXACT] if platform == "spec" else [ZERO, EXACT])


def test_nan_payloads_in_pto_spec():
    """pto-spec: TABS clears and TNEG flips only the sign bit of a NaN, payload and signaling bit kept, no flag;
    TRELU gives the canonical quiet NaN and raises invalid for a signaling one only."""
    snan_neg, qnan = 0xFF800123, 0x7FC00456
    x = np.array([snan_neg, qnan], np.uint32)
    res, _, out = _run("TABS", "spec", x, "float32")
    assert res.tolist() == [0x7F800123, 0x7FC00456] and out.flags == ()
    res, _, out = _run("TNEG", "spec", x, "float32")
    assert res.tolist() == [0x7F800123, 0xFFC00456] and out.flags == ()
    res, _, out = _run("TRELU", "spec", x, "float32")
    assert res.tolist() == [0x7FC00000, 0x7FC00000] and out.flags == ("NV",)
    _, _, out = _run("TRELU", "spec", np.array([qnan], np.uint32), "float32")
    assert out.flags == ()  # only the signaling NaN raises invalid
    h = np.array([0xFC01, 0x7E00], np.uint16)  # half: -sNaN, +qNaN
    assert _run("TABS", "spec", h, "float16")[0].tolist() == [0x7C01, 0x7E00]
    assert _run("TRELU", "spec", h, "float16")[0].tolist() == [0x7E00, 0x7E00]


@pytest.mark.parametrize("platform", ("cpu", "a2a3", "a5"))
def test_a_nan_is_some_nan_for_abs_and_neg_and_undefined_for_relu_on_the_pages(platform):
    x = np.array([0xFF800123, 0x7FC00000, 0x3F800000], np.uint32)
    for op in ("TABS", "TNEG"):
        _, cls, _ = _run(op, platform, x, "float32")
        assert cls.tolist() == [NAN, NAN, EXACT], op
    _, cls, _ = _run("TRELU", platform, x, "float32")
    assert cls.tolist() == [UNDEFINED, UNDEFINED, EXACT]


def test_integer_extremes():
    """pto-spec wraps (|MIN| = MIN, -MIN = MIN, unsigned -x = 2^n - x); the pages' |MIN|, -MIN and -x of an
    unsigned x > 0 do not fit the type: undefined. max(src, 0) and ~src always fit."""
    i8 = np.array([-128, -1, 0, 127], np.int8).view(np.uint8)
    res, cls, _ = _run("TABS", "spec", i8, "int8")
    assert res.view(np.int8).tolist() == [-128, 1, 0, 127] and cls.tolist() == [EXACT] * 4
    res, cls, _ = _run("TABS", "cpu", i8, "int8")
    assert res.view(np.int8).tolist()[1:] == [1, 0, 127] and cls.tolist() == [UNDEFINED, EXACT, EXACT, EXACT]
    res, cls, _ = _run("TNEG", "spec", i8, "int8")
    assert res.view(np.int8).tolist() == [-128, 1, 0, -127]
    _, cls, _ = _run("TNEG", "cpu", i8, "int8")
    assert cls.tolist() == [UNDEFINED, EXACT, EXACT, EXACT]
    u16 = np.array([0, 1, 0xFFFF], np.uint16)
    res, cls, _ = _run("TNEG", "spec", u16, "uint16")
    assert res.tolist() == [0, 0xFFFF, 1] and cls.tolist() == [EXACT] * 3
    _, cls, _ = _run("TNEG", "cpu", u16, "uint16")
    assert cls.tolist() == [EXACT, UNDEFINED, UNDEFINED]
    for platform in PLATFORMS:
        i32 = np.array([-(2**31), -5, 7], np.int32).view(np.uint32)
        res, cls, _ = _run("TRELU", platform, i32, "int32")
        assert res.view(np.int32).tolist() == [0, 0, 7] and cls.tolist() == [EXACT] * 3
        res, cls, _ = _run("TNOT", platform, i32, "int32")
        assert res.view(np.int32).tolist() == [2**31 - 1, 4, -8] and cls.tolist() == [EXACT] * 3


@pytest.mark.parametrize("op", ("TABS", "TNEG", "TRELU"))
def test_npu_subnormals_are_open_where_flushing_changes_the_result(op):
    """a5: a subnormal source may be flushed to zero by the vector unit (not documented): |x|, -x and relu of a
    positive subnormal are undefined; relu of a negative subnormal is +0 either way, or -0: some zero. The cpu
    computes on the host (gradual underflow): exact."""
    x = np.array([0x00000001, 0x80000001, 0x3F800000], np.uint32)
    _, cls, _ = _run(op, "a5", x, "float32")
    assert cls.tolist() == ([UNDEFINED, ZERO, EXACT] if op == "TRELU" else [UNDEFINED, UNDEFINED, EXACT])
    res, cls, _ = _run(op, "cpu", x, "float32")
    assert cls.tolist() == [EXACT] * 3
    want = {"TABS": [1, 1, 0x3F800000], "TNEG": [0x80000001, 1, 0xBF800000], "TRELU": [1, 0, 0x3F800000]}[op]
    assert res.tolist() == want


# ---- geometry and legality -----------------------------------------------------------------------------------

def test_the_source_is_read_at_its_own_stride_and_nothing_is_written_outside():
    """a5: dst 2x16, src 2x32 (another row stride), valid 2x3: row 1 comes from the source's second row."""
    src = np.arange(64, dtype=np.int16).reshape(2, 32) - 40
    case = Case("TABS", "a5", "int16", (("dst", Tile(2, 16, 2, 3)), ("src", Tile(2, 32, 2, 3))))
    out = registry.get("TABS").evaluate(case, {"src": src.view(np.uint16)})
    got = out.outputs["dst"].view(np.int16)
    assert got[:, :3].tolist() == [[40, 39, 38], [8, 7, 6]]
    assert (out.classes["dst"][:, 3:] == UNDEFINED).all() and (out.classes["dst"][:, :3] == EXACT).all()


@pytest.mark.parametrize(("dst", "src", "why"), [
    (Tile(1, 64, 1, 8), Tile(1, 128, 1, 8), "physical shapes differ"),
    (Tile(1, 64, 1, 8), Tile(1, 64, 1, 7), "valid shapes differ"),
    (Tile(1, 64, 0, 8), Tile(1, 64, 0, 8), "empty valid region"),
])
def test_spec_faults_before_any_effect_on_an_illegal_geometry(dst, src, why):
    case = Case("TNOT", "spec", "int16", (("dst", dst), ("src", src)))
    out = registry.get("TNOT").evaluate(case, {"src": np.zeros(src.shape, np.uint16)})
    assert out.kind is OutcomeKind.FAULT and out.fault.trap == 5 and why in out.fault.reason
    legal = Case("TNOT", "spec", "int16", (("dst", Tile(1, 64, 1, 8)), ("src", Tile(1, 64, 1, 8))))
    assert registry.get("TNOT").evaluate(legal, {"src": np.zeros((1, 64), np.uint16)}).kind is OutcomeKind.OK


def test_a_dtype_a_platform_does_not_take():
    """pto-spec faults (TNOT of a float); a pto-isa platform says unsupported (a2a3 TABS of int32)."""
    inst = registry.get("TNOT")
    case = Case("TNOT", "spec", "float32", (("dst", Tile(1, 32, 1, 8)), ("src", Tile(1, 32, 1, 8))))
    assert inst.evaluate(case, {"src": np.zeros((1, 32), np.uint32)}).kind is OutcomeKind.FAULT
    case = Case("TABS", "a2a3", "int32", (("dst", Tile(1, 8, 1, 8)), ("src", Tile(1, 8, 1, 8))))
    assert registry.get("TABS").evaluate(case, {"src": np.zeros((1, 8), np.uint32)}).kind is OutcomeKind.UNSUPPORTED


# ---- recomputation by independent means ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ("float32", "float16", "bfloat16"))
@pytest.mark.parametrize("op", ("TABS", "TNEG", "TRELU"))
def test_every_non_nan_float_result_against_numpy(op, dtype):
    """20,000 random bit patterns: the cpu result, where it is pinned, is numpy's (ml_dtypes') abs, negative and
    maximum with +0 (numpy's maximum(-0, +0) is not pinned: the class says some zero)."""
    dt = dtypes.get(dtype)
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 1 << dt.bits, 20_000, dtype=np.uint64).astype(np.dtype(dt.bits_dtype))
    res, cls, _ = _run(op, "cpu", bits, dtype)
    vals = bits.view(NP[dtype])
    with np.errstate(invalid="ignore"):
        want = {"TABS": np.abs(vals), "TNEG": np.negative(vals),
                "TRELU": np.where(vals > 0, vals, np.zeros_like(vals))}[op]
    pinned = cls == EXACT
    assert pinned.sum() > 15_000
    assert np.array_equal(res[pinned], want.view(np.dtype(dt.bits_dtype))[pinned])
    nan = np.isnan(vals.astype(np.float32))
    assert ((cls == NAN) == (nan & (op != "TRELU"))).all() and ((cls == UNDEFINED) == (nan & (op == "TRELU"))).all()


@pytest.mark.parametrize("dtype", ("int8", "int16", "int32", "uint8", "uint16", "uint32"))
@pytest.mark.parametrize("op", ("TABS", "TNEG", "TRELU", "TNOT"))
def test_every_integer_result_against_python_integers(op, dtype):
    """Every result against Python integers (edges included): spec wraps it into the type; the pages pin it
    exactly where it fits, else undefined."""
    dt = dtypes.get(dtype)
    rng = np.random.default_rng(11)
    edges = np.array([dt.int_min, dt.int_min + 1, -1 if dt.kind == "int" else 1, 0, 1, dt.int_max], np.int64)
    vals = np.concatenate([edges, rng.integers(dt.int_min, dt.int_max, 2000, endpoint=True)])
    bits = vals.astype(np.dtype(dtype)).view(np.dtype(dt.bits_dtype))
    exact = {"TABS": [abs(int(v)) if dt.kind == "int" else int(v) for v in vals], "TNEG": [-int(v) for v in vals],
             "TRELU": [max(int(v), 0) for v in vals], "TNOT": [~int(v) for v in vals]}[op]
    modulus = 1 << dt.bits
    wrapped = [(e % modulus) for e in exact]
    fits = [dt.int_min <= e <= dt.int_max for e in exact] if op != "TNOT" else [True] * len(exact)
    res, cls, _ = _run(op, "spec", bits, dtype)
    assert [int(r) for r in res.astype(np.uint64)] == wrapped
    if dtype not in registry.get(op).platforms["cpu"].dtypes:  # cpu TABS takes signed types only
        assert op == "TABS" and dt.kind == "uint"
        return
    res, cls, _ = _run(op, "cpu", bits, dtype)
    assert cls.tolist() == [EXACT if f else UNDEFINED for f in fits]
    assert [int(r) for r, f in zip(res.astype(np.uint64), fits) if f] == [w for w, f in zip(wrapped, fits) if f]
