"""The compare and select instructions (TCMP, TCMPS, TSEL, TSELS): packed predicate masks on raw bits.

Roles: TCMP reads ``src0`` and ``src1`` (tiles of the case's element type) and writes ``dst``, a mask tile of
packed predicate words (uint8 on the NPUs; uint8 or uint32 on cpu, the case parameter ``mask``); TCMPS compares
``src0`` with ``scalar`` (a 1x1 tile of the element type: the scalar form, or the tile form's ``src1[0, 0]``) into
uint8 words. TSEL reads ``mask``, ``src0`` (taken where a bit is one) and ``src1`` (where it is zero) and writes
``dst``; TSELS takes ``scalar`` where a bit is zero. A select's mask words are uint8, or TSELS's parameter
``mask`` (uint8, uint16, uint32): each mask row is read as its little-endian bytes. The comparison is the case
parameter ``cmp``, numbered as pto-isa's ``CmpMode`` (``include/pto/common/type.hpp``): 0 EQ, 1 NE, 2 LT, 3 LE,
4 GT, 5 GE. A leading batch axis is allowed on every input.

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
- a2a3's TCMP and TCMPS of int32 compare for equality whatever the mode (``docs/isa/TCMP.md``, "Implementation
  checks (A2A3)": "uses the EQ compare path regardless of cmpMode"; ``TCMPS.md``: "other comparison modes fall
  back to EQ").

TSEL and TSELS copy the selected element's bits exactly (a NaN's payload too); outside the destination's valid
region nothing is written (``undefined``). A case whose sources' valid shape differs from the destination's, or
whose mask tile cannot hold the packed valid region, is outside the pages' contract: "unsupported".
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind, Tile
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import ieee, integer

MODES = ("EQ", "NE", "LT", "LE", "GT", "GE")  # index = the cmp parameter (pto-isa's CmpMode)
SYMBOL = {"EQ": "==", "NE": "!=", "LT": "<", "GT": ">", "LE": "<=", "GE": ">="}


def mode_name(case: Case) -> str:
    return MODES[int(case.param("cmp", 0))]


def word_bits(case: Case) -> int:
    """Bits of one mask word: 8 (uint8), or the ``mask`` parameter's (cpu TCMP's uint32, TSELS's)."""
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
    """The predicate bits of a ``rows`` x ``cols`` valid region from a mask tile (``(..., R, C)`` words of any
    width): bit ``j`` of row ``i`` is bit ``j mod 8`` of byte ``j div 8`` of the row's little-endian bytes."""
    m = np.ascontiguousarray(mask[..., :rows, :]).astype(mask.dtype.newbyteorder("<"), copy=False)
    row_bytes = m.view(np.uint8).reshape(*m.shape[:-1], m.shape[-1] * m.dtype.itemsize)
    j = np.arange(cols)
    byte = row_bytes[..., j // 8]
    return ((byte >> (j % 8).astype(np.uint8)) & 1).astype(bool)


def mask_holds(mask: Tile, itemsize: int, rows: int, cols: int) -> bool:
    """Whether a mask tile of ``itemsize``-byte words holds a ``rows`` x ``cols`` region's bits."""
    return mask.rows >= rows and mask.cols * itemsize * 8 >= cols


def _contract(case: Case, sources: tuple[str, ...], domain: tuple[int, int]) -> Outcome | None:
    for role in sources:
        if case.tile(role).valid != domain:
            return Outcome.unsupported(
                f"{case.op}: docs/isa/{case.op}.md iterates over one valid region; {role}'s is "
                f"{'x'.join(map(str, case.tile(role).valid))} against {'x'.join(map(str, domain))}")
    return None


def tcmp(case: Case, inputs: Mapping[str, np.ndarray], *, eq_int32: bool = False) -> Outcome:
    """TCMP and TCMPS as pto-isa's pages state them (see the module docstring); ``eq_int32``: a2a3's int32 rule."""
    dt = get(case.dtype)
    rows, cols = case.tile("src0").valid
    scalar = case.op == "TCMPS"
    bad = None if scalar else _contract(case, ("src1",), (rows, cols))
    if bad is not None:
        return bad
    width = word_bits(case)
    d = case.tile("dst")
    words = packed_cols(cols, width)
    if d.valid != (rows, words) or d.rows < rows or d.cols < words:
        return Outcome.unsupported(f"TCMP: dst's valid region must be the packed source region {rows}x{words} "
                                   f"({width}-bit words); it is {d.valid_rows}x{d.valid_cols} of {d.rows}x{d.cols}")
    a = inputs["src0"]
    b = inputs["scalar"][..., :1, :1] if scalar else inputs["src1"][..., :rows, :cols]
    lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out = np.zeros((*lead, *d.shape), dtype=f"<u{width // 8}")
    classes = np.full((*lead, *d.shape), UNDEFINED, dtype=np.uint8)
    if rows and cols:
        mode = "EQ" if eq_int32 and dt.name == "int32" else mode_name(case)
        p, open_ = predicate(mode, a[..., :rows, :cols], b, dt)
        packed, undefined = pack(p, open_, width)
        out[..., :rows, :words] = packed
        classes[..., :rows, :words] = np.where(undefined, np.uint8(UNDEFINED), np.uint8(EXACT))
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes})


def tcmp_a2a3(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return tcmp(case, inputs, eq_int32=True)


def tsel(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """TSEL and TSELS as pto-isa's pages state them: ``dst = mask ? src0 : src1`` (TSELS: ``: scalar``) over
    dst's valid region, bits copied."""
    d = case.tile("dst")
    rows, cols = d.valid
    scalar = case.op == "TSELS"
    bad = _contract(case, ("src0",) if scalar else ("src0", "src1"), (rows, cols))
    if bad is not None:
        return bad
    m, words = case.tile("mask"), inputs["mask"]
    if not mask_holds(m, words.dtype.itemsize, rows, cols):
        return Outcome.unsupported(f"{case.op}: a {m.rows}x{m.cols} mask tile of {words.dtype.itemsize}-byte words "
                                   f"cannot hold the {rows}x{cols} region's bits")
    a = inputs["src0"]
    b = inputs["scalar"][..., :1, :1] if scalar else inputs["src1"][..., :rows, :cols]
    lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2], words.shape[:-2])
    out = np.zeros((*lead, *d.shape), dtype=a.dtype)
    classes = np.full((*lead, *d.shape), UNDEFINED, dtype=np.uint8)
    if rows and cols:
        bit = unpack(words, rows, cols)
        out[..., :rows, :cols] = np.where(bit, a[..., :rows, :cols], b)
        classes[..., :rows, :cols] = EXACT
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes})
