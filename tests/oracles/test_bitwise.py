"""The bitwise oracles (TAND TOR TXOR TSHL TSHR, TANDS TORS TXORS TSHLS TSHRS): pto-spec's own vectors (the AVS
tests of its shift masking and arithmetic right shift), the pages' formulas with what they leave open classed
(a shift count outside [0, W)), both sides of every rule, legality, and recomputation with Python integers."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, Case, OutcomeKind, Tile
from ptofuzz.generators import bitwise as gen_counts
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import bitwise, registry

DOCUMENTED = ("cpu", "a2a3", "a5", "kirin9030")
INTS = ("int32", "int16", "int8", "uint32", "uint16", "uint8")


def _bits(values: list[int], dtype: str) -> np.ndarray:
    dt = dtypes.get(dtype)
    return np.array([v & ((1 << dt.bits) - 1) for v in values], dtype=np.uint64).astype(dt.bits_dtype)


def _signed(bits: np.ndarray, dtype: str) -> list[int]:
    dt = dtypes.get(dtype)
    return [int(v) - (1 << dt.bits) if dt.kind == "int" and int(v) >> (dt.bits - 1) else int(v) for v in bits]


def _run(op: str, platform: str, a: list[int], b: list[int], dtype: str):
    """One row: src0 ``a`` and src1 ``b`` (tile-tile) or the scalar ``b[0]`` (tile-scalar), through the registry."""
    n = len(a)
    dt = dtypes.get(dtype)
    block = 32 // dt.itemsize
    cols = -(-n // block) * block
    if platform == "spec":
        cols = max(1 << max(n - 1, 0).bit_length(), 128 // dt.itemsize)
    t = Tile(1, cols, 1, n)
    x = np.zeros((1, cols), dt.bits_dtype)
    x[0, :n] = _bits(a, dtype)
    if bitwise.scalar_op(op):
        case = Case(op, platform, dtype, (("dst", t), ("src0", t), ("scalar", bitwise.SCALAR)))
        inputs = {"src0": x, "scalar": _bits(b[:1], dtype).reshape(1, 1)}
    else:
        y = np.zeros((1, cols), dt.bits_dtype)
        y[0, :n] = _bits(b, dtype)
        case = Case(op, platform, dtype, (("dst", t), ("src0", t), ("src1", t)))
        inputs = {"src0": x, "src1": y}
    out = registry.get(op).evaluate(case, inputs)
    assert out.kind is OutcomeKind.OK, out
    return _signed(out.outputs["dst"][0, :n], dtype), out.classes["dst"][0, :n].tolist()


# ---- pto-spec's vectors ------------------------------------------------------------------------------------

def test_spec_masks_the_count_to_log2_width_bits():
    """tile-exec-tshl-mask-001: U8 count 10 acts as 2 (1 -> 4); tile-exec-tshls-mask-001: U8 scalar 9 acts as 1.
    A count of W acts as 0; an S8 count of -1 (bits 0xFF) as 7."""
    assert _run("TSHL", "spec", [1, 1, 3], [10, 8, 9], "uint8") == ([4, 1, 6], [EXACT] * 3)
    assert _run("TSHLS", "spec", [1, 3], [9], "uint8") == ([2, 6], [EXACT] * 2)
    assert _run("TSHL", "spec", [1, 1], [-1, 16], "int8") == ([-128, 1], [EXACT] * 2)
    assert _run("TSHR", "spec", [1 << 31, -8], [32 + 31, -1], "int32") == ([-1, -1], [EXACT] * 2)


def test_spec_right_shift_is_arithmetic_for_signed_and_logical_for_unsigned():
    """tile-exec-tshr-signed-001: S8 0x80 >> 1 = 0xC0, U8 = 0x40; tile-exec-tshrs-signed-001: S8 scalar 9 acts
    as 1, -128 -> -64 and 126 -> 63."""
    assert _run("TSHR", "spec", [-128], [1], "int8") == ([-64], [EXACT])
    assert _run("TSHR", "spec", [0x80], [1], "uint8") == ([0x40], [EXACT])
    assert _run("TSHRS", "spec", [-128, 126], [9], "int8") == ([-64, 63], [EXACT] * 2)


def test_spec_takes_64_bit_integers_and_faults_on_floats():
    assert _run("TSHL", "spec", [1, 1], [63, 64], "uint64") == ([1 << 63, 1], [EXACT] * 2)
    assert _run("TAND", "spec", [-1], [1 << 62], "int64") == ([1 << 62], [EXACT])
    case = Case("TAND", "spec", "float32", tuple((r, Tile(1, 32, 1, 32)) for r in ("dst", "src0", "src1")))
    out = registry.get("TAND").evaluate(case, {"src0": np.zeros((1, 32), np.uint32),
                                                "src1": np.zeros((1, 32), np.uint32)})
    assert out.kind is OutcomeKind.FAULT


# ---- the pages ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", DOCUMENTED)
def test_and_or_xor_are_exact_on_integer_extremes(platform):
    """docs/isa/TAND.md, TOR.md, TXOR.md (and the S forms): the C++ operators on the bits, exact for min, -1, 0,
    max."""
    a, b = [-128, -1, 127, 0, -128], [-1, 127, -128, -1, 127]
    for op, f in (("TAND", lambda x, y: x & y), ("TOR", lambda x, y: x | y), ("TXOR", lambda x, y: x ^ y)):
        assert _run(op, platform, a, b, "int8") == ([f(x, y) for x, y in zip(a, b)], [EXACT] * 5), op
        s = _run(op + "S", platform, a, [-128], "int8")
        assert s == ([f(x, -128) for x in a], [EXACT] * 5), op + "S"


@pytest.mark.parametrize("platform", DOCUMENTED)
def test_a_count_outside_zero_to_width_is_undefined_on_the_pages(platform):
    """No page defines a count >= W or < 0: those elements are undefined (never numpy's zero or sign fill);
    W - 1 and 0 are defined, as are << of a negative value (C++20: the low W bits) and >> of one
    (arithmetic)."""
    res, cls = _run("TSHL", platform, [1, 1, 1, -1, 3, 5], [15, 16, 17, 3, -1, 0], "int16")
    assert cls == [EXACT, UNDEFINED, UNDEFINED, EXACT, UNDEFINED, EXACT]
    assert (res[0], res[3], res[5]) == (-32768, -8, 5)
    res, cls = _run("TSHR", platform, [-32768, -1, 0x4000, 7], [15, 8, 14, 16], "int16")
    assert cls == [EXACT, EXACT, EXACT, UNDEFINED] and res[:3] == [-1, -1, 1]
    res, cls = _run("TSHR", platform, [0x8000, 0x8000], [15, 16], "uint16")
    assert cls == [EXACT, UNDEFINED] and res[0] == 1


@pytest.mark.parametrize("platform", DOCUMENTED)
def test_a_scalar_count_outside_zero_to_width_leaves_every_element_undefined(platform):
    """TSHLS/TSHRS: "Scalar only supports zero and positive values"; a count >= W is as open as for TSHL."""
    for count in (-1, 32, 33):
        assert _run("TSHLS", platform, [1, 2, 3], [count], "int32")[1] == [UNDEFINED] * 3
    assert _run("TSHRS", platform, [-64, 64, 1], [31], "int32") == ([-1, 0, 0], [EXACT] * 3)
    assert _run("TSHLS", platform, [1, -1, 3], [0], "int32") == ([1, -1, 3], [EXACT] * 3)


def test_a5_takes_64_bit_shifts_and_a2a3_does_not():
    assert _run("TSHL", "a5", [1, 1], [63, 64], "int64") == ([-(1 << 63), 1], [EXACT, UNDEFINED])
    assert "int64" not in registry.get("TSHL").support("a2a3").dtypes
    assert "int8" not in registry.get("TSHLS").support("a2a3").dtypes  # A2A3's page: 16 and 32 bits
    assert "int8" in registry.get("TSHLS").support("a5").dtypes
    for op in bitwise.NAMES:  # no page lists a float type
        for p in ("spec", *DOCUMENTED):
            assert not {"float32", "float16", "bfloat16"} & set(registry.get(op).support(p).dtypes), (op, p)


def test_a_source_valid_shape_that_differs_from_dst_is_unsupported_and_a_spec_fault():
    d, s = Tile(1, 32, 1, 8), Tile(1, 32, 1, 7)
    for platform, kind in (("cpu", OutcomeKind.UNSUPPORTED), ("a5", OutcomeKind.UNSUPPORTED),
                           ("spec", OutcomeKind.FAULT)):
        case = Case("TORS", platform, "int32", (("dst", d), ("src0", s), ("scalar", bitwise.SCALAR)))
        out = registry.get("TORS").evaluate(case, {"src0": np.zeros((1, 32), np.uint32),
                                                    "scalar": np.zeros((1, 1), np.uint32)})
        assert out.kind is kind, platform
    same = Case("TORS", "cpu", "int32", (("dst", d), ("src0", d), ("scalar", bitwise.SCALAR)))
    ok = registry.get("TORS").evaluate(same, {"src0": np.ones((1, 32), np.uint32),
                                              "scalar": np.full((1, 1), 6, np.uint32)})
    assert ok.kind is OutcomeKind.OK and ok.outputs["dst"][0, :8].tolist() == [7] * 8
    assert (ok.classes["dst"][0, 8:] == UNDEFINED).all()  # nothing written outside the valid region


def test_each_source_is_read_at_its_own_row_stride():
    """a2a3 TXOR's src1 is 32x256 against a 32x128 destination: element (i, j) of each tile at its own stride."""
    d, s1 = Tile(2, 16, 2, 15), Tile(2, 32, 2, 15)
    case = Case("TXOR", "a2a3", "int32", (("dst", d), ("src0", d), ("src1", s1)))
    a = np.arange(32, dtype=np.uint32).reshape(2, 16)
    b = np.arange(64, dtype=np.uint32).reshape(2, 32) * 3
    out = registry.get("TXOR").evaluate(case, {"src0": a, "src1": b})
    assert out.outputs["dst"][:, :15].tolist() == (a[:, :15] ^ b[:, :15]).tolist()
    assert (out.classes["dst"][:, 15] == UNDEFINED).all() and (out.classes["dst"][:, :15] == EXACT).all()


# ---- recomputation with Python integers --------------------------------------------------------------------

def _python(op: str, x: int, c: int, dt: dtypes.DType, spec: bool) -> int | None:
    w = dt.bits
    if op in ("and", "or", "xor"):
        return x & c if op == "and" else x | c if op == "or" else x ^ c
    if spec:
        c = (c % (1 << w)) % w  # the count's unsigned low log2(W) bits
    elif not 0 <= c < w:
        return None
    r = x * 2 ** c if op == "shl" else x // 2 ** c  # floor division: arithmetic for negative values
    r %= 1 << w
    return r - (1 << w) if dt.kind == "int" and r >> (w - 1) else r


@pytest.mark.parametrize("dtype", (*INTS, "int64", "uint64"))
@pytest.mark.parametrize("platform", ("spec", "a5"))
@pytest.mark.parametrize("op", ("TAND", "TOR", "TXOR", "TSHL", "TSHR"))
def test_every_result_against_python_integers(op, platform, dtype):
    dt = dtypes.get(dtype)
    if dtype not in registry.get(op).support(platform).dtypes:
        pytest.skip(f"{op} on {platform} takes no {dtype}")
    src = seeded(5, op, platform, dtype)
    a = src.bits(dt.bits, 256)
    b = np.concatenate([gen_counts.counts(src, dt, (128,), 1.0), src.bits(dt.bits, 128)])
    av, bv = _signed(a, dtype), _signed(b, dtype)
    res, cls = _run(op, platform, av, bv, dtype)
    word = op[1:].lower()
    for x, c, r, k in zip(av, bv, res, cls):
        want = _python(word, x, c, dt, platform == "spec")
        assert (k == UNDEFINED) if want is None else (k == EXACT and r == want), (x, c, r, k)
