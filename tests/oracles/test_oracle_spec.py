"""The pto-spec TPART* oracle (``oracles/tpart.py: spec``), checked against hand-worked values.

References (the source of truth for every expected value here), pto-spec 0.58.3:
- coverage / legality: ``TilePartialCoverageLegal`` (``asl/tile/model/legality/allocation-capacity.asl``),
  ``TileOperandsLegal_ExecuteTilePartial`` and ``TilePartialDataTypeSupported``
  (``asl/tile/model/legality/indexed-layout.asl``); descriptors: ``DerivedTileRows``
  (``asl/tile/model/shape/rows-columns.asl``), ``TileDescriptorShapeLegal`` (``asl/tile/model/shape/valid-region.asl``).
- semantics and Null padding: ``ExecuteTilePartial`` (``asl/tile/model/execution/complex.asl``) and the contracts
  ``asl/tile/irregular-and-complex/union/TPART*.asl``; float max/min: ``HardwareNumericMinMaxSpecial``
  (``asl/arch/features/mx-formats.asl``); float add/mul and the canonical qNaN values:
  ``spec/hardware-conformance-profile.json``; sNaN: quiet bit (fraction MSB) clear, as IEEE 754-2019 6.2.1.
- the spec's own tests: ``tests/asl/tile/irregular-and-complex/union/TPART*/``.
- trap numbers: ``asl/arch/memory-model/fault-precision.asl``.
All data are raw element bits; float constants are written in hex with the value in a comment.
"""

from __future__ import annotations

import numpy as np
import pytest
from tpart_helpers import case, cropped

from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED
from ptofuzz.instructions import registry

# ---------------------------------------------------------------------------------------------------------
# helpers

def arr(dtype, rows, shape=None):
    """Element bits of ``dtype`` from nested lists (``shape`` for empty arrays)."""
    bd = dtypes.get(dtype).bits_dtype
    if shape is not None:
        return np.zeros(shape, dtype=bd)
    return np.array(rows, dtype=np.uint64).astype(bd)


def spec(op, dtype, src0, src1, dst=None, dst_shape=None):
    """Run ``op`` on the spec oracle with compact source tiles (physical == valid == the array shape).

    dst (its valid region) defaults to the larger source's region; ``dst_shape`` is its physical shape."""
    a, b = arr(dtype, src0), arr(dtype, src1)
    dst = dst or (max(a.shape[0], b.shape[0]), max(a.shape[1], b.shape[1]))
    c = case(op, "spec", dtype, dst, a.shape, b.shape, {"dst": dst_shape} if dst_shape else None)
    out = registry.get(op).evaluate(c, {"src0": a, "src1": b})
    return out if dst_shape else cropped(out, *dst)


def one(op, dtype, x, y):
    """op(x, y) on two 1x1 tiles: (result bits as int, class code, flags)."""
    out = spec(op, dtype, [[x]], [[y]])
    assert out.kind == "ok", out.reason
    return int(out.outputs["dst"][0, 0]), int(out.classes["dst"][0, 0]), out.flags


def assert_ok(out):
    assert out.kind == "ok", (out.kind, out.reason)
    return out.outputs["dst"], out.classes["dst"]


def assert_legality_fault(out):
    # fault-precision.asl / TileOperandsLegal_ExecuteTilePartial: every illegal TPART pattern is
    # Fault_TileLegality, trap 5, no effect.
    assert out.kind == "fault"
    assert out.fault.name == "Fault_TileLegality"
    assert out.fault.trap == 5
    assert out.outputs == {}


