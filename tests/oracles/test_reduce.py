"""The value reductions (TROWMAX, TROWMIN, TCOLMAX, TCOLMIN): hand-worked examples after the pages' math
(docs/isa/T{ROW,COL}{MAX,MIN}.md), pto-spec's fold (NaN passed over, the canonical NaN of a row of NaNs, +0 the
larger zero, NV on an sNaN), what the pages leave open (classed, never filled), geometry and legality, and
recomputation with a plain loop over a small tile."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, ZERO, Case, OutcomeKind, Tile
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import reduce as red
from ptofuzz.instructions import registry

NAN32 = 0x7FC00000
SNAN32 = 0x7F800001
NEG0 = 0x80000000


def f32(*xs: float) -> np.ndarray:
    return np.array(xs, np.float32).view(np.uint32)


def _row(op: str, platform: str, rows: np.ndarray, dtype: str = "float32"):
    """Rows of elements (each row one reduction) through the platform's oracle; returns (bits, classes, out)."""
    dt = dtypes.get(dtype)
    r, c = rows.shape
    if platform == "spec":
        d, s = red.spec_tiles(op, dt, (r, c) if op.startswith("TROW") else (c, r))
    else:
        shape = (r, 8 * c) if op.startswith("TROW") else (c, 8 * r)
        s = Tile(*shape, *((r, c) if op.startswith("TROW") else (c, r)))
        d = red.row_case(op, platform, dtype, s).tile("dst") if op.startswith("TROW") else \
            red.col_case(op, platform, dtype, s).tile("dst")
    case = Case(op, platform, dtype, (("dst", d), ("src", s)))
    x = np.zeros(s.shape, dtype=rows.dtype)
    if op.startswith("TROW"):
        x[:r, :c] = rows
    else:
        x[:c, :r] = rows.T
    x[s.valid_rows:, :] = x[:, s.valid_cols:] = rows.flat[0]  # outside the valid region: must not be read
    out = registry.get(op).evaluate(case, {"src": x})
    assert out.kind is OutcomeKind.OK, out
    if op.startswith("TROW"):
        return out.outputs["dst"][:r, 0], out.classes["dst"][:r, 0], out
    return out.outputs["dst"][0, :r], out.classes["dst"][0, :r], out


# ---- hand-worked examples ------------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", ["spec", "cpu", "a2a3", "a5", "kirin9030"])
@pytest.mark.parametrize("op", red.NAMES)
def test_the_pages_example(op, platform):
    # rows [3, -7, 2.5] and [-1, -0.5, -8]: max 3 and -0.5, min -7 and -8 (columns alike, transposed)
    rows = np.stack([f32(3, -7, 2.5), f32(-1, -0.5, -8)])
    bits, cls, _ = _row(op, platform, rows)
    want = f32(3, -0.5) if op.endswith("MAX") else f32(-7, -8)
    assert bits.tolist() == want.tolist()
    assert cls.tolist() == [EXACT, EXACT]


@pytest.mark.parametrize("op", red.NAMES)
def test_integers_signed_and_unsigned(op):
    rows = np.array([[-128, 127, 5], [0, -1, -2]], np.int8).view(np.uint8)
    bits, _, _ = _row(op, "cpu", rows, "int8")
    want = [127, 0] if op.endswith("MAX") else [-128, -2]
    assert bits.view(np.int8).tolist() == want
    bits, _, _ = _row(op, "a5", np.array([[200, 3, 255], [0, 1, 2]], np.uint8), "uint8")
    assert bits.tolist() == ([255, 2] if op.endswith("MAX") else [3, 0])


def test_nothing_outside_the_written_column_or_row():
    _, _, out = _row("TROWMAX", "cpu", np.stack([f32(1, 2), f32(3, 4)]))
    assert out.classes["dst"].shape[1] == 1
    _, _, out = _row("TCOLMIN", "a5", np.stack([f32(1, 2), f32(3, 4)]))
    assert (out.classes["dst"][0, 2:] == UNDEFINED).all()  # beyond the valid columns of the written row


