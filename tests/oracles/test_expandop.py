"""TROWEXPAND{ADD,SUB,MUL,MAX,MIN}: hand-worked examples from pto-isa's pages and pto-spec (both modes, the role
swap), special values in the tile and in the broadcast vector (NaN payloads, signed zeros, infinities, integer
overflow), the contracts (pto-spec's faults, the pages' geometries), and recomputation by plain Python loops."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core.case import EXACT, NAN, UNDEFINED, ZERO, Case, OutcomeKind, Tile
from ptofuzz.core.signature import Signature
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import expandop, registry

OPS = expandop.ROW_NAMES
DOCUMENTED = ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")
NAN_PAYLOAD = 0x7FA00001  # a signalling NaN with a payload
CANONICAL_NAN = 0x7FC00000


def _f32(*xs: float) -> np.ndarray:
    return np.array(xs, np.float32).view(np.uint32)


def _i32(*xs: int) -> np.ndarray:
    return np.array(xs, np.int32).view(np.uint32)


def _eval(op: str, platform: str, dtype: str, tiles: dict[str, Tile], src0: np.ndarray, src1: np.ndarray):
    case = Case(op, platform, dtype, tuple((r, tiles[r]) for r in ("dst", "src0", "src1")))
    return registry.get(op).evaluate(case, {"src0": src0, "src1": src1})


# ---- hand-worked examples ----------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", DOCUMENTED)
def test_mode1_sub_and_the_role_swap(platform):
    """docs/isa/TROWEXPANDSUB.md Mode 1: [[10, 20, 30], [40, 50, 60]] - column [1, 2] = [[9, 19, 29], [38, 48,
    58]]; with the column as src0 (the swap) the operand order stays: [1, 2] - tile = [[-9, -19, -29], [-38, -48,
    -58]]. Outside the 2x3 valid region of the 2x8 destination: undefined."""
    full = np.zeros((2, 8), np.uint32)
    full[:, :3] = _i32(10, 20, 30, 40, 50, 60).reshape(2, 3)
    col = _i32(1, 2).reshape(2, 1)
    dst, ft, ct = Tile(2, 8, 2, 3), Tile(2, 8, 2, 3), Tile(2, 1, 2, 1)
    out = _eval("TROWEXPANDSUB", platform, "int32", {"dst": dst, "src0": ft, "src1": ct}, full, col)
    assert out.outputs["dst"][:, :3].view(np.int32).tolist() == [[9, 19, 29], [38, 48, 58]]
    assert (out.classes["dst"][:, :3] == EXACT).all() and (out.classes["dst"][:, 3:] == UNDEFINED).all()
    out = _eval("TROWEXPANDSUB", platform, "int32", {"dst": dst, "src0": ct, "src1": ft}, col, full)
    assert out.outputs["dst"][:, :3].view(np.int32).tolist() == [[-9, -19, -29], [-38, -48, -58]]


@pytest.mark.parametrize("platform", DOCUMENTED)
def test_mode2_reads_the_block_at_j_mod_its_width(platform):
    """Mode 2 (a 32-byte block a row, float16: 16 values): dst[i, j] = src0[i, j] * b_i[j mod 16] over 1x20:
    columns 16..19 use the block's first four values again."""
    block = np.arange(1, 17, dtype=np.float16).reshape(1, 16)
    full = np.full((1, 32), 2.0, np.float16)
    out = _eval("TROWEXPANDMUL", platform, "float16", {"dst": Tile(1, 32, 1, 20), "src0": Tile(1, 32, 1, 20),
                                                       "src1": Tile(1, 16, 1, 16)},
                full.view(np.uint16), block.view(np.uint16))
    want = [2.0 * (j % 16 + 1) for j in range(20)]
    assert out.outputs["dst"][0, :20].view(np.float16).tolist() == want
    assert (out.classes["dst"][0, :20] == EXACT).all()