FLOATS = ("float32", "float16", "bfloat16")
CANONICAL_NAN = {"float32": 0x7FC00000, "float16": 0x7E00, "bfloat16": 0x7FC0}  # hardware-conformance-profile
ONE = {"float32": 0x3F800000, "float16": 0x3C00, "bfloat16": 0x3F80}
TWO = {"float32": 0x40000000, "float16": 0x4000, "bfloat16": 0x4000}
THREE = {"float32": 0x40400000, "float16": 0x4200, "bfloat16": 0x4040}
NEG_ONE = {"float32": 0xBF800000, "float16": 0xBC00, "bfloat16": 0xBF80}
POS_ZERO = {"float32": 0x00000000, "float16": 0x0000, "bfloat16": 0x0000}
NEG_ZERO = {"float32": 0x80000000, "float16": 0x8000, "bfloat16": 0x8000}
POS_INF = {"float32": 0x7F800000, "float16": 0x7C00, "bfloat16": 0x7F80}
NEG_INF = {"float32": 0xFF800000, "float16": 0xFC00, "bfloat16": 0xFF80}
# sNaN: exponent all ones, fraction MSB (quiet bit) clear, fraction nonzero (IEEE 754); odd payloads and a sign.
SNAN = {"float32": 0x7F800001, "float16": 0x7C01, "bfloat16": 0x7F81}
SNAN_NEG_PAYLOAD = {"float32": 0xFFA12345, "float16": 0xFD55, "bfloat16": 0xFF9A}
QNAN_PAYLOAD = {"float32": 0x7FC0BEEF, "float16": 0x7E3F, "bfloat16": 0x7FE1}
QNAN_NEG = {"float32": 0xFFC00001, "float16": 0xFE01, "bfloat16": 0xFFC1}


# ---------------------------------------------------------------------------------------------------------
# the spec's own hand-worked tests (tests/asl/tile/irregular-and-complex/union/TPART*/)


def test_tpartadd_s16_overlap_001():
    # tile-exec-tpartadd-overlap-001: L 1x3 [1, 2, 7], R 1x2 [3, 4], dst 1x3 -> [4, 6, 7]
    out = spec("TPARTADD", "int16", [[1, 2, 7]], [[3, 4]], dst=(1, 3))
    dst, cls = assert_ok(out)
    assert dst.tolist() == [[4, 6, 7]]
    assert cls.tolist() == [[EXACT] * 3]
    assert out.flags == ()


def test_tpartadd_s16_bundle_001_geometry_lb0_3_lb2_4():
    # tile-exec-tpartadd-bundle-001: same data, LB0 = 3 (ValidCol), LB2 = 4 (Col), SizeCode 1 (128 B): the
    # S16 dst tile is 16x4 (rows = 128 / (4 * 2)), valid 1x3. Everything else is Null padding: undefined.
    out = spec("TPARTADD", "int16", [[1, 2, 7]], [[3, 4]], dst=(1, 3), dst_shape=(16, 4))
    dst, cls = assert_ok(out)
    assert dst.shape == (16, 4)
    assert dst[0, :3].tolist() == [4, 6, 7]
    assert cls[0].tolist() == [EXACT, EXACT, EXACT, UNDEFINED]
    assert (cls[1:] == UNDEFINED).all()


def test_a_destination_that_is_no_legal_descriptor_is_an_allocation_fault():
    # DerivedTileRows / TileDescriptorShapeLegal: physical Col must be a power of two, capacity 128 B * 2**k
    # (<= 64 KiB Local).
    for shape in ((1, 4), (16, 3), (1024, 64)):
        out = spec("TPARTADD", "int16", [[1, 2, 3]], [[3, 4]], dst=(1, 3), dst_shape=shape)
        assert out.kind == "fault" and out.fault.name == "Fault_TileAllocation" and out.fault.trap == 5


def test_tpartmul_u8_wrap_001():
    # tile-exec-tpartmul-wrap-001: U8 L [16, 9] (1x2), R [16] (1x1) -> [0 (256 wraps), 9]
    dst, cls = assert_ok(spec("TPARTMUL", "uint8", [[16, 9]], [[16]]))
    assert dst.tolist() == [[0, 9]]
    assert cls.tolist() == [[EXACT, EXACT]]


def test_tpartmax_u8_unsigned_001():
    # tile-exec-tpartmax-unsigned-001: max(250, 5) = 250 (unsigned order)
    assert one("TPARTMAX", "uint8", 250, 5)[:2] == (250, EXACT)


def test_tpartmin_s8_signed_001():
    # tile-exec-tpartmin-signed-001: S8 min(0xff, 1) -> -1 (0xff) (signed order)
    assert one("TPARTMIN", "int8", 0xFF, 1)[:2] == (0xFF, EXACT)


# ---------------------------------------------------------------------------------------------------------
# legality: TileOperandsLegal_ExecuteTilePartial (all Fault_TileLegality, trap 5)


