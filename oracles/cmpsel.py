"""The compare and select instructions (TCMP, TSEL): packed predicate masks on raw bits.

Roles: TCMP reads ``src0`` and ``src1`` (tiles of the case's element type) and writes ``dst``, a mask tile of
packed predicate words (uint8 on the NPUs; uint8 or uint32 on cpu, the case parameter ``mask``); TSEL reads
``mask`` (uint8 words), ``src0`` (taken where a bit is one) and ``src1`` (where it is zero) and writes ``dst``.
The comparison is the case parameter ``cmp``, numbered as pto-spec numbers CMode: 0 EQ, 1 NE, 2 LT, 3 GT, 4 LE,
5 GE. A leading batch axis is allowed on every input.

The mask layout (pto-isa ``docs/isa/TCMP.md`` and ``TSEL.md``: "packed predicate bits in a target-defined
layout"; their examples give a 16x16 float source a uint8 mask tile with valid region 16x2, so one mask row per
data row, eight elements per byte): element ``(i, j)`` of the valid region is bit ``j mod W`` of word
``(i, j div W)`` of the mask tile, ``W`` the bits of a mask word, the lowest column in the lowest bit (the order
pto-spec 0.58 fixes for its predicate storage, ``asl/tile/elementwise-tile-tile/logical/TCMP.asl``: "lower
logical indices in lower byte bits"; the pages do not say). What the pages leave open is classed, never filled in:

- the bits of a word past the last valid column, and every word outside the packed valid region, are not
  defined by the pages: a word holding such a bit is ``undefined``;
- a float comparison with a NaN operand: the pages state ``src0 cmpMode src1`` and nothing about NaN, so such a
  bit, and its word, is ``undefined``; +0 and -0 are equal (the comparison is of values);
- integers compare as signed or unsigned by their type;
- a2a3's TCMP of int32 compares for equality whatever the mode (``docs/isa/TCMP.md``, "Implementation checks
  (A2A3)": "uses the EQ compare path regardless of cmpMode").

TSEL copies the selected source's element bits exactly (a NaN's payload too); outside the destination's valid
region nothing is written (``undefined``). A case whose sources' valid shape differs from the destination's, or
whose mask tile cannot hold the packed valid region, is outside the pages' contract: "unsupported".
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import ieee, integer

MODES = ("EQ", "NE", "LT", "GT", "LE", "GE")  # index = the cmp parameter (pto-spec's CMode code)
SYMBOL = {"EQ": "==", "NE": "!=", "LT": "<", "GT": ">", "LE": "<=", "GE": ">="}


def mode_name(case: Case) -> str:
    return MODES[int(case.param("cmp", 0))]


def word_bits(case: Case) -> int:
    """Bits of one mask word: 8 (uint8), or 32 for cpu's uint32 masks."""
    return get(case.param("mask") or "uint8").bits