def test_spec_adds_the_column_and_keeps_the_status():
    """pto-spec: src0 the destination's descriptor, src1 one physical column; float32 1.0 + [0.5, 2**-24]: the
    second element rounds to 1.0 (inexact: NX)."""
    dst = Tile(8, 8, 2, 2)
    full = np.zeros((8, 8), np.uint32)
    full[:2, :2] = _f32(1.0)[0]
    col = np.zeros((32, 1), np.uint32)
    col[:2, 0] = _f32(0.5, 2.0 ** -24)
    out = _eval("TROWEXPANDADD", "spec", "float32", {"dst": dst, "src0": dst, "src1": Tile(32, 1, 2, 1)}, full, col)
    assert out.kind is OutcomeKind.OK, out
    assert out.outputs["dst"][:2, :2].tolist() == [[int(_f32(1.5)[0])] * 2, [int(_f32(1.0)[0])] * 2]
    assert out.flags == ("NX",)


# ---- special values in the tile and in the broadcast vector ------------------------------------------------

def test_nan_payload_in_either_operand():
    """A NaN with a payload in the tile or in the broadcast vector: pto-spec gives the canonical NaN (TADD's typed
    operation), the pages some NaN (class nan, never a number)."""
    full = np.zeros((2, 8), np.uint32)
    full[0, :2] = [NAN_PAYLOAD, _f32(1.0)[0]]
    full[1, :2] = _f32(1.0, 2.0)
    col = np.zeros((2, 1), np.uint32)
    col[:, 0] = [_f32(1.0)[0], NAN_PAYLOAD]
    tiles = {"dst": Tile(2, 8, 2, 2), "src0": Tile(2, 8, 2, 2), "src1": Tile(2, 1, 2, 1)}
    for platform in DOCUMENTED:
        out = _eval("TROWEXPANDADD", platform, "float32", tiles, full, col)
        assert out.classes["dst"][:, :2].tolist() == [[NAN, EXACT], [NAN, NAN]], platform
        assert out.outputs["dst"][0, 1] == _f32(2.0)[0]
    spec_tiles = {"dst": Tile(4, 8, 2, 2), "src0": Tile(4, 8, 2, 2), "src1": Tile(32, 1, 2, 1)}
    spec_col = np.zeros((32, 1), np.uint32)
    spec_col[:2] = col
    out = _eval("TROWEXPANDADD", "spec", "float32", spec_tiles, np.vstack([full, full]), spec_col)
    assert out.outputs["dst"][:2, :2].tolist() == [[CANONICAL_NAN, int(_f32(2.0)[0])], [CANONICAL_NAN] * 2]
    assert "NV" in (out.flags or ())  # the signalling NaN: invalid


def test_signed_zeros_and_infinities():
    """max(+0, -0): pto-spec +0, the pages some zero; -0 + -0 = -0 everywhere; +inf - +inf (the broadcast +inf) is
    a NaN; -inf * 0 too; min(-inf, x) = -inf exact."""
    full = np.zeros((1, 8), np.uint32)
    full[0, :3] = _f32(-0.0, np.inf, -np.inf)
    col_doc = _f32(0.0).reshape(1, 1)
    spec_col = np.zeros((32, 1), np.uint32)
    spec_col[0, 0] = _f32(0.0)[0]
    doc = {"dst": Tile(1, 8, 1, 1), "src0": Tile(1, 8, 1, 1), "src1": Tile(1, 1, 1, 1)}
    spec = {"dst": Tile(4, 8, 1, 1), "src0": Tile(4, 8, 1, 1), "src1": Tile(32, 1, 1, 1)}
    spec_full = np.vstack([full] * 4)
    out = _eval("TROWEXPANDMAX", "spec", "float32", spec, spec_full, spec_col)
    assert out.outputs["dst"][0, 0] == _f32(0.0)[0] and out.classes["dst"][0, 0] == EXACT
    assert _eval("TROWEXPANDMAX", "cpu", "float32", doc, full, col_doc).classes["dst"][0, 0] == ZERO
    neg = _f32(-0.0).reshape(1, 1)
    out = _eval("TROWEXPANDADD", "a5", "float32", doc, full, neg)
    assert out.outputs["dst"][0, 0] == _f32(-0.0)[0] and out.classes["dst"][0, 0] == EXACT
    wide = {"dst": Tile(1, 8, 1, 3), "src0": Tile(1, 8, 1, 3), "src1": Tile(1, 1, 1, 1)}
    out = _eval("TROWEXPANDSUB", "cpu", "float32", wide, full, _f32(np.inf).reshape(1, 1))
    assert out.classes["dst"][0, :3].tolist() == [EXACT, NAN, EXACT]
    assert out.outputs["dst"][0, [0, 2]].tolist() == [_f32(-np.inf)[0]] * 2
    out = _eval("TROWEXPANDMUL", "cpu", "float32", wide, full, _f32(0.0).reshape(1, 1))
    assert out.classes["dst"][0, 1:3].tolist() == [NAN, NAN]
    out = _eval("TROWEXPANDMIN", "a2a3", "float32", wide, full, _f32(5.0).reshape(1, 1))
    assert out.outputs["dst"][0, 2] == _f32(-np.inf)[0] and out.classes["dst"][0, 2] == EXACT