@pytest.mark.parametrize("op", ["TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN"])
def test_empty_destination_is_a_legality_fault(op):
    c = case(op, "spec", "float32", (0, 4), (0, 4), (0, 4), shapes={r: (1, 4) for r in ("dst", "src0", "src1")})
    z = np.zeros((1, 4), np.uint32)
    assert_legality_fault(registry.get(op).evaluate(c, {"src0": z, "src1": z}))
    c = case(op, "spec", "float32", (1, 0), (1, 0), (1, 0), shapes={r: (1, 4) for r in ("dst", "src0", "src1")})
    assert_legality_fault(registry.get(op).evaluate(c, {"src0": z, "src1": z}))


@pytest.mark.parametrize("empty", [(0, 4), (2, 0), (0, 0)])
@pytest.mark.parametrize("role", ["src0", "src1"])
def test_empty_source_is_a_legality_fault(role, empty):
    shapes = {"dst": (2, 4), "src0": (2, 4), "src1": (2, 4)}
    valids = {"src0": (2, 4), "src1": (2, 4)}
    valids[role] = empty
    c = case("TPARTADD", "spec", "int32", (2, 4), valids["src0"], valids["src1"], shapes)
    z = np.ones((2, 4), np.uint32)
    assert_legality_fault(registry.get("TPARTADD").evaluate(c, {"src0": z, "src1": z}))


@pytest.mark.parametrize("big", [(3, 4), (2, 5), (3, 5)])
def test_source_exceeding_destination_is_a_legality_fault(big):
    c = case("TPARTMAX", "spec", "int32", (2, 4), (2, 4), big)
    a, b = np.ones((2, 4), np.uint32), np.ones(big, np.uint32)
    assert_legality_fault(registry.get("TPARTMAX").evaluate(c, {"src0": a, "src1": b}))
    # the same with the roles swapped
    c = case("TPARTMAX", "spec", "int32", (2, 4), big, (2, 4))
    assert_legality_fault(registry.get("TPARTMAX").evaluate(c, {"src0": b, "src1": a}))


@pytest.mark.parametrize("s0,s1", [((2, 1), (1, 2)), ((1, 2), (1, 2)), ((2, 1), (2, 1)), ((1, 1), (1, 1))])
def test_no_source_covering_the_destination_is_a_legality_fault(s0, s1):
    # Every coordinate of a 2x2 dst covered by a source is not enough if no source covers it whole
    # (here (1,1) is uncovered in every variant): TilePartialCoverageLegal.
    c = case("TPARTMUL", "spec", "float16", (2, 2), s0, s1)
    out = registry.get("TPARTMUL").evaluate(c, {"src0": np.ones(s0, np.uint16), "src1": np.ones(s1, np.uint16)})
    assert_legality_fault(out)


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
@pytest.mark.parametrize("op", ["TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN"])
def test_64_bit_types_are_a_legality_fault_through_the_registry(op, dtype):
    # TilePartialDataTypeSupported: the 9 legal types have no S64/U64; an illegal type is Fault_TileLegality
    # (trap 5).
    c = case(op, "spec", dtype, (1, 2), (1, 2), (1, 2))
    z = np.ones((1, 2), np.uint64)
    assert_legality_fault(registry.get(op).evaluate(c, {"src0": z, "src1": z}))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int32", "int16", "int8",
                                   "uint32", "uint16", "uint8"])
def test_all_nine_spec_types_are_legal_for_tpartmul(dtype):
    # TilePartialDataTypeSupported and pto-spec's test tile-bound-tpartmul-dtype-001: the executable model
    # (followed by ptofuzz) accepts S8 and U8 for TPARTMUL as well.
    one_bits = ONE.get(dtype, 1)
    out = spec("TPARTMUL", dtype, [[one_bits]], [[one_bits]])
    dst, cls = assert_ok(out)
    assert int(dst[0, 0]) == one_bits and int(cls[0, 0]) == EXACT


# ---------------------------------------------------------------------------------------------------------
# ExecuteTilePartial: coverage semantics, copies and Null padding