def packed_cols(valid_cols: int, bits: int) -> int:
    """Mask words a row of ``valid_cols`` predicate bits takes."""
    return -(-valid_cols // bits)


def predicate(mode: str, a: np.ndarray, b: np.ndarray, dt: DType) -> tuple[np.ndarray, np.ndarray]:
    """``a mode b`` element by element on raw bits, and where the pages leave it open (a NaN operand)."""
    if dt.is_float:
        x, y = ieee.to_float64(a, dt), ieee.to_float64(b, dt)
        open_ = ieee.is_nan(a, dt) | ieee.is_nan(b, dt)
    else:
        x, y = integer.values(a, dt), integer.values(b, dt)
        open_ = np.zeros(np.broadcast_shapes(a.shape, b.shape), dtype=bool)
    with np.errstate(invalid="ignore"):
        res = np.asarray({"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "GT": np.greater,
                          "LE": np.less_equal, "GE": np.greater_equal}[mode](x, y), dtype=bool)
    return res, open_


def pack(bits: np.ndarray, undefined: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Pack ``(..., rows, cols)`` predicate bits into ``(..., rows, words)`` words of ``width`` bits, lowest
    column in the lowest bit; a word is undefined when one of its bits is, or when it holds bits past the last
    column."""
    *lead, rows, cols = bits.shape
    words = packed_cols(cols, width)
    pad = words * width - cols
    b = np.zeros((*lead, rows, words * width), dtype=np.uint64)
    b[..., :cols] = bits
    u = np.zeros((*lead, rows, words * width), dtype=bool)
    u[..., :cols] = undefined
    u[..., cols:] = pad > 0
    weights = np.left_shift(np.uint64(1), np.arange(width, dtype=np.uint64))
    packed = (b.reshape(*lead, rows, words, width) * weights).sum(axis=-1, dtype=np.uint64)
    undefined_words = np.asarray(u.reshape(*lead, rows, words, width).any(axis=-1))
    return packed.astype(f"<u{width // 8}"), undefined_words


def unpack(mask: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """The predicate bits of a ``rows`` x ``cols`` valid region from a uint8 mask tile (``(..., R, C)``)."""
    j = np.arange(cols)
    byte = mask[..., :rows, j // 8]
    return ((byte >> (j % 8).astype(np.uint8)) & 1).astype(bool)


def _contract(case: Case, sources: tuple[str, ...], domain: tuple[int, int]) -> Outcome | None:
    for role in sources:
        if case.tile(role).valid != domain:
            return Outcome.unsupported(
                f"{case.op}: docs/isa/{case.op}.md iterates over one valid region; {role}'s is "
                f"{'x'.join(map(str, case.tile(role).valid))} against {'x'.join(map(str, domain))}")
    return None


def tcmp(case: Case, inputs: Mapping[str, np.ndarray], *, eq_int32: bool = False) -> Outcome:
    """TCMP as pto-isa's page states it (see the module docstring); ``eq_int32``: a2a3's int32 rule."""
    dt = get(case.dtype)
    rows, cols = case.tile("src0").valid
    bad = _contract(case, ("src1",), (rows, cols))
    if bad is not None:
        return bad
    width = word_bits(case)
    d = case.tile("dst")
    words = packed_cols(cols, width)
    if d.valid != (rows, words) or d.rows < rows or d.cols < words:
        return Outcome.unsupported(f"TCMP: dst's valid region must be the packed source region {rows}x{words} "
                                   f"({width}-bit words); it is {d.valid_rows}x{d.valid_cols} of {d.rows}x{d.cols}")
    a, b = inputs["src0"], inputs["src1"]
    lead = a.shape[:-2]
    out = np.zeros((*lead, *d.shape), dtype=f"<u{width // 8}")
    classes = np.full((*lead, *d.shape), UNDEFINED, dtype=np.uint8)
    if rows and cols:
        mode = "EQ" if eq_int32 and dt.name == "int32" else mode_name(case)
        p, open_ = predicate(mode, a[..., :rows, :cols], b[..., :rows, :cols], dt)
        packed, undefined = pack(p, open_, width)
        out[..., :rows, :words] = packed
        classes[..., :rows, :words] = np.where(undefined, np.uint8(UNDEFINED), np.uint8(EXACT))
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes})


def tcmp_a2a3(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return tcmp(case, inputs, eq_int32=True)


def tsel(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """TSEL as pto-isa's page states it: ``dst = mask ? src0 : src1`` over dst's valid region, bits copied."""
    d = case.tile("dst")
    rows, cols = d.valid
    bad = _contract(case, ("src0", "src1"), (rows, cols))
    if bad is not None:
        return bad
    m = case.tile("mask")
    if m.rows < rows or m.cols < packed_cols(cols, 8):
        return Outcome.unsupported(f"TSEL: a {m.rows}x{m.cols} mask tile cannot hold the {rows}x{cols} region's "
                                   f"bits ({rows}x{packed_cols(cols, 8)} bytes)")
    a, b = inputs["src0"], inputs["src1"]
    lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2], inputs["mask"].shape[:-2])
    out = np.zeros((*lead, *d.shape), dtype=a.dtype)
    classes = np.full((*lead, *d.shape), UNDEFINED, dtype=np.uint8)
    if rows and cols:
        bit = unpack(inputs["mask"], rows, cols)
        out[..., :rows, :cols] = np.where(bit, a[..., :rows, :cols], b[..., :rows, :cols])
        classes[..., :rows, :cols] = EXACT
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes})