def test_integer_overflow_wraps_on_spec_and_is_undefined_on_the_pages():
    """int16 32767 + broadcast 1: pto-spec wraps to -32768 (TADD's typed operation); the pages leave the overflow
    open (undefined), the element beside it (100 + 1) exact."""
    full = np.zeros((4, 16), np.uint16)
    full[0, :2] = np.array([32767, 100], np.int16).view(np.uint16)
    spec_col = np.zeros((64, 1), np.uint16)
    spec_col[0, 0] = 1
    spec = {"dst": Tile(4, 16, 1, 2), "src0": Tile(4, 16, 1, 2), "src1": Tile(64, 1, 1, 1)}
    out = _eval("TROWEXPANDADD", "spec", "int16", spec, full, spec_col)
    assert out.outputs["dst"][0, :2].view(np.int16).tolist() == [-32768, 101]
    doc = {"dst": Tile(1, 16, 1, 2), "src0": Tile(1, 16, 1, 2), "src1": Tile(1, 1, 1, 1)}
    out = _eval("TROWEXPANDADD", "cpu", "int16", doc, full[:1], np.ones((1, 1), np.uint16))
    assert out.classes["dst"][0, :2].tolist() == [UNDEFINED, EXACT] and out.outputs["dst"][0, 1] == 101


# ---- contracts -----------------------------------------------------------------------------------------------

def test_spec_faults_on_the_pages_other_geometries():
    """pto-spec faults (trap 5) on the swap, on Mode 2, on a src0 of another physical shape, and on an empty
    region; the pages take the first two."""
    z = np.zeros((8, 8), np.uint32)
    d = Tile(8, 8, 8, 8)
    for tiles in ({"dst": d, "src0": Tile(8, 1, 8, 1), "src1": d}, {"dst": d, "src0": d, "src1": Tile(8, 8, 8, 8)},
                  {"dst": d, "src0": Tile(8, 16, 8, 8), "src1": Tile(8, 1, 8, 1)},
                  {"dst": Tile(8, 8, 0, 8), "src0": Tile(8, 8, 0, 8), "src1": Tile(8, 1, 0, 1)}):
        out = _eval("TROWEXPANDADD", "spec", "float32", tiles, np.zeros(tiles["src0"].shape, np.uint32),
                    np.zeros(tiles["src1"].shape, np.uint32))
        assert out.kind is OutcomeKind.FAULT and out.fault is not None and out.fault.trap == 5, tiles
    out = _eval("TROWEXPANDADD", "cpu", "float32", {"dst": d, "src0": Tile(8, 1, 8, 1), "src1": d},
                z[:, :1], z)
    assert out.kind is OutcomeKind.OK