# ---- pto-spec's fold -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", red.NAMES)
def test_spec_passes_nans_over_and_keeps_the_zero_order(op):
    rows = np.array([[NAN32, *f32(1, 2)], [*f32(0.0), NEG0, NAN32], [NAN32, NAN32, NAN32]], np.uint32)
    bits, cls, out = _row(op, "spec", rows)
    mx = op.endswith("MAX")
    assert bits.tolist() == [f32(2 if mx else 1)[0], 0 if mx else NEG0, NAN32]  # all NaN: the canonical NaN
    assert cls.tolist() == [EXACT] * 3
    assert out.flags == ()


def test_spec_single_column_keeps_the_nan_and_an_snan_raises_nv():
    bits, _, out = _row("TROWMAX", "spec", np.array([[SNAN32]], np.uint32))
    assert bits.tolist() == [SNAN32] and out.flags == ()  # no step: the first element, no flag
    bits, _, out = _row("TROWMAX", "spec", np.array([[SNAN32, *f32(-3)]], np.uint32))
    assert bits.tolist() == f32(-3).tolist() and out.flags == ("NV",)


# ---- what the pages leave open ---------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("op", red.NAMES)
def test_the_pages_leave_nan_and_mixed_zeros_open(op, platform):
    rows = np.array([[NAN32, *f32(1, 2)], [*f32(0.0), NEG0, *f32(-5 if op.endswith("MAX") else 5)],
                     [*f32(0.0, 0.0, 7 if op.endswith("MIN") else -7)], [*f32(4), NEG0, *f32(9)]], np.uint32)
    bits, cls, _ = _row(op, platform, rows)
    assert cls[0] == UNDEFINED  # a NaN in the reduction
    assert cls[1] == ZERO  # +0 and -0, the result a zero: either sign
    assert cls[2] == EXACT and bits[2] == 0  # zeros of one sign: that zero
    assert cls[3] == EXACT and bits[3] == (f32(9)[0] if op.endswith("MAX") else NEG0)


def test_npu_subnormals_that_a_flush_would_change_are_undefined():
    tiny = np.array([1], np.uint32)[0]  # the smallest positive subnormal
    rows = np.array([[tiny, NEG0], [tiny, *f32(1)], [tiny, *f32(-1)]], np.uint32)
    _, cls, _ = _row("TROWMAX", "a5", rows)
    assert cls.tolist() == [UNDEFINED, EXACT, UNDEFINED]  # flushed: max(+0, -0) is a zero, not the subnormal
    _, cls, _ = _row("TROWMAX", "cpu", rows)
    assert cls.tolist() == [EXACT] * 3  # the host compares subnormals


# ---- geometry and legality -----------------------------------------------------------------------------------

def _case(op, platform, dst, src, dtype="float32"):
    return Case(op, platform, dtype, (("dst", dst), ("src", src)))


def test_row_contract_outside_the_pages_is_unsupported():
    inst = registry.get("TROWMAX")
    x = {"src": np.zeros((8, 8), np.uint32)}
    assert inst.evaluate(_case("TROWMAX", "cpu", Tile(8, 1, 8, 1), Tile(8, 8, 8, 0)), x).kind is \
        OutcomeKind.UNSUPPORTED
    assert inst.evaluate(_case("TROWMAX", "a5", Tile(8, 1, 4, 1), Tile(8, 8, 8, 8)), x).kind is \
        OutcomeKind.UNSUPPORTED


def test_an_empty_column_reduction_returns_early():
    out = registry.get("TCOLMIN").evaluate(_case("TCOLMIN", "a5", Tile(1, 8, 1, 8), Tile(8, 8, 0, 8)),
                                           {"src": np.zeros((8, 8), np.uint32)})
    assert out.kind is OutcomeKind.OK and (out.classes["dst"] == UNDEFINED).all()


