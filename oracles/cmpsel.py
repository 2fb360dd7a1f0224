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

from ptofuzz.core.case import COMMIT, EXACT, UNDEFINED, Case, Outcome, OutcomeKind, Tile
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import descriptors, ieee, integer

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


#: cpu TCMP's element types for uint8 mask words (``include/pto/cpu/TCmp.h``'s TCmpCheck: int32_t, half, float;
#: uint32 words take all nine)
CPU_U8_WORDS = ("float32", "float16", "int32")


def tcmp_cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """cpu TCMP and TCMPS: TCMP of uint8 words takes only the types its header checks for them."""
    if case.op == "TCMP" and word_bits(case) == 8 and case.dtype not in CPU_U8_WORDS:
        return Outcome.unsupported(f"TCMP on cpu writes uint8 mask words only for {', '.join(CPU_U8_WORDS)} "
                                   f"(TCmp.h); a {case.dtype} source takes uint32 words (the parameter mask)")
    return tcmp(case, inputs)


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


# ---- pto-spec 0.58 ----------------------------------------------------------------------------------------------
# asl/tile/elementwise-tile-tile/logical/T{CMP,SEL}.asl, asl/tile/tile-scalar-and-immediate/logical/T{CMPS,SELS}.asl,
# asl/tile/model/execution/comparison.asl, the predicate storage of asl/tile/model/definedness/elements.asl and
# the legality of asl/tile/model/legality/operand-schema.asl. A predicate tile has its data tile's Row x Col
# logical shape, element (r, c) at bit (r*Col + c) mod 8 of byte (r*Col + c) div 8: with Col a multiple of 8 that is
# ptofuzz's row-by-row layout of a Row x Col/8 byte tile, so a spec case's mask (and TCMP's destination) is that
# byte tile; a tile of fewer than 8 columns packs rows into one byte, which ptofuzz's files do not lay out
# (unsupported).

#: the element types the four take in pto-spec: their contracts list S32, U32, FP32, S16, U16, FP16, BF16, S8, U8
#: (TSEL's also fp8 types ptofuzz has not, and it rejects the 64-bit ones by name)
SPEC_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8")


def spec_predicate(data: Tile) -> Tile:
    """The byte tile of a predicate with ``data``'s logical shape (Col a multiple of 8)."""
    return Tile(data.rows, data.cols // 8, data.valid_rows, packed_cols(data.valid_cols, 8))


def spec_legality(case: Case) -> Outcome | None:
    """Fault_TileLegality (trap 5) when the tiles break pto-spec's rules, "unsupported" for a legal geometry
    ptofuzz's files cannot hold (fewer than 8 columns a row, or a 64-bit element when ``dt`` is such), else
    None."""
    dt = get(case.dtype)
    compare = case.op in ("TCMP", "TCMPS")
    main = case.tile("src0")
    data = [r for r in ("src0", "src1", "dst") if r in dict(case.tiles) and not (compare and r == "dst")]
    pred = "dst" if compare else "mask"
    why = ""
    if any(case.tile(r).shape != main.shape for r in data):
        why = "the data tiles' physical shapes differ"
    elif any(case.tile(r).valid != main.valid for r in data):
        why = "the data tiles' valid shapes differ"
    elif 0 in main.valid:
        why = "an empty valid region (LB0 must be nonzero; LB1 defaults to 1)"
    elif (case.param("mask") or "uint8") != "uint8":
        why = f"{pred}: {case.param('mask')} words are ordinary numeric storage, not a predicate tile"
    else:
        for role in data:
            problem = descriptors.problem(case.tile(role), dt, max_bytes=descriptors.LOCAL_MAX)
            if problem:
                why = f"{role}: {problem}"
                break
    if not why and main.cols % 8 == 0 and case.tile(pred) != spec_predicate(main):
        p = case.tile(pred)
        why = (f"{pred}: a predicate tile must have the data's shape and valid shape ({main.rows}x{main.cols} valid "
               f"{main.valid_rows}x{main.valid_cols}: {main.rows}x{main.cols // 8} bytes, valid "
               f"{main.valid_rows}x{packed_cols(main.valid_cols, 8)}); it is {p.rows}x{p.cols} valid "
               f"{p.valid_rows}x{p.valid_cols}")
    if why:
        return Outcome.faulted("Fault_TileLegality", 5, f"{case.op}: {why}", COMMIT)
    if main.cols % 8:
        return Outcome.unsupported(f"{case.op}: a {main.cols}-column predicate packs several rows into a byte, "
                                   "which ptofuzz's spec files do not lay out")
    return None


def spec_predicate_bits(mode: str, a: np.ndarray, b: np.ndarray, dt: DType) -> tuple[np.ndarray, np.ndarray]:
    """pto-spec's comparison on raw bits (``TileCompareElement``): a NaN makes EQ, LT, GT, LE, GE false and NE
    true, +0 and -0 are equal, integers compare signed or unsigned by type; and where a signaling NaN raised NV."""
    res, nan = predicate(mode, a, b, dt)
    if not dt.is_float:
        return res, np.zeros(res.shape, dtype=bool)
    res = np.where(nan, mode == "NE", res)
    return res, np.broadcast_to(ieee.is_snan(a, dt) | ieee.is_snan(b, dt), res.shape)


def spec_tcmp(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """TCMP and TCMPS as pto-spec defines them: every valid bit pinned, padding and the rest undefined (the
    bundle's default PadValue is Null), NV where a signaling NaN was compared."""
    bad = spec_legality(case)
    if bad is not None:
        return bad
    dt = get(case.dtype)
    rows, cols = case.tile("src0").valid
    a = inputs["src0"]
    b = inputs["scalar"][..., :1, :1] if case.op == "TCMPS" else inputs["src1"][..., :rows, :cols]
    d = case.tile("dst")
    lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out = np.zeros((*lead, *d.shape), dtype=np.uint8)
    classes = np.full((*lead, *d.shape), UNDEFINED, dtype=np.uint8)
    p, snan = spec_predicate_bits(mode_name(case), a[..., :rows, :cols], b, dt)
    packed, padded = pack(p, np.zeros(p.shape, dtype=bool), 8)
    words = packed_cols(cols, 8)
    out[..., :rows, :words] = packed
    classes[..., :rows, :words] = np.where(padded, np.uint8(UNDEFINED), np.uint8(EXACT))
    flags = ("NV",) if bool(np.any(snan)) else ()
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes}, flags=flags)


def spec_tsel(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """TSEL and TSELS as pto-spec defines them: the chosen carrier bits, no conversion, no flag; padding
    undefined (PadValue Null)."""
    bad = spec_legality(case)
    if bad is not None:
        return bad
    out = tsel(case, inputs)
    return Outcome(out.kind, outputs=out.outputs, classes=out.classes, flags=()) if out.kind is OutcomeKind.OK \
        else out