@pytest.mark.parametrize("platform", DOCUMENTED)
def test_no_documented_reading_is_unsupported(platform):
    """Neither source of the destination's valid shape, or an expanded operand of 3 valid columns (neither 1 nor
    a 32-byte block), or of fewer rows: no documented result."""
    d = Tile(4, 8, 4, 8)
    for s0, s1 in ((Tile(4, 8, 4, 7), Tile(4, 1, 4, 1)), (d, Tile(4, 8, 4, 3)), (d, Tile(4, 1, 3, 1))):
        out = _eval("TROWEXPANDMIN", platform, "float32", {"dst": d, "src0": s0, "src1": s1},
                    np.zeros(s0.shape, np.uint32), np.zeros(s1.shape, np.uint32))
        assert out.kind is OutcomeKind.UNSUPPORTED, (s0, s1)


def test_known_difference_matches_only_spec_faults_on_other_geometries():
    inst = registry.get("TROWEXPANDADD")
    assert inst.known_difference(Signature("TROWEXPANDADD", "float", "cpu~spec", "fault-vs-value", "-", "swap"))
    assert inst.known_difference(Signature("TROWEXPANDADD", "float", "cpu~spec", "fault-vs-value", "-",
                                           "spec-legal")) is None
    assert inst.known_difference(Signature("TROWEXPANDADD", "float", "a5~cpu", "fault-vs-value", "-", "swap")) is None


# ---- independent recomputation -----------------------------------------------------------------------------

_PY = {"TROWEXPANDADD": lambda a, b: a + b, "TROWEXPANDSUB": lambda a, b: a - b,
       "TROWEXPANDMUL": lambda a, b: a * b, "TROWEXPANDMAX": max, "TROWEXPANDMIN": min}


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("platform", ("cpu", "a5"))
def test_random_cases_match_a_plain_loop(op, platform):
    """Random cases with plain values (no special value, no overflow): every valid element is the loop's
    ``full[i][j] op expanded[i][j mod k]`` in operand order, computed on numpy scalars of the element type."""
    inst = registry.get(op)
    for k in range(25):
        src = seeded(k, op, "loop")
        case = inst.random_case(src, platform, {"dtype": ("float32", "int16", "float16")[k % 3]})
        inputs = inst.draw_inputs(src, case, values.ValueMix(rate=0.0))
        out = inst.evaluate(case, inputs)
        if out.kind is not OutcomeKind.OK:
            continue
        np_t = np.dtype({"float32": np.float32, "int16": np.int16, "float16": np.float16}[case.dtype])
        s0, s1 = (inputs[r].view(np_t) for r in ("src0", "src1"))
        rows, cols = case.tile("dst").valid
        swap = case.tile("src0").valid != (rows, cols)
        width = case.tile("src0" if swap else "src1").valid_cols
        got = out.outputs["dst"].view(np_t)
        for i in range(rows):
            for j in range(cols):
                if out.classes["dst"][i, j] != EXACT:
                    continue
                a, b = (s0[i, j % width], s1[i, j]) if swap else (s0[i, j], s1[i, j % width])
                with np.errstate(all="ignore"):  # an overflow to infinity is IEEE's (exact on the host)
                    want = np_t.type(_PY[op](a, b))
                assert got[i, j].tobytes() == want.tobytes(), (case, i, j)


# ---- TCOLEXPAND{ADD,SUB,MUL,MAX,MIN} -----------------------------------------------------------------------

COL_OPS = expandop.COL_NAMES
_COL_PY = {"TCOLEXPANDADD": lambda a, b: a + b, "TCOLEXPANDSUB": lambda a, b: a - b,
           "TCOLEXPANDMUL": lambda a, b: a * b, "TCOLEXPANDMAX": max, "TCOLEXPANDMIN": min}


def _spec_row(dst: Tile, dtype: str) -> Tile:
    """pto-spec's broadcast source of ``dst``: one valid row at its physical columns."""
    from ptofuzz.core import dtypes
    from ptofuzz.instructions import expand

    return expand.spec_source("TCOLEXPAND", dst, dtypes.get(dtype))