def test_copy_region_is_a_bit_copy_and_raises_no_flag():
    # Only src0 covers (0,1) and (0,2): copied bit for bit, sNaN payloads and signs kept, no NV
    # (ExecuteTilePartial).
    out = spec("TPARTADD", "float32", [[ONE["float32"], 0x7F800123, 0xFFA00001]], [[TWO["float32"]]])
    dst, cls = assert_ok(out)
    assert dst.tolist() == [[THREE["float32"], 0x7F800123, 0xFFA00001]]
    assert cls.tolist() == [[EXACT] * 3]
    assert out.flags == ()


@pytest.mark.parametrize("op", ["TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN"])
def test_copy_region_from_src1_when_src1_covers(op):
    # src1 covers the 2x2 dst, src0 only (0,0): the other three elements are src1's bits (sNaN included).
    a = [[TWO["float16"]]]
    b = [[TWO["float16"], SNAN["float16"]], [SNAN_NEG_PAYLOAD["float16"], NEG_ZERO["float16"]]]
    out = spec(op, "float16", a, b)
    dst, cls = assert_ok(out)
    assert dst[0, 1] == SNAN["float16"] and dst[1, 0] == SNAN_NEG_PAYLOAD["float16"]
    assert dst[1, 1] == NEG_ZERO["float16"]
    expected00 = {"TPARTADD": 0x4400, "TPARTMUL": 0x4400, "TPARTMAX": 0x4000, "TPARTMIN": 0x4000}[op]  # 4.0/2.0
    assert dst[0, 0] == expected00
    assert (cls == EXACT).all()
    assert out.flags == ()  # the sNaNs are only copied, never operated on


def test_elements_outside_the_destination_valid_region_are_undefined():
    # ExecuteTilePartial: physical elements outside the valid region are Null padding (undefined).
    a = [[1, 2, 3], [4, 5, 6]]
    b = [[10, 20, 30], [40, 50, 60]]
    out = spec("TPARTADD", "int32", a, b, dst_shape=(4, 8))
    dst, cls = assert_ok(out)
    assert dst.shape == cls.shape == (4, 8)
    assert dst[:2, :3].tolist() == [[11, 22, 33], [44, 55, 66]]
    expected = np.full((4, 8), UNDEFINED)
    expected[:2, :3] = EXACT
    assert (cls == expected).all()


def test_sources_with_larger_physical_tiles_only_read_their_valid_region():
    # src1's physical tile is 4x4 with valid 1x2; the garbage around its valid region is never used.
    c = case("TPARTADD", "spec", "uint16", (2, 3), (2, 3), (1, 2), shapes={"src1": (16, 4)})
    a = arr("uint16", [[1, 2, 3], [4, 5, 6]])
    b = np.full((16, 4), 0xEEEE, np.uint16)
    b[0, :2] = [100, 200]
    dst, cls = assert_ok(registry.get("TPARTADD").evaluate(c, {"src0": a, "src1": b}))
    assert dst[:2, :3].tolist() == [[101, 202, 3], [4, 5, 6]]
    assert (cls[:2, :3] == EXACT).all()


@pytest.mark.parametrize("inplace", ["src0", "src1"])
def test_inplace_destination_gives_the_same_result(inplace):
    # TPART*.asl contracts: sources are read before writes; a destination aliasing a source changes nothing.
    a = arr("int8", [[1, 2], [3, 4]])
    b = arr("int8", [[10, 0xFF], [0x80, 0x7F]])
    base = case("TPARTADD", "spec", "int8", (2, 2), (2, 2), (2, 2))
    alias = case("TPARTADD", "spec", "int8", (2, 2), (2, 2), (2, 2), inplace=inplace)
    r0 = registry.get("TPARTADD").evaluate(base, {"src0": a, "src1": b})
    r1 = registry.get("TPARTADD").evaluate(alias, {"src0": a, "src1": b})
    assert r1.outputs["dst"][:2, :2].tolist() == r0.outputs["dst"][:2, :2].tolist() == [[11, 1], [0x83, 0x83]]


# ---------------------------------------------------------------------------------------------------------
# Integer operations: wrap, signed/unsigned order (the TPART*.asl contracts)