@pytest.mark.parametrize(("dst", "src", "why"), [
    (Tile(32, 1, 32, 1), Tile(32, 8, 0, 8), "empty"),
    (Tile(32, 2, 32, 1), Tile(32, 32, 32, 32), "one column"),
    (Tile(16, 1, 16, 1), Tile(32, 32, 16, 32), "bytes"),  # 16 x 4 B = 64 B: no descriptor
    (Tile(32, 1, 8, 1), Tile(32, 32, 16, 32), "one column"),
])
def test_spec_row_legality_faults(dst, src, why):
    out = registry.get("TROWMAX").evaluate(_case("TROWMAX", "spec", dst, src),
                                           {"src": np.zeros(src.shape, np.uint32)})
    assert out.kind is OutcomeKind.FAULT and out.fault.name == "Fault_TileLegality"
    assert why in out.reason


def test_spec_rejects_64_bit_and_takes_unsigned():
    inst = registry.get("TCOLMAX")
    d, s = red.spec_tiles("TCOLMAX", dtypes.get("uint16"), (4, 64))
    assert inst.evaluate(_case("TCOLMAX", "spec", d, s, "uint16"),
                         {"src": np.zeros(s.shape, np.uint16)}).kind is OutcomeKind.OK
    assert inst.evaluate(_case("TCOLMAX", "spec", d, s, "int64"),
                         {"src": np.zeros(s.shape, np.uint64)}).kind is OutcomeKind.FAULT


# ---- independent recomputation -------------------------------------------------------------------------------

NP = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "int16": np.int16,
      "int32": np.int32, "uint8": np.uint8}


@pytest.mark.parametrize("dtype", sorted(NP))
@pytest.mark.parametrize("op", red.NAMES)
def test_random_cases_agree_with_a_plain_loop(op, dtype):
    inst = registry.get(op)
    src = seeded(7, op, dtype)
    for _ in range(12):
        case = inst.random_case(src, "cpu", {"dtype": dtype}) if dtype in inst.platforms["cpu"].dtypes else \
            inst.random_case(src, "a5", {"dtype": dtype})
        rng = np.random.default_rng(len(case.tiles[1][1].shape) + case.tile("src").rows)
        vals = rng.integers(-50, 50, case.tile("src").shape)
        if dtype.startswith("uint"):
            vals = np.abs(vals)
        bits = np.asarray(vals.astype(NP[dtype]))
        bits = bits.view(f"u{bits.itemsize}")
        out = inst.evaluate(case, {"src": bits})
        if 0 in case.tile("src").valid:
            continue
        assert out.kind is OutcomeKind.OK
        vr, vc = case.tile("src").valid
        x = vals.astype(NP[dtype]).astype(np.float64)
        got = out.outputs["dst"].view(NP[dtype]).astype(np.float64)
        if op.startswith("TROW"):
            for i in range(vr):
                best = x[i, 0]
                for j in range(1, vc):
                    best = max(best, x[i, j]) if op.endswith("MAX") else min(best, x[i, j])
                assert got[i, 0] == best
        else:
            for j in range(vc):
                best = x[0, j]
                for i in range(1, vr):
                    best = max(best, x[i, j]) if op.endswith("MAX") else min(best, x[i, j])
                assert got[0, j] == best


# ---- layouts ---------------------------------------------------------------------------------------------------

def test_canonical_cases_follow_the_scripts():
    a2a3 = dict(red.canonical("TCOLMAX", "a2a3"))
    assert a2a3["case13"].tile("src") == Tile(16, 256, 1, 256)  # TColMax(np.float32, 256, 16, 1)
    a5 = dict(red.canonical("TCOLMIN", "a5"))
    assert a5["case73"].dtype == "uint32" and a5["case73"].tile("src") == Tile(16, 256, 15, 255)
    assert a5["case73"].tile("dst") == Tile(1, 256, 1, 255)
    row = dict(red.canonical("TROWMIN", "kirinDev0000"))
    assert row["case12"].dtype == "int16" and row["case12"].tile("dst") == Tile(15, 1, 15, 1)
    cpu = dict(red.canonical("TROWMAX", "cpu"))
    assert cpu["case_float_77x81_32x16_77x81"].param("gm") == "77x81"