@pytest.mark.parametrize("platform", DOCUMENTED)
def test_col_sub_subtracts_each_column_s_scalar(platform):
    """docs/isa/TCOLEXPANDSUB.md: dst[i, j] = src0[i, j] - s_j. [[10, 20, 30], [40, 50, 60]] - the row [1, 2, 3]
    = [[9, 18, 27], [39, 48, 57]]; src1's second row (99s) is never read; outside the 2x3 valid region of the 2x8
    destination: undefined."""
    full = np.zeros((2, 8), np.uint32)
    full[:, :3] = _i32(10, 20, 30, 40, 50, 60).reshape(2, 3)
    row = np.zeros((2, 8), np.uint32)
    row[0, :3] = _i32(1, 2, 3)
    row[1, :] = _i32(99)[0]
    t = Tile(2, 8, 2, 3)
    out = _eval("TCOLEXPANDSUB", platform, "int32", {"dst": t, "src0": t, "src1": Tile(2, 8, 2, 8)}, full, row)
    assert out.outputs["dst"][:, :3].view(np.int32).tolist() == [[9, 18, 27], [39, 48, 57]]
    assert (out.classes["dst"][:, :3] == EXACT).all() and (out.classes["dst"][:, 3:] == UNDEFINED).all()


@pytest.mark.parametrize("op,want", [("TCOLEXPANDADD", [[3.5, -1.0], [0.5, 5.0]]),
                                     ("TCOLEXPANDMUL", [[2.5, -6.0], [-5.0, 6.0]]),
                                     ("TCOLEXPANDMAX", [[2.5, 2.0], [2.5, 3.0]]),
                                     ("TCOLEXPANDMIN", [[1.0, -3.0], [-2.0, 2.0]])])
@pytest.mark.parametrize("platform", ("spec", *DOCUMENTED))
def test_col_hand_worked_float32(op, want, platform):
    """float32 [[1, -3], [-2, 3]] with the scalars [2.5, 2]: add, mul, max, min by hand (every result exact)."""
    full = np.zeros((4, 8), np.uint32)
    full[:2, :2] = _f32(1.0, -3.0, -2.0, 3.0).reshape(2, 2)
    d = Tile(4, 8, 2, 2)
    s1 = _spec_row(d, "float32") if platform == "spec" else Tile(1, 8, 1, 2)
    row = np.zeros(s1.shape, np.uint32)
    row[0, :2] = _f32(2.5, 2.0)
    out = _eval(op, platform, "float32", {"dst": d, "src0": d, "src1": s1}, full, row)
    assert out.kind is OutcomeKind.OK, out
    assert out.outputs["dst"][:2, :2].view(np.float32).tolist() == want
    assert (out.classes["dst"][:2, :2] == EXACT).all()


def test_col_specials_nan_zeros_infinities():
    """A NaN scalar: max of its whole column is left open on the pages (undefined: whether a NaN wins is not
    said), the number on pto-spec (the hardware rule: a NaN loses to a number); max(-0, +0) is some zero on the pages
    (+0 on pto-spec), min(-0, +0) too (-0 on pto-spec); +inf - +inf is some NaN; -inf + 1 exact."""
    full = np.zeros((2, 8), np.uint32)
    full[:, :4] = _f32(1.0, -0.0, np.inf, -np.inf, 2.0, 0.0, 5.0, 1.0).reshape(2, 4)
    row = np.zeros((1, 8), np.uint32)
    row[0, :4] = _f32(0.0, 0.0, np.inf, 1.0)
    row[0, 0] = NAN_PAYLOAD
    d = Tile(2, 8, 2, 4)
    tiles = {"dst": d, "src0": d, "src1": Tile(1, 8, 1, 4)}
    for platform in DOCUMENTED:
        out = _eval("TCOLEXPANDMAX", platform, "float32", tiles, full, row)
        assert out.classes["dst"][:, 0].tolist() == [UNDEFINED, UNDEFINED], platform
        assert out.classes["dst"][0, 1] == ZERO and out.classes["dst"][1, 1] == EXACT  # max(-0, +0), max(+0, +0)
        sub = _eval("TCOLEXPANDSUB", platform, "float32", tiles, full, row)
        assert sub.classes["dst"][0, 2] == NAN and sub.classes["dst"][1, 2] == EXACT
        add = _eval("TCOLEXPANDADD", platform, "float32", tiles, full, row)
        assert add.outputs["dst"][0, 3] == _f32(-np.inf)[0] and add.classes["dst"][0, 3] == EXACT
    sd = Tile(4, 8, 2, 4)
    s1 = _spec_row(sd, "float32")
    spec_row = np.zeros(s1.shape, np.uint32)
    spec_row[0] = row[0]
    spec_full = np.vstack([full, full])
    out = _eval("TCOLEXPANDMAX", "spec", "float32", {"dst": sd, "src0": sd, "src1": s1}, spec_full, spec_row)
    assert out.outputs["dst"][:2, 0].tolist() == [int(_f32(1.0)[0]), int(_f32(2.0)[0])]  # a NaN loses to a number
    assert out.outputs["dst"][0, 1] == _f32(0.0)[0]
    out = _eval("TCOLEXPANDMIN", "spec", "float32", {"dst": sd, "src0": sd, "src1": s1}, spec_full, spec_row)
    assert out.outputs["dst"][0, 1] == _f32(-0.0)[0]