@pytest.mark.parametrize("dtype,x,y,expected", [
    ("int32", 0x7FFFFFFF, 1, 0x80000000),  # INT32_MAX + 1 wraps to INT32_MIN
    ("int32", 0x80000000, 0x80000000, 0),  # MIN + MIN = 0 mod 2**32
    ("uint32", 0xFFFFFFFF, 2, 1),
    ("int16", 0x7FFF, 0x7FFF, 0xFFFE),  # 65534 = -2
    ("uint16", 0xFFFF, 1, 0),
    ("int8", 0x80, 0xFF, 0x7F),  # -128 + -1 = -129 -> 127
    ("uint8", 200, 100, 44),  # 300 mod 256
])
def test_integer_add_wraps(dtype, x, y, expected):
    assert one("TPARTADD", dtype, x, y) == (expected, EXACT, ())


@pytest.mark.parametrize("dtype,x,y,expected", [
    ("int16", 300, 300, 24464),  # 90000 mod 65536
    ("int8", 0x80, 0xFF, 0x80),  # -128 * -1 = 128 -> -128
    ("int32", 0x10000, 0x10000, 0),  # 2**32 mod 2**32
    ("int32", 0xFFFFFFFF, 0xFFFFFFFD, 3),  # -1 * -3 = 3
    ("uint32", 0x80000001, 2, 2),
    ("uint16", 0x100, 0x101, 0x100),  # 0x10100 mod 2**16
    ("uint8", 16, 16, 0),
])
def test_integer_mul_wraps(dtype, x, y, expected):
    assert one("TPARTMUL", dtype, x, y) == (expected, EXACT, ())


@pytest.mark.parametrize("op,dtype,x,y,expected", [
    ("TPARTMAX", "int16", 0xFFFF, 1, 1),  # max(-1, 1) = 1: signed order
    ("TPARTMAX", "uint16", 0xFFFF, 1, 0xFFFF),  # unsigned order
    ("TPARTMIN", "int32", 0x80000000, 0x7FFFFFFF, 0x80000000),
    ("TPARTMIN", "uint32", 0x80000000, 0x7FFFFFFF, 0x7FFFFFFF),
    ("TPARTMAX", "int8", 0x80, 0x7F, 0x7F),
    ("TPARTMIN", "uint8", 0, 255, 0),
])
def test_integer_max_min_order(op, dtype, x, y, expected):
    assert one(op, dtype, x, y) == (expected, EXACT, ())


# ---------------------------------------------------------------------------------------------------------
# Float max/min (HardwareNumericMinMaxSpecial, asl/arch/features/mx-formats.asl)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["TPARTMAX", "TPARTMIN"])
@pytest.mark.parametrize("nan_table", [SNAN, SNAN_NEG_PAYLOAD, QNAN_PAYLOAD, QNAN_NEG])
def test_max_min_with_one_nan_returns_the_other_operand(op, dtype, nan_table):
    nan = nan_table[dtype]
    for other in (ONE[dtype], NEG_ZERO[dtype], NEG_INF[dtype], 0x0001):  # 0x0001: a subnormal
        assert one(op, dtype, nan, other)[:2] == (other, EXACT)
        assert one(op, dtype, other, nan)[:2] == (other, EXACT)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["TPARTMAX", "TPARTMIN"])
def test_max_min_nan_flags_snan_sets_nv_qnan_does_not(op, dtype):
    assert one(op, dtype, SNAN[dtype], ONE[dtype])[2] == ("NV",)
    assert one(op, dtype, ONE[dtype], SNAN_NEG_PAYLOAD[dtype])[2] == ("NV",)
    assert one(op, dtype, QNAN_PAYLOAD[dtype], ONE[dtype])[2] == ()
    assert one(op, dtype, ONE[dtype], QNAN_NEG[dtype])[2] == ()
    assert one(op, dtype, ONE[dtype], TWO[dtype])[2] == ()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["TPARTMAX", "TPARTMIN"])
def test_max_min_both_nan_gives_canonical_nan(op, dtype):
    for x, y, flags in ((SNAN, QNAN_NEG, ("NV",)), (QNAN_PAYLOAD, QNAN_NEG, ()),
                        (SNAN_NEG_PAYLOAD, SNAN, ("NV",))):
        assert one(op, dtype, x[dtype], y[dtype]) == (CANONICAL_NAN[dtype], EXACT, flags)