def test_col_integer_overflow_wraps_on_spec_and_is_undefined_on_the_pages():
    """int32 2**31 - 1 + 1: pto-spec wraps to -2**31; the pages leave it open; 5 + 1 beside it is exact."""
    full = np.zeros((1, 8), np.uint32)
    full[0, :2] = _i32(2 ** 31 - 1, 5)
    row = np.zeros((1, 8), np.uint32)
    row[0, :2] = _i32(1, 1)
    d = Tile(1, 8, 1, 2)
    out = _eval("TCOLEXPANDADD", "cpu", "int32", {"dst": d, "src0": d, "src1": d}, full, row)
    assert out.classes["dst"][0, :2].tolist() == [UNDEFINED, EXACT] and out.outputs["dst"][0, 1] == 6
    sd = Tile(8, 8, 1, 2)
    s1 = _spec_row(sd, "int32")
    spec_row = np.zeros(s1.shape, np.uint32)
    spec_row[0, :2] = row[0, :2]
    spec_full = np.zeros((8, 8), np.uint32)
    spec_full[0] = full[0]
    out = _eval("TCOLEXPANDADD", "spec", "int32", {"dst": sd, "src0": sd, "src1": s1}, spec_full, spec_row)
    assert out.outputs["dst"][0, :2].view(np.int32).tolist() == [-2 ** 31, 6]


@pytest.mark.parametrize("platform", DOCUMENTED)
def test_col_empty_region_writes_nothing(platform):
    """Zero valid rows or columns: nothing is read or written (every element undefined), no fault on the pages."""
    for d in (Tile(2, 8, 0, 3), Tile(2, 8, 2, 0)):
        out = _eval("TCOLEXPANDMUL", platform, "float32", {"dst": d, "src0": d, "src1": Tile(1, 8, 1, d.valid_cols)},
                    np.zeros((2, 8), np.uint32), np.zeros((1, 8), np.uint32))
        assert out.kind is OutcomeKind.OK and (out.classes["dst"] == UNDEFINED).all(), d


def test_col_spec_faults_and_the_pages_contract():
    """pto-spec faults (trap 5) on a src1 of other physical columns, of two valid rows, on an empty region and on
    a src0 of another physical shape; the pages take the first two (src1 covers the columns) and leave a src0 of
    another valid shape or a src1 of too few columns unsupported."""
    d = Tile(8, 8, 8, 8)
    for s0, s1 in ((d, Tile(8, 16, 1, 8)), (d, Tile(8, 8, 2, 8)), (Tile(8, 16, 8, 8), _spec_row(d, "float32"))):
        out = _eval("TCOLEXPANDADD", "spec", "float32", {"dst": d, "src0": s0, "src1": s1},
                    np.zeros(s0.shape, np.uint32), np.zeros(s1.shape, np.uint32))
        assert out.kind is OutcomeKind.FAULT and out.fault is not None and out.fault.trap == 5, (s0, s1)
    e = Tile(8, 8, 0, 8)
    out = _eval("TCOLEXPANDADD", "spec", "float32", {"dst": e, "src0": e, "src1": _spec_row(e, "float32")},
                np.zeros((8, 8), np.uint32), np.zeros(_spec_row(e, "float32").shape, np.uint32))
    assert out.kind is OutcomeKind.FAULT
    for s0, s1 in ((d, Tile(8, 16, 1, 8)), (d, Tile(8, 8, 2, 8))):
        out = _eval("TCOLEXPANDADD", "cpu", "float32", {"dst": d, "src0": s0, "src1": s1},
                    np.zeros(s0.shape, np.uint32), np.zeros(s1.shape, np.uint32))
        assert out.kind is OutcomeKind.OK
    for s0, s1 in ((Tile(8, 8, 7, 8), Tile(1, 8, 1, 8)), (d, Tile(1, 8, 1, 7)), (d, Tile(1, 8, 0, 8))):
        out = _eval("TCOLEXPANDADD", "a5", "float32", {"dst": d, "src0": s0, "src1": s1},
                    np.zeros(s0.shape, np.uint32), np.zeros(s1.shape, np.uint32))
        assert out.kind is OutcomeKind.UNSUPPORTED, (s0, s1)


def test_col_geometry_class_and_known_difference():
    inst = registry.get("TCOLEXPANDSUB")
    d = Tile(8, 8, 8, 8)
    case = Case("TCOLEXPANDSUB", "cpu", "float32", (("dst", d), ("src0", d), ("src1", Tile(4, 8, 2, 8))))
    assert inst.geometry_class(case) == "cover,full"
    case = Case("TCOLEXPANDSUB", "cpu", "float32", (("dst", d), ("src0", d), ("src1", Tile(4, 16, 1, 8))))
    assert inst.geometry_class(case) == "row1,full"
    case = Case("TCOLEXPANDSUB", "cpu", "float32", (("dst", d), ("src0", d), ("src1", Tile(4, 8, 1, 8))))
    assert inst.geometry_class(case) == "spec,full"
    why = inst.known_difference(Signature("TCOLEXPANDSUB", "float", "cpu~spec", "fault-vs-value", "-", "shape"))
    assert why and "one valid row" in why
    assert inst.known_difference(Signature("TCOLEXPANDSUB", "float", "cpu~spec", "fault-vs-value", "-",
                                           "spec-legal")) is None
    assert inst.known_difference(Signature("TCOLEXPANDSUB", "float", "a5~cpu", "fault-vs-value", "-",
                                           "shape")) is None


@pytest.mark.parametrize("op", COL_OPS)
@pytest.mark.parametrize("platform", ("spec", "cpu", "a2a3"))
def test_col_random_cases_match_a_plain_loop(op, platform):
    """Random cases with plain values: every valid element is the loop's ``src0[i][j] op src1[0][j]`` on numpy
    scalars of the element type (the exact ones; an overflow the pages leave open is skipped)."""
    inst = registry.get(op)
    for k in range(25):
        src = seeded(k, op, "col-loop")
        case = inst.random_case(src, platform, {"dtype": ("float32", "int16", "float16")[k % 3]})
        inputs = inst.draw_inputs(src, case, values.ValueMix(rate=0.0))
        out = inst.evaluate(case, inputs)
        if out.kind is not OutcomeKind.OK:
            continue
        np_t = np.dtype({"float32": np.float32, "int16": np.int16, "float16": np.float16}[case.dtype])
        s0, s1 = (inputs[r].view(np_t) for r in ("src0", "src1"))
        rows, cols = case.tile("dst").valid
        got = out.outputs["dst"].view(np_t)
        for i in range(rows):
            for j in range(cols):
                if out.classes["dst"][i, j] != EXACT:
                    continue
                with np.errstate(all="ignore"):
                    want = np_t.type(_COL_PY[op](s0[i, j], s1[0, j]))
                assert got[i, j].tobytes() == want.tobytes(), (case, i, j)