@pytest.mark.parametrize("dtype", FLOATS)
def test_max_min_zeros(dtype):
    p, n = POS_ZERO[dtype], NEG_ZERO[dtype]
    # mixed zeros: max -> +0, min -> -0, whatever the operand order
    assert one("TPARTMAX", dtype, p, n)[0] == p
    assert one("TPARTMAX", dtype, n, p)[0] == p
    assert one("TPARTMIN", dtype, p, n)[0] == n
    assert one("TPARTMIN", dtype, n, p)[0] == n
    # same-sign zeros keep their sign
    assert one("TPARTMAX", dtype, n, n)[0] == n
    assert one("TPARTMIN", dtype, p, p)[0] == p


@pytest.mark.parametrize("dtype", FLOATS)
def test_max_min_numeric_order_including_negatives_and_infinities(dtype):
    assert one("TPARTMAX", dtype, NEG_ONE[dtype], NEG_INF[dtype])[0] == NEG_ONE[dtype]
    assert one("TPARTMIN", dtype, NEG_ONE[dtype], NEG_INF[dtype])[0] == NEG_INF[dtype]
    assert one("TPARTMAX", dtype, TWO[dtype], ONE[dtype])[0] == TWO[dtype]
    assert one("TPARTMIN", dtype, TWO[dtype], ONE[dtype])[0] == ONE[dtype]
    assert one("TPARTMAX", dtype, POS_INF[dtype], TWO[dtype])[0] == POS_INF[dtype]
    # -2 < -1: larger magnitude negatives are smaller (the sign-magnitude order trap)
    neg_two = TWO[dtype] | NEG_ZERO[dtype]
    assert one("TPARTMAX", dtype, neg_two, NEG_ONE[dtype])[0] == NEG_ONE[dtype]
    assert one("TPARTMIN", dtype, neg_two, NEG_ONE[dtype])[0] == neg_two
    # subnormals vs zero: smallest positive subnormal beats +0 and -0 for max
    assert one("TPARTMAX", dtype, NEG_ZERO[dtype], 0x0001)[0] == 0x0001
    assert one("TPARTMIN", dtype, 0x0001, POS_ZERO[dtype])[0] == POS_ZERO[dtype]


# ---------------------------------------------------------------------------------------------------------
# Float add/mul: IEEE 754 RNE, canonical NaN, flags (TPART*.asl prose, spec/hardware-conformance-profile.json)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["TPARTADD", "TPARTMUL"])
def test_nan_input_gives_canonical_nan(op, dtype):
    # qNaN input: canonical NaN, no NV; sNaN input: canonical NaN, NV (hardware-conformance-profile values).
    assert one(op, dtype, QNAN_NEG[dtype], ONE[dtype]) == (CANONICAL_NAN[dtype], EXACT, ())
    assert one(op, dtype, ONE[dtype], QNAN_PAYLOAD[dtype]) == (CANONICAL_NAN[dtype], EXACT, ())
    assert one(op, dtype, SNAN_NEG_PAYLOAD[dtype], ONE[dtype]) == (CANONICAL_NAN[dtype], EXACT, ("NV",))
    assert one(op, dtype, QNAN_PAYLOAD[dtype], SNAN[dtype]) == (CANONICAL_NAN[dtype], EXACT, ("NV",))


@pytest.mark.parametrize("dtype", FLOATS)
def test_invalid_operations_give_canonical_nan_and_nv(dtype):
    assert one("TPARTADD", dtype, POS_INF[dtype], NEG_INF[dtype]) == (CANONICAL_NAN[dtype], EXACT, ("NV",))
    assert one("TPARTMUL", dtype, POS_ZERO[dtype], NEG_INF[dtype]) == (CANONICAL_NAN[dtype], EXACT, ("NV",))
    assert one("TPARTMUL", dtype, POS_INF[dtype], NEG_ZERO[dtype]) == (CANONICAL_NAN[dtype], EXACT, ("NV",))
    # valid infinity arithmetic: exact, no flags
    assert one("TPARTADD", dtype, POS_INF[dtype], POS_INF[dtype]) == (POS_INF[dtype], EXACT, ())
    assert one("TPARTADD", dtype, NEG_INF[dtype], ONE[dtype]) == (NEG_INF[dtype], EXACT, ())
    assert one("TPARTMUL", dtype, NEG_INF[dtype], NEG_ONE[dtype]) == (POS_INF[dtype], EXACT, ())


@pytest.mark.parametrize("dtype", FLOATS)
def test_zero_sign_of_exact_results(dtype):
    # x + (-x) = +0 under RNE; (-0) + (-0) = -0; (+0) + (-0) = +0; products take the xor of the signs.
    assert one("TPARTADD", dtype, ONE[dtype], NEG_ONE[dtype]) == (POS_ZERO[dtype], EXACT, ())
    assert one("TPARTADD", dtype, NEG_ZERO[dtype], NEG_ZERO[dtype]) == (NEG_ZERO[dtype], EXACT, ())
    assert one("TPARTADD", dtype, POS_ZERO[dtype], NEG_ZERO[dtype]) == (POS_ZERO[dtype], EXACT, ())
    assert one("TPARTMUL", dtype, NEG_ONE[dtype], POS_ZERO[dtype]) == (NEG_ZERO[dtype], EXACT, ())


@pytest.mark.parametrize("dtype,op,x,y,expected,flags", [
    # float32: ulp(1) = 2**-23
    ("float32", "TPARTADD", 0x3F800000, 0x33800000, 0x3F800000, ("NX",)),  # 1 + 2**-24: tie -> even 1.0
    ("float32", "TPARTADD", 0x3F800000, 0x34400000, 0x3F800002, ("NX",)),  # 1 + 3*2**-24: tie -> 1+2**-22
    ("float32", "TPARTADD", 0x3F800001, 0x33800000, 0x3F800002, ("NX",)),  # (1+2**-23) + 2**-24: tie up
    ("float32", "TPARTADD", 0x3F800000, 0x33800001, 0x3F800001, ("NX",)),  # just above the tie: up
    ("float32", "TPARTADD", 0x3F800000, 0xB3800000, 0x3F7FFFFF, ()),  # 1 - 2**-24 is exact (below 1)
    ("float32", "TPARTADD", 0x3FC00000, 0x40100000, 0x40700000, ()),  # 1.5 + 2.25 = 3.75 exact
    ("float32", "TPARTMUL", 0x3F800001, 0x3FC00000, 0x3FC00002, ("NX",)),  # (1+2**-23)*1.5 tie -> even
    ("float32", "TPARTMUL", 0x3FC00000, 0x40100000, 0x40580000, ()),  # 1.5 * 2.25 = 3.375 exact
    # float16: ulp(1) = 2**-10
    ("float16", "TPARTADD", 0x3C00, 0x1000, 0x3C00, ("NX",)),  # 1 + 2**-11: tie -> 1.0
    ("float16", "TPARTADD", 0x3C00, 0x1600, 0x3C02, ("NX",)),  # 1 + 3*2**-11: tie -> 1+2**-9
    ("float16", "TPARTADD", 0x6800, 0x3C00, 0x6800, ("NX",)),  # 2048 + 1: tie -> 2048
    ("float16", "TPARTADD", 0x6801, 0x3C00, 0x6802, ("NX",)),  # 2050 + 1: tie -> 2052
    ("float16", "TPARTMUL", 0x3C01, 0x3E00, 0x3E02, ("NX",)),  # (1+2**-10)*1.5 = 1.5+1.5*2**-10 -> 1.5+2**-9
    ("float16", "TPARTMUL", 0x3E00, 0x4080, 0x42C0, ()),  # 1.5 * 2.25 = 3.375 exact
    # bfloat16: ulp(1) = 2**-7
    ("bfloat16", "TPARTADD", 0x3F80, 0x3B80, 0x3F80, ("NX",)),  # 1 + 2**-8: tie -> 1.0
    ("bfloat16", "TPARTADD", 0x3F80, 0x3C40, 0x3F82, ("NX",)),  # 1 + 3*2**-8: tie -> 1+2**-6
    ("bfloat16", "TPARTADD", 0x4380, 0x3F80, 0x4380, ("NX",)),  # 256 + 1: tie -> 256
    ("bfloat16", "TPARTMUL", 0x3F81, 0x3FC0, 0x3FC2, ("NX",)),  # (1+2**-7)*1.5 tie -> 1.5+2**-6
    ("bfloat16", "TPARTMUL", 0x3FC0, 0x4010, 0x4058, ()),  # 1.5 * 2.25 = 3.375 exact
])
def test_round_to_nearest_even_examples(dtype, op, x, y, expected, flags):
    assert one(op, dtype, x, y) == (expected, EXACT, flags)
    assert one(op, dtype, y, x) == (expected, EXACT, flags)


@pytest.mark.parametrize("dtype,op,x,y,expected", [
    ("float32", "TPARTADD", 0x7F7FFFFF, 0x7F7FFFFF, 0x7F800000),  # 2*FLT_MAX -> +inf
    ("float32", "TPARTMUL", 0xFF7FFFFF, 0x40000000, 0xFF800000),  # -FLT_MAX * 2 -> -inf
    ("float32", "TPARTADD", 0x7F7FFFFF, 0x73000000, 0x7F800000),  # FLT_MAX + ulp/2: tie, odd -> inf
    ("float16", "TPARTADD", 0x7BFF, 0x7BFF, 0x7C00),  # 65504 + 65504 -> inf
    ("float16", "TPARTADD", 0x7BFF, 0x4C00, 0x7C00),  # 65504 + 16 = 65520: tie, odd -> inf
    ("float16", "TPARTMUL", 0x5C00, 0xDC00, 0xFC00),  # 256 * -256 = -65536 -> -inf
    ("bfloat16", "TPARTADD", 0x7F7F, 0x7F7F, 0x7F80),
    ("bfloat16", "TPARTMUL", 0x7F00, 0xC000, 0xFF80),  # 2**127 * -2 -> -inf
])
def test_overflow_to_infinity_sets_of_and_nx(dtype, op, x, y, expected):
    assert one(op, dtype, x, y) == (expected, EXACT, ("OF", "NX"))


@pytest.mark.parametrize("dtype,op,x,y,expected,flags", [
    ("float16", "TPARTADD", 0x7BFF, 0x4B80, 0x7BFF, ("NX",)),  # 65504 + 15 < 65520: stays finite
    ("float32", "TPARTADD", 0x7F7FFFFF, 0x72FFFFFF, 0x7F7FFFFF, ("NX",)),  # FLT_MAX + <ulp/2 -> FLT_MAX
])
def test_just_below_the_overflow_threshold_stays_finite(dtype, op, x, y, expected, flags):
    assert one(op, dtype, x, y) == (expected, EXACT, flags)


@pytest.mark.parametrize("dtype,op,x,y,expected,flags", [
    # gradual underflow, no FTZ/DAZ: subnormal arithmetic is exact and raises nothing
    ("float32", "TPARTADD", 0x00000001, 0x00000001, 0x00000002, ()),
    ("float16", "TPARTADD", 0x0001, 0x03FF, 0x0400, ()),  # max subnormal + min subnormal = min normal
    ("bfloat16", "TPARTADD", 0x0001, 0x8003, 0x8002, ()),
    # 2**-24 * 0.5 in float16 is exactly half the smallest subnormal: tie -> even (0), inexact + underflow
    ("float16", "TPARTMUL", 0x0001, 0x3800, 0x0000, ("UF", "NX")),
    # 3*2**-24 * 0.5 = 1.5 * 2**-24: tie between 1 and 2 subnormal units -> 2 (even)
    ("float16", "TPARTMUL", 0x0003, 0x3800, 0x0002, ("UF", "NX")),
    ("float32", "TPARTMUL", 0x80000001, 0x3F000000, 0x80000000, ("UF", "NX")),  # -> -0
])
def test_subnormal_results(dtype, op, x, y, expected, flags):
    assert one(op, dtype, x, y) == (expected, EXACT, flags)


def test_flags_are_ored_over_the_op_region_only():
    # ExecuteTilePartial: flags of every element covered by both sources are ORed; copies add none.
    a = [[0x7BFF, 0x3C00, 0x7C01], [0x3C00, 0x3C00, 0x3C00]]  # (0,2) is an sNaN, only in src0
    b = [[0x7BFF, 0x1000]]  # 65504+65504 -> OF|NX ; 1 + 2**-11 -> NX
    out = spec("TPARTADD", "float16", a, b)
    dst, cls = assert_ok(out)
    assert dst.tolist() == [[0x7C00, 0x3C00, 0x7C01], [0x3C00, 0x3C00, 0x3C00]]
    assert out.flags == ("OF", "NX")  # no NV from the copied sNaN
