"""Bundles to execute: legal ones for TSORT, TMRGSORT, TPART* and the TEPL operations of
:data:`ptofuzz.bundle.executor.CLOSED` (the elementwise ones, the reductions and expansions, ...) built from spec
cases, and targeted illegal variants, each with the outcome pto-spec expects (pto-spec 0.58.3: the commit order of
``asl/block/model/dispatch/tile-execution.asl``, the schemas ``sorting-schema.asl``, ``partial-schema.asl``,
``reduction-schema.asl`` and ``expansion-schema.asl`` there, the trap numbers of
``asl/arch/memory-model/fault-precision.asl``; docs/reference/bundles.md)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from ptofuzz.bundle import encoding as enc
from ptofuzz.bundle.executor import CLOSED, CMODE_TO_CMP, CORE_CAPACITY, RMODE_TO_ROUND, TCVT_DTYPES, LocalTile
from ptofuzz.core import dtypes
from ptofuzz.core.case import Case, Tile
from ptofuzz.generators.source import Source

SRC0, SRC1, SRC2 = 32, 33, 34  # M#1, M#2, M#3: the hands the destinations go to (T, U) stay free
DEST_SLOTS = {"dst": 0, "idx": 16}  # where the executor puts the destinations: the first free T and U tiles
DT_CODE = {"float32": 1, "float16": 4, "bfloat16": 5, "int64": 16, "int32": 17, "int16": 18, "int8": 19, "uint64": 24,
           "uint32": 25,
           "uint16": 26, "uint8": 27}


@dataclasses.dataclass
class BundleCase:
    """Words, the machine state they run on, and what pto-spec expects."""

    name: str
    op: str
    words: list[int]
    tiles: dict[int, LocalTile]
    gprs: dict[str, int | np.ndarray]  # an array: one value per batched case (tile-scalar scalars)
    expect: str  # ok / noop / fault
    fault: str | None = None  # fault name
    trap: int | None = None
    note: str = ""
    case: Case | None = None  # the spec case a legal bundle executes
    inputs: Mapping[str, np.ndarray] = dataclasses.field(default_factory=dict)


DIM_LIMIT = 1 << 17  # B.DIM's immediate: imm_hi (5 bits) and imm_lo (12 bits)


def _is_local_size(nbytes: int) -> bool:
    """A Local tile size: 128 B * 2**(code-1) for a SizeCode of 1..10."""
    return nbytes > 0 and not nbytes & (nbytes - 1) and 1 <= nbytes.bit_length() - 7 <= 10


def _size_code(nbytes: int) -> int:
    """128 B * 2**(code-1) -> code (callers check :func:`spelling_problem` first)."""
    if not _is_local_size(nbytes):
        raise ValueError(f"{nbytes} B is no Local tile size (128 B * 2**k up to 64 KiB)")
    return nbytes.bit_length() - 7


def spelling_problem(case: Case) -> str | None:
    """Why a spec ``case`` has no bundle spelling, or None: an element type without a BSTART DataType code, a
    destination (or TSORT's index tile) no Local SizeCode holds, a loop bound too wide for B.DIM's immediate.
    Decided by these rules before anything is built, so that an error while building is a bug, never a verdict."""
    if case.op == "TCVT":
        return _tcvt_problem(case)
    if case.dtype not in DT_CODE:
        return f"{case.dtype} has no BSTART DataType code"
    dt = dtypes.get(case.dtype)
    if case.op == "TSORT":
        t = case.tile("src")
        src_bytes = t.rows * t.cols * dt.itemsize
        sizes = {"source": src_bytes, "index": src_bytes * 32 // dt.bits}
        dims = {"sort_width": case.param("sort_width", 0) or 0}
    elif case.op == "TMRGSORT":
        if case.param("descending") is None:
            return "a pto-isa TMRGSORT case (records); pto-spec's merges two value rows"
        d = case.tile("dst")
        sizes = {"destination": d.rows * d.cols * dt.itemsize}
        dims = {}
    elif case.op in CLOSED and CLOSED[case.op].schema == "compare":
        from ptofuzz.oracles import cmpsel

        s = case.tile("src0")
        if (case.param("mask") or "uint8") != "uint8":
            return f"a predicate of {case.param('mask')} words: a bundle's predicate is bytes"
        if s.cols % 8 == 0 and case.tile("dst") != cmpsel.spec_predicate(s):
            return "the predicate destination is shaped as the first source; this case's differs"
        sizes = {}
        dims = {"ValidCol": s.valid_cols, "ValidRow": s.valid_rows, "Col": s.cols}
    elif case.op in CLOSED and CLOSED[case.op].schema == "select":
        from ptofuzz.oracles import cmpsel

        s, d = case.tile("src0"), case.tile("dst")
        if (case.param("mask") or "uint8") != "uint8":
            return f"a predicate of {case.param('mask')} words: a bundle's predicate is bytes"
        if s.cols % 8 or case.tile("mask") != cmpsel.spec_predicate(s):
            return "the predicate is no byte tile of the true source's logical shape (a bundle's predicate is one)"
        sizes = {"destination": d.rows * d.cols * dt.itemsize}
        dims = {"ValidCol": d.valid_cols, "ValidRow": d.valid_rows, "Col": d.cols}
    elif case.op in CLOSED and CLOSED[case.op].schema in ("reduction", "expansion"):
        why = _reduce_expand_problem(case)
        if why:
            return why
        arg = "ARG" in case.op
        d = case.tile("dst_idx" if arg else "dst")
        sizes = {"destination": d.rows * d.cols * (4 if arg else dt.itemsize)}
        # a source beyond a Local tile (the direct oracle takes a Shared one up to 256 KiB) has no spelling either
        sizes.update({f"source {r}": case.tile(r).rows * case.tile(r).cols * dt.itemsize
                      for r in CLOSED[case.op].sources if case.tile(r).rows * case.tile(r).cols * dt.itemsize > 65536})
        lbs = case.tile("src") if CLOSED[case.op].schema == "reduction" else d
        dims = {"ValidCol": lbs.valid_cols, "ValidRow": lbs.valid_rows, "Col": lbs.cols}
    elif case.op in enc.SELECTOR_OF and (case.op in CLOSED or case.op.startswith("TPART")):
        d = case.tile("dst")
        sizes = {"destination": d.rows * d.cols * dt.itemsize}
        dims = {"ValidCol": d.valid_cols, "ValidRow": d.valid_rows, "Col": d.cols}
        if case.op in CLOSED and CLOSED[case.op].schema == "generic":
            zero = [n for n, (lb, v) in _generic_dims(case).items() if v == 0]
            if zero:  # an LB of 0 means "the first source's": a generic destination cannot be given one
                return f"the destination's {zero[0]} 0 differs from the first source's; an LB of 0 is its default"
    else:
        return f"{case.op} has no bundle selector"
    for what, nbytes in sizes.items():
        if not _is_local_size(nbytes):
            return f"the {what} tile's {nbytes} B is no Local tile size (128 B * 2**k up to 64 KiB)"
    for name, value in dims.items():
        if not 0 <= value < DIM_LIMIT:
            return f"{name} {value} does not fit B.DIM's 17-bit immediate"
    return None


def _reduce_expand_problem(case: Case) -> str:
    """:func:`spelling_problem`'s rules of a reduction or expansion ("" when it has a spelling): a reduction's
    destination is derived from its source (``ResolveBundleTileDestinationsForOperation``: valid rows x 1 of one
    column for a row reduction, 1 x valid columns of the source's columns for a column one), so a case whose
    destination differs, or whose row destination has fewer rows than the source's valid rows (a TSize too small
    is an allocation fault in a bundle), has none; an arg reduction's destination is U32 (an S32 case's indices are
    the same bits: every index is below 2**16) and has no value output."""
    if CLOSED[case.op].schema == "expansion":
        return ""
    s = case.tile("src")
    if "ARG" in case.op:
        if (case.param("idx") or "int32") not in ("int32", "uint32"):
            return f"an index destination of {case.param('idx')}: a bundle's is U32"
        if case.param("val"):
            return "a value + index form: pto-spec's arg reductions write the indices only"
    d = case.tile("dst_idx" if "ARG" in case.op else "dst")
    if case.op.startswith("TROW"):
        if d.cols != 1 or d.valid != (s.valid_rows, 1):
            return "the destination is shaped from the source (valid rows x 1, one column); this case's differs"
        if d.rows < s.valid_rows:
            return "the destination has fewer rows than the source's valid rows (in a bundle, an allocation fault)"
    elif d.cols != s.cols or d.valid != (1, s.valid_cols):
        return "the destination is shaped from the source (1 x valid columns, its columns); this case's differs"
    return ""


def _tcvt_problem(case: Case) -> str | None:
    """:func:`spelling_problem` of a TCVT case: both types with a DataType code the executor computes, the
    rounding mode one B.DATR RMode names, the destination a Local size, the LBs within B.DIM's immediate."""
    from ptofuzz.oracles import conversion

    src, to = dtypes.get(case.dtype), dtypes.get(case.param(conversion.TO) or case.dtype)
    for dt in (src, to):
        if dt.spec_name not in TCVT_DTYPES:
            return f"{dt.name} has no DataType code TCVT's bundle computes"
    if int(case.param(conversion.RMODE, 0) or 0) not in ROUND_TO_RMODE:
        return f"rounding mode {case.param(conversion.RMODE)} has no B.DATR RMode"
    if case.param(conversion.SAT) not in (None, conversion.SAT_ON, conversion.SAT_OFF):
        return f"saturation {case.param(conversion.SAT)} has no B.DATR Sat"
    d = case.tile("dst")
    nbytes = d.rows * d.cols * to.itemsize
    if not _is_local_size(nbytes):
        return f"the destination tile's {nbytes} B is no Local tile size (128 B * 2**k up to 64 KiB)"
    for name, value in (("ValidCol", d.valid_cols), ("ValidRow", d.valid_rows), ("Col", d.cols)):
        if not 0 <= value < DIM_LIMIT:
            return f"{name} {value} does not fit B.DIM's 17-bit immediate"
    return None


#: the conversion oracle's ``rmode`` (pto::RoundMode ordinals) -> B.DATR RMode
ROUND_TO_RMODE = {rmode: code for code, rmode in RMODE_TO_ROUND.items()}


def tcvt_bundle(case: Case, inputs: Mapping[str, np.ndarray], *, mask: int | None = None) -> BundleCase:
    """The bundle that runs spec ``case`` of TCVT: ``BSTART.VEC TCVT`` with the source type, the source at M#1, the
    destination to T with TSize its capacity in the destination type; LBs as :func:`closed_bundle` writes them;
    a B.DATR when the case needs one (another destination type, a rounding mode, saturation on): DataType the
    destination type (DTYPE_NONE when it is the source's), RMode (:data:`ROUND_TO_RMODE`), Sat, PadValue Null
    (padding undefined, as the direct oracle classes it)."""
    from ptofuzz.oracles import conversion

    src_dt, to = dtypes.get(case.dtype), dtypes.get(case.param(conversion.TO) or case.dtype)
    d = case.tile("dst")
    src = _local(case, "src", inputs["src"])
    dst_bytes = d.rows * d.cols * to.itemsize
    pe = _pemode(src.capacity + dst_bytes, mask)
    src.mask = enc.PE_MASKS[pe]
    start = enc.Command("BSTART.TEPL", {"datatype": src_dt.spec_code, "selector": enc.SELECTOR_OF["TCVT"]})
    words = [enc.encode(start)]
    rmode = ROUND_TO_RMODE[int(case.param(conversion.RMODE, 0) or 0)]
    sat = int(case.param(conversion.SAT) == conversion.SAT_ON)
    if to != src_dt or rmode or sat:
        words.append(enc.encode(enc.Command("B.DATR", {
            "cmode": 0, "pad": 3, "sat": sat, "canon": 0, "datatype": to.spec_code if to != src_dt else 31,
            "rmode": rmode, "layout": 0})))
    for lb, value, default in ((0, d.valid_cols, None), (1, d.valid_rows, 1), (2, d.cols, d.valid_cols)):
        if value != default:
            words.append(enc.encode(enc.Command("B.DIM", {"lb": lb, "rs": 0, "imm": value})))
    words.append(enc.encode(enc.Command("B.IOT.SD", {"src0": SRC0, "last": 1, "pemode": pe,
                                                     "size": _size_code(dst_bytes), "dst": 0})))
    words.append(enc.BSTOP_WORD)
    return BundleCase("tcvt", "TCVT", words, {SRC0: src}, {}, "ok", case=case, inputs=inputs)


def _local(case: Case, role: str, bits: np.ndarray) -> LocalTile:
    t = case.tile(role)
    dt = dtypes.get(case.dtype)
    return LocalTile(dt.name, t.rows, t.cols, t.valid_rows, t.valid_cols, np.array(bits, dtype=dt.bits_dtype),
                     t.rows * t.cols * dt.itemsize)


def _pemode(total_bytes: int, mask: int | None) -> int:
    """All four PEs (1111) when the core's tile capacity holds the bundle's tiles four times, else PE3 alone."""
    if mask is not None:
        return mask
    return 7 if 4 * total_bytes <= CORE_CAPACITY else 4


def tsort_bundle(case: Case, inputs: Mapping[str, np.ndarray], *, mask: int | None = None) -> BundleCase:
    """The bundle that runs spec ``case`` (TSORT): source at M#1, values to T, indices to U."""
    dt = dtypes.get(case.dtype)
    src = _local(case, "src", inputs["src"])
    mask = _pemode(src.capacity * (2 + 32 // dt.bits), mask)
    src.mask = enc.PE_MASKS[mask]
    width, desc = case.param("sort_width", 0) or 0, case.param("descending", 0) or 0
    words = [enc.encode(enc.Command("BSTART.TEPL", {"datatype": DT_CODE[dt.name], "selector": 0x6C}))]
    if width:
        words.append(enc.encode(enc.Command("B.DIM", {"lb": 0, "rs": 0, "imm": width})))
    gprs = _flag_register(words, desc)
    words.append(enc.encode(enc.Command("B.IOT.SD", {"src0": SRC0, "last": 0, "size": _size_code(src.capacity),
                                                     "pemode": mask, "dst": 0})))
    idx_bytes = src.capacity * 32 // dt.bits
    words.append(enc.encode(enc.Command("B.IOT.D", {"last": 1, "size": _size_code(idx_bytes), "pemode": mask,
                                                    "dst": 1})))
    words.append(enc.BSTOP_WORD)
    return BundleCase("tsort", "TSORT", words, {SRC0: src}, gprs, "ok", case=case, inputs=inputs)


def tpart_bundle(case: Case, inputs: Mapping[str, np.ndarray], *, mask: int | None = None) -> BundleCase:
    """The bundle that runs spec ``case`` (TPART*): sources at M#1, M#2, the destination to T; LB0 = ValidCol,
    LB1 = ValidRow, LB2 = Col; TSize = the destination's capacity."""
    dt = dtypes.get(case.dtype)
    d = case.tile("dst")
    sel = enc.SELECTOR_OF[case.op]
    mask = _pemode(sum(case.tile(r).rows * case.tile(r).cols for r in ("dst", "src0", "src1")) * dt.itemsize, mask)
    words = [enc.encode(enc.Command("BSTART.TEPL", {"datatype": DT_CODE[dt.name], "selector": sel}))]
    for lb, value in ((0, d.valid_cols), (1, d.valid_rows), (2, d.cols)):
        words.append(enc.encode(enc.Command("B.DIM", {"lb": lb, "rs": 0, "imm": value})))
    words.append(enc.encode(enc.Command("B.IOT.SSD", {"src0": SRC0, "src1": SRC1, "last": 1, "pemode": mask,
                                                      "size": _size_code(d.rows * d.cols * dt.itemsize),
                                                      "dst": 0})))
    words.append(enc.BSTOP_WORD)
    tiles = {SRC0: _local(case, "src0", inputs["src0"]), SRC1: _local(case, "src1", inputs["src1"])}
    for t in tiles.values():
        t.mask = enc.PE_MASKS[mask]
    return BundleCase(case.op.lower(), case.op, words, tiles, {}, "ok", case=case, inputs=inputs)


def scalar_register(bits: np.ndarray, dtype: str) -> int | np.ndarray:
    """The GPR value that carries a tile-scalar operation's scalar (``bits``: the element, 1x1, with any batch
    axis): a signed integer sign-extended to 64 bits, anything else zero-extended, as a compiler would leave it in
    a register (the executor reads the low element bits, TileRawElementValue). One integer for one case, an array
    of one value per case for a batch."""
    dt = dtypes.get(dtype)
    raw = np.asarray(bits).astype(dt.bits_dtype)[..., 0, 0]
    wide = raw.view(f"<i{dt.itemsize}").astype(np.int64).view(np.uint64) if dt.kind == "int" else \
        raw.astype(np.uint64)
    return int(wide) if wide.ndim == 0 else wide


def _generic_dims(case: Case) -> dict[str, tuple[int, int]]:
    """The LBs a generic operation's bundle writes (``ClosedTepl`` ``generic``): {name: (LB, value)} for each of
    the destination's ValidCol, ValidRow, Col that differs from the first source's, which the omitted LB gives."""
    d, s = case.tile("dst"), case.tile(CLOSED[case.op].sources[0])
    return {name: (lb, v) for name, lb, v, default in (("ValidCol", 0, d.valid_cols, s.valid_cols),
                                                       ("ValidRow", 1, d.valid_rows, s.valid_rows),
                                                       ("Col", 2, d.cols, s.cols)) if v != default}


#: the oracles' ``cmp`` (pto-isa's CmpMode order) -> B.DATR CMode
CMP_TO_CMODE = {cmp: cmode for cmode, cmp in CMODE_TO_CMP.items()}


def predicate_size(data: Tile) -> int:
    """TSize of a predicate destination shaped as ``data``: the smallest Local size holding its packed bits
    ((Row*Col + 7) / 8 bytes, PredicateTileStorageBytes)."""
    need = (data.rows * data.cols + 7) // 8
    return max(128, 1 << (need - 1).bit_length())


def closed_bundle(case: Case, inputs: Mapping[str, np.ndarray], *, mask: int | None = None) -> BundleCase:
    """The bundle that runs spec ``case`` of an elementwise TEPL operation (:data:`CLOSED`): its sources at M#1
    (and M#2), the destination to T with TSize its capacity; LB0 = ValidCol, LB1 = ValidRow only when not 1 and
    LB2 = Col only when not ValidCol (the omission defaults; a generic operation's: each LB only when it differs
    from the first source's, :func:`_generic_dims`); a tile-scalar operation's scalar in a0 through B.IOR
    RegSrc0 (:func:`scalar_register`)."""
    form = CLOSED[case.op]
    dt = dtypes.get(case.dtype)
    compare = form.schema == "compare"
    d = case.tile("src0" if compare else "dst")  # a predicate destination is shaped as the first source
    tiles = {slot: _local(case, role, inputs[role]) for slot, role in zip((SRC0, SRC1), form.sources)}
    dst_bytes = predicate_size(d) if compare else d.rows * d.cols * dt.itemsize
    mask = _pemode(sum(t.capacity for t in tiles.values()) + dst_bytes, mask)
    for t in tiles.values():
        t.mask = enc.PE_MASKS[mask]
    words = [enc.encode(enc.Command("BSTART.TEPL", {"datatype": DT_CODE[dt.name], "selector": enc.SELECTOR_OF[
        case.op]}))]
    if form.schema == "generic":  # no closed schema: an omitted LB is the first source's
        lbs = list(_generic_dims(case).values())
    else:
        lbs = [(lb, value) for lb, value, default in ((0, d.valid_cols, None), (1, d.valid_rows, 1),
                                                       (2, d.cols, d.valid_cols)) if value != default]
    for lb, value in lbs:
        words.append(enc.encode(enc.Command("B.DIM", {"lb": lb, "rs": 0, "imm": value})))
    cmode = CMP_TO_CMODE[int(case.param("cmp", 0) or 0)] if compare else 0
    if cmode:  # the comparison: B.DATR CMode (EQ, CMode 0, is the default)
        words.append(enc.encode(enc.Command("B.DATR", {"cmode": cmode, "pad": 0, "sat": 0, "canon": 0,
                                                       "datatype": 0, "rmode": 0, "layout": 0})))
    srcs = dict(zip(("src0", "src1"), tiles))  # the B.IOT source fields: M#1 (and M#2)
    words.append(enc.encode(enc.Command(("B.IOT.D", "B.IOT.SD", "B.IOT.SSD")[len(srcs)],
                                        {**srcs, "last": 1, "pemode": mask, "size": _size_code(dst_bytes),
                                         "dst": 0})))
    gprs: dict[str, int | np.ndarray] = {}
    if form.registers:  # TCI's start and direction, TTRI's diagonal and orientation: a0 and a1 (64-bit words)
        first, second = (("start", "descending") if case.op == "TCI" else ("diagonal", "upper"))
        given = inputs.get(first)  # a batch's per-item starts or diagonals: batched values of a0
        a0: int | np.ndarray = int(case.param(first, 0) or 0) & ((1 << 64) - 1) if given is None else \
            np.asarray(given, dtype=np.int64).reshape(-1).astype(np.uint64)
        gprs = {"a0": a0, "a1": int(case.param(second, 0) or 0) & ((1 << 64) - 1)}
        words.append(enc.encode(enc.Command("B.IOR", {"rd": 0, "rs0": enc.GPR_CODES["a0"],
                                                      "rs1": enc.GPR_CODES["a1"], "rs2": 0})))
    if form.scalar:  # after the binding, as the operations' contract blocks place it
        gprs["a0"] = scalar_register(inputs[form.scalar], dt.name)
        words.append(enc.encode(enc.Command("B.IOR", {"rd": 0, "rs0": enc.GPR_CODES["a0"], "rs1": 0, "rs2": 0})))
    words.append(enc.BSTOP_WORD)
    return BundleCase(case.op.lower(), case.op, words, tiles, gprs, "ok", case=case, inputs=inputs)


def select_bundle(case: Case, inputs: Mapping[str, np.ndarray], *, mask: int | None = None) -> BundleCase:
    """The bundle that runs spec ``case`` of TSEL or TSELS: the predicate at M#1 (a predicate tile of the true
    source's logical shape), the true source at M#2, TSEL's false source at M#3; TSEL binds the first two in a
    B.IOT of their own and the false source with the destination in a terminal one, TSELS all in one; LBs as
    :func:`closed_bundle` writes them; TSELS's false value in a0 through B.IOR RegSrc0."""
    form = CLOSED[case.op]
    dt = dtypes.get(case.dtype)
    d, s = case.tile("dst"), case.tile("src0")
    m = case.tile("mask")
    pred = LocalTile("uint8", m.rows, m.cols, m.valid_rows, m.valid_cols, np.array(inputs["mask"], dtype=np.uint8),
                     m.rows * m.cols, logical=(s.rows, s.cols, s.valid_rows, s.valid_cols))
    tiles = {SRC0: pred, SRC1: _local(case, "src0", inputs["src0"])}
    if not form.scalar:
        tiles[SRC2] = _local(case, "src1", inputs["src1"])
    dst_bytes = d.rows * d.cols * dt.itemsize
    pe = _pemode(sum(t.capacity for t in tiles.values()) + dst_bytes, mask)
    for t in tiles.values():
        t.mask = enc.PE_MASKS[pe]
    words = [enc.encode(enc.Command("BSTART.TEPL", {"datatype": DT_CODE[dt.name],
                                                    "selector": enc.SELECTOR_OF[case.op]}))]
    for lb, value, default in ((0, d.valid_cols, None), (1, d.valid_rows, 1), (2, d.cols, d.valid_cols)):
        if value != default:
            words.append(enc.encode(enc.Command("B.DIM", {"lb": lb, "rs": 0, "imm": value})))
    dest = {"pemode": pe, "size": _size_code(dst_bytes), "dst": 0}
    if form.scalar:
        words.append(enc.encode(enc.Command("B.IOT.SSD", {"src0": SRC0, "src1": SRC1, "last": 1, **dest})))
    else:
        words.append(enc.encode(enc.Command("B.IOT.SS", {"src0": SRC0, "src1": SRC1, "last": 0, "pemode": pe})))
        words.append(enc.encode(enc.Command("B.IOT.SD", {"src0": SRC2, "last": 1, **dest})))
    gprs: dict[str, int | np.ndarray] = {}
    if form.scalar:
        gprs["a0"] = scalar_register(inputs[form.scalar], dt.name)
        words.append(enc.encode(enc.Command("B.IOR", {"rd": 0, "rs0": enc.GPR_CODES["a0"], "rs1": 0, "rs2": 0})))
    words.append(enc.BSTOP_WORD)
    return BundleCase(case.op.lower(), case.op, words, tiles, gprs, "ok", case=case, inputs=inputs)


def reduce_expand_case(op: str, dtype: str, valid: tuple[int, int]) -> Case:
    """A legal spec case of a reduction or expansion on the smallest legal descriptors: a reduction's source of
    ``valid`` and its destination as pto-spec derives it (an arg reduction's U32 indices); an expansion's
    destination (and full-shape source) of ``valid`` and its broadcast source (a row expansion's one column of the
    valid rows, a column expansion's one row of the destination's columns)."""
    from ptofuzz.core.layouts import spec_physical

    dt = dtypes.get(dtype)
    full = Tile(*spec_physical(*valid, dt), *valid)
    row = op.startswith("TROW")
    if CLOSED[op].schema == "reduction":
        arg = "ARG" in op
        out = dtypes.get("uint32") if arg else dt
        d = Tile(spec_physical(valid[0], 1, out)[0], 1, valid[0], 1) if row else \
            Tile(max(1, spec_physical(1, full.cols, out)[0]), full.cols, 1, valid[1])
        if arg:
            return Case(op, "spec", dt.name, (("dst_idx", d), ("src", full), ("dst", d)), (("idx", "uint32"),))
        return Case(op, "spec", dt.name, (("dst", d), ("src", full)))
    b = Tile(spec_physical(valid[0], 1, dt)[0], 1, valid[0], 1) if row else \
        Tile(max(1, spec_physical(1, full.cols, dt)[0]), full.cols, 1, valid[1])
    if len(CLOSED[op].sources) == 1:
        return Case(op, "spec", dt.name, (("dst", full), ("src", b)))
    return Case(op, "spec", dt.name, (("dst", full), ("src0", full), ("src1", b)))


def reduce_expand_bundle(case: Case, inputs: Mapping[str, np.ndarray], *, mask: int | None = None) -> BundleCase:
    """The bundle that runs spec ``case`` of a reduction or an expansion (``reduction`` and ``expansion`` entries
    of :data:`CLOSED`): its sources at M#1 (and M#2: an arithmetic expansion's full-shape source first, the
    broadcast one second), the destination to T with TSize its capacity (an arg reduction's in U32); LB0, LB1,
    LB2 the source's ValidCol, ValidRow, Col for a reduction, the destination's for an expansion, LB1 only when not
    1 and LB2 only when not LB0 (the omission defaults)."""
    form = CLOSED[case.op]
    dt = dtypes.get(case.dtype)
    arg = "ARG" in case.op
    d = case.tile("dst_idx" if arg else "dst")
    shape = case.tile("src") if form.schema == "reduction" else d
    tiles = {slot: _local(case, role, inputs[role]) for slot, role in zip((SRC0, SRC1), form.sources)}
    dst_bytes = d.rows * d.cols * (4 if arg else dt.itemsize)
    pe = _pemode(sum(t.capacity for t in tiles.values()) + dst_bytes, mask)
    for t in tiles.values():
        t.mask = enc.PE_MASKS[pe]
    words = [enc.encode(enc.Command("BSTART.TEPL", {"datatype": DT_CODE[dt.name],
                                                    "selector": enc.SELECTOR_OF[case.op]}))]
    for lb, value, default in ((0, shape.valid_cols, None), (1, shape.valid_rows, 1),
                               (2, shape.cols, shape.valid_cols)):
        if value != default:
            words.append(enc.encode(enc.Command("B.DIM", {"lb": lb, "rs": 0, "imm": value})))
    srcs = dict(zip(("src0", "src1"), tiles))
    words.append(enc.encode(enc.Command(("B.IOT.SD", "B.IOT.SSD")[len(srcs) - 1],
                                        {**srcs, "last": 1, "pemode": pe, "size": _size_code(dst_bytes), "dst": 0})))
    words.append(enc.BSTOP_WORD)
    return BundleCase(case.op.lower(), case.op, words, tiles, {}, "ok", case=case, inputs=inputs)


def bundle_for(case: Case, inputs: Mapping[str, np.ndarray]) -> BundleCase:
    """The bundle that runs spec ``case``; check :func:`spelling_problem` first (ValueError when it has one)."""
    why = spelling_problem(case)
    if why is not None:
        raise ValueError(f"no bundle spelling: {why}")
    if case.op == "TMRGSORT":
        return tmrgsort_bundle(case, inputs)
    if case.op == "TCVT":
        return tcvt_bundle(case, inputs)
    if case.op in CLOSED and CLOSED[case.op].schema == "select":
        return select_bundle(case, inputs)
    if case.op in CLOSED and CLOSED[case.op].schema in ("reduction", "expansion"):
        return reduce_expand_bundle(case, inputs)
    if case.op in CLOSED:
        return closed_bundle(case, inputs)
    return tsort_bundle(case, inputs) if case.op == "TSORT" else tpart_bundle(case, inputs)


def _flag_register(words: list[int], flag: int) -> dict[str, int | np.ndarray]:
    """A sort's descending flag: when set, a B.IOR reading it from a0 (appended to ``words``), which holds the
    case's own value (0 or 1 when legal); the GPR values."""
    if not flag:
        return {}
    words.append(enc.encode(enc.Command("B.IOR", {"rd": 0, "rs0": enc.GPR_CODES["a0"], "rs1": 0, "rs2": 0})))
    return {"a0": flag}


def tmrgsort_bundle(case: Case, inputs: Mapping[str, np.ndarray], *, mask: int | None = None) -> BundleCase:
    """The bundle that runs spec ``case`` (pto-spec TMRGSORT): sources at M#1, M#2, the destination to T (its
    shape derived from both sources, no B.DIM); the descending flag in a0 through B.IOR when set."""
    dt = dtypes.get(case.dtype)
    d = case.tile("dst")
    tiles = {SRC0: _local(case, "src0", inputs["src0"]), SRC1: _local(case, "src1", inputs["src1"])}
    mask = _pemode(sum(t.capacity for t in tiles.values()) + d.rows * d.cols * dt.itemsize, mask)
    for t in tiles.values():
        t.mask = enc.PE_MASKS[mask]
    start = enc.Command("BSTART.TEPL", {"datatype": DT_CODE[dt.name], "selector": enc.SELECTOR_OF["TMRGSORT"]})
    words = [enc.encode(start)]
    gprs = _flag_register(words, case.param("descending", 0) or 0)
    words.append(enc.encode(enc.Command("B.IOT.SSD", {"src0": SRC0, "src1": SRC1, "last": 1,
                                                      "size": _size_code(d.rows * d.cols * dt.itemsize),
                                                      "pemode": mask, "dst": 0})))
    words.append(enc.BSTOP_WORD)
    return BundleCase("tmrgsort", "TMRGSORT", words, tiles, gprs, "ok", case=case, inputs=inputs)


def _replace(words: list[int], index: int, new: int) -> list[int]:
    out = list(words)
    out[index] = new
    return out


def _index_of(words: list[int], form: str) -> int:
    return next(k for k, w in enumerate(words) if enc.decode(w).form == form)


# name -> (operation, expected fault name, trap, what is wrong)
ILLEGAL: dict[str, tuple[str, str, int, str]] = {
    "reserved-datatype": ("TSORT", "Fault_IllegalInstruction", 4, "BSTART DataType 21 is reserved"),
    "gpr-selector": ("TSORT", "Fault_IllegalInstruction", 4, "B.IOR names GPR selector 28"),
    "sizecode": ("TPARTADD", "Fault_IllegalInstruction", 4, "a B.IOT destination with SizeCode 12"),
    "mixed-masks": ("TSORT", "Fault_TileLegality", 5, "the second binding's PE mask differs"),
    "missing-last": ("TSORT", "Fault_BundleControl", 5, "no binding is marked <last>"),
    "duplicate-dim": ("TPARTADD", "Fault_BundleControl", 5, "LB0 written twice"),
    "duplicate-ior": ("TSORT", "Fault_BundleControl", 5, "two B.IOR"),
    "datr-on-tpart": ("TPARTMAX", "Fault_TileLegality", 5, "an all-zero B.DATR on TPART*"),
    "sort-width": ("TSORT", "Fault_TileLegality", 5, "LB0 = 65 (sort_width above 64)"),
    "descending-flag": ("TSORT", "Fault_TileLegality", 5, "the descending flag register holds 2"),
    "dst-too-small": ("TSORT", "Fault_TileAllocation", 5, "the value destination's TSize is half the source"),
    "dst-too-large": ("TSORT", "Fault_TileLegality", 5, "the value destination's TSize is twice the source"),
    # the closed TEPL schemas (tile-schema.asl, tile-scalar-schema.asl)
    "missing-lb0": ("TADD", "Fault_TileLegality", 5, "no B.DIM LB0 (ValidCol is required)"),
    "split-binding": ("TMAX", "Fault_TileLegality", 5, "the sources and the destination in two B.IOTs"),
    "ior-on-tadd": ("TADD", "Fault_BundleControl", 5, "a B.IOR naming a register TADD does not read"),
    "datr-on-tadd": ("TADD", "Fault_TileLegality", 5, "a B.DATR (DataType 0: an FP64 destination) on S16"),
    "scalar-source-shape": ("TADDS", "Fault_TileLegality", 5, "LB0 one less than the source's valid columns"),
    # the reduction and expansion schemas (reduction-schema.asl, expansion-schema.asl) and
    # TileOperandsLegal_ExecuteTileExpand
    "reduce-source-shape": ("TROWMAX", "Fault_TileLegality", 5, "LB0 one less than the source's valid columns"),
    "reduce-zero-ior": ("TCOLSUM", "Fault_TileLegality", 5, "an all-zero B.IOR on a reduction"),
    "reduce-ior-register": ("TROWARGMIN", "Fault_BundleControl", 5, "a B.IOR naming a register TROWARGMIN does "
                                                                    "not read"),
    "expand-broadcast-shape": ("TCOLEXPAND", "Fault_TileLegality", 5, "LB2 twice the broadcast row's columns"),
    "expand-full-rows": ("TROWEXPANDSUB", "Fault_TileLegality", 5, "a destination TSize giving twice the "
                                                                  "full-shape source's rows"),
    # TCVT's closed schema (tcvt-schema.asl) and TileOperandsLegal_TCVT
    "cmode-on-tcvt": ("TCVT", "Fault_TileLegality", 5, "a B.DATR CMode of NE on TCVT"),
    "tcvt-source-type": ("TCVT", "Fault_TileLegality", 5, "BSTART says FP16, the source is FP32"),
    "tcvt-canonicalize": ("TCVT", "Fault_TileLegality", 5, "Canonicalize 1 on an ordinary source"),
    "tcvt-layout": ("TCVT", "Fault_TileLegality", 5, "Layout DN2ND on a row-major source"),
    "tcvt-shape": ("TCVT", "Fault_TileLegality", 5, "a destination TSize giving twice the source's rows"),
}
SPECIAL = {
    "dont-care": ("TSORT", "ok", "bits 8:7 of a source-only binding set: the model ignores them"),
    "noop": ("TPARTADD", "noop", "every binding has PE mask 0000: the block commits as a no-op"),
}


def _base(op: str, src: Source) -> BundleCase:
    """A small legal bundle of ``op`` with drawn values."""
    from ptofuzz.core.layouts import spec_physical
    from ptofuzz.generators import values

    dt = dtypes.get("float32" if op in ("TSORT", "TCVT") else "int16")
    if op == "TCVT":  # 2x8 valid FP32 to FP16 in 8x8 tiles (256 B and 128 B)
        from ptofuzz.oracles import conversion

        t = Tile(8, 8, 2, 8)
        case = Case("TCVT", "spec", dt.name, (("dst", t), ("src", t)), ((conversion.TO, "float16"),))
        return tcvt_bundle(case, {"src": values.draw(src, dt, t.shape)})
    if op in CLOSED and CLOSED[op].schema in ("reduction", "expansion"):  # 2x8 S16 in 8x8 (128 B)
        case = reduce_expand_case(op, dt.name, (2, 8))
        return reduce_expand_bundle(case, {r: values.draw(src, dt, case.tile(r).shape) for r in CLOSED[op].sources})
    if op in CLOSED:  # 2x8 S16 (a 128 B tile of 4x16)
        t = Tile(*spec_physical(2, 8, dt), 2, 8)
        form = CLOSED[op]
        case = Case(op, "spec", dt.name, (("dst", t), *((r, t) for r in form.sources),
                                           *(((form.scalar, Tile(1, 1, 1, 1)),) if form.scalar else ())))
        return closed_bundle(case, {r: values.draw(src, dt, case.tile(r).shape) for r, _ in case.tiles if r != "dst"})
    if op == "TSORT":
        t = Tile(*spec_physical(8, 8, dt), 8, 8)  # 256 B: TSize can be one size smaller or larger
        case = Case("TSORT", "spec", dt.name, (("src", t), ("dst", t), ("idx", t)), (("descending", 1),))
        return tsort_bundle(case, {"src": values.draw(src, dt, t.shape)})
    tiles = tuple((r, Tile(*spec_physical(*v, dt), *v)) for r, v in (("dst", (2, 8)), ("src0", (2, 8)),
                                                                     ("src1", (1, 4))))
    case = Case(op, "spec", dt.name, tiles)
    return tpart_bundle(case, {r: values.draw(src, dt, case.tile(r).shape) for r in ("src0", "src1")})


def illegal(kind: str, src: Source) -> BundleCase:
    """A bundle broken in one way (:data:`ILLEGAL`), or one of the :data:`SPECIAL` legal oddities."""
    if kind in SPECIAL:
        op, expect, note = SPECIAL[kind]
        b = _base(op, src)
        if kind == "dont-care":  # the source in a binding of its own, the ignored bits 8:7 set, then the two
            # destinations: the same operation as the base bundle
            k = _index_of(b.words, "B.IOT.SD")
            sd = enc.decode(b.words[k]).fields
            source = enc.encode(enc.Command("B.IOT.S", {"src0": sd["src0"], "last": 0, "pemode": sd["pemode"]}, 0x180))
            dest = enc.encode(enc.Command("B.IOT.D", {"last": 0, "size": sd["size"], "pemode": sd["pemode"],
                                                      "dst": sd["dst"]}))
            words = b.words[:k] + [source, dest] + b.words[k + 1:]
        else:
            words = [w if enc.decode(w).kind != "B.IOT" else w & ~(7 << 9) for w in b.words]
        return dataclasses.replace(b, name=kind, words=words, expect=expect, note=note)
    op, fault, trap, note = ILLEGAL[kind]
    b = _base(op, src)
    w = b.words
    gprs = dict(b.gprs)
    if kind == "reserved-datatype":
        w = _replace(w, 0, (w[0] & ~(31 << 27)) | 21 << 27)
    elif kind == "gpr-selector":
        k = _index_of(w, "B.IOR")
        w = _replace(w, k, (w[k] & ~(31 << 15)) | 28 << 15)
    elif kind == "sizecode":
        k = _index_of(w, "B.IOT.SSD")
        w = _replace(w, k, (w[k] & ~(15 << 15)) | 12 << 15)
    elif kind == "mixed-masks":
        k = _index_of(w, "B.IOT.D")
        w = _replace(w, k, (w[k] & ~(7 << 9)) | 1 << 9)
    elif kind == "missing-last":
        k = _index_of(w, "B.IOT.D")
        w = _replace(w, k, w[k] & ~(1 << 19))
    elif kind == "duplicate-dim":
        k = _index_of(w, "B.DIM")
        w = w[:k + 1] + [w[k]] + w[k + 1:]
    elif kind == "duplicate-ior":
        k = _index_of(w, "B.IOR")
        w = w[:k + 1] + [w[k]] + w[k + 1:]
    elif kind == "datr-on-tpart":
        datr = enc.encode(enc.Command("B.DATR", {"cmode": 0, "pad": 0, "sat": 0, "canon": 0, "datatype": 0,
                                                 "rmode": 0, "layout": 0}))
        w = w[:1] + [datr] + w[1:]
    elif kind == "sort-width":
        w = w[:1] + [enc.encode(enc.Command("B.DIM", {"lb": 0, "rs": 0, "imm": 65}))] + w[1:]
    elif kind == "descending-flag":
        gprs["a0"] = 2
    elif kind in ("missing-lb0", "scalar-source-shape"):
        k = next(k for k, x in enumerate(w) if enc.decode(x).form == "B.DIM" and enc.decode(x)["lb"] == 0)
        w = w[:k] + w[k + 1:] if kind == "missing-lb0" else _replace(w, k, w[k] - (1 << 20))  # imm_lo - 1
    elif kind == "split-binding":
        k = _index_of(w, "B.IOT.SSD")
        f = enc.decode(w[k]).fields
        w = w[:k] + [enc.encode(enc.Command("B.IOT.SD", {"src0": f["src0"], "last": 0, "size": f["size"],
                                                         "pemode": f["pemode"], "dst": f["dst"]})),
                     enc.encode(enc.Command("B.IOT.S", {"src0": f["src1"], "last": 1, "pemode": f["pemode"]}))] \
            + w[k + 1:]
    elif kind == "ior-on-tadd":
        w = w[:-1] + [enc.encode(enc.Command("B.IOR", {"rd": 0, "rs0": enc.GPR_CODES["a0"], "rs1": 0, "rs2": 0}))] \
            + w[-1:]
    elif kind == "datr-on-tadd":
        datr = enc.encode(enc.Command("B.DATR", {"cmode": 0, "pad": 0, "sat": 0, "canon": 0, "datatype": 0,
                                                 "rmode": 0, "layout": 0}))
        w = w[:1] + [datr] + w[1:]
    elif kind == "reduce-source-shape":
        k = next(k for k, x in enumerate(w) if enc.decode(x).form == "B.DIM" and enc.decode(x)["lb"] == 0)
        w = _replace(w, k, w[k] - (1 << 20))  # imm_lo - 1
    elif kind in ("reduce-zero-ior", "reduce-ior-register"):
        rs0 = enc.GPR_CODES["a0"] if kind == "reduce-ior-register" else 0
        w = w[:-1] + [enc.encode(enc.Command("B.IOR", {"rd": 0, "rs0": rs0, "rs1": 0, "rs2": 0}))] + w[-1:]
    elif kind == "expand-broadcast-shape":
        w = w[:-2] + [enc.encode(enc.Command("B.DIM", {"lb": 2, "rs": 0, "imm": 16}))] + w[-2:]
    elif kind == "expand-full-rows":
        k = _index_of(w, "B.IOT.SSD")
        w = _replace(w, k, w[k] + (1 << 15))  # SizeCode + 1
    elif kind in ("cmode-on-tcvt", "tcvt-canonicalize", "tcvt-layout"):
        k = _index_of(w, "B.DATR")
        w = _replace(w, k, w[k] | {"cmode-on-tcvt": 1 << 29, "tcvt-canonicalize": 1 << 25, "tcvt-layout": 6 << 7}[kind])
    elif kind == "tcvt-source-type":
        w = _replace(w, 0, (w[0] & ~(31 << 27)) | dtypes.get("float16").spec_code << 27)
    elif kind == "tcvt-shape":
        k = _index_of(w, "B.IOT.SD")
        w = _replace(w, k, w[k] + (1 << 15))  # SizeCode + 1
    elif kind in ("dst-too-small", "dst-too-large"):
        k = _index_of(w, "B.IOT.SD")
        size = (w[k] >> 15) & 15
        w = _replace(w, k, (w[k] & ~(15 << 15)) | (size - 1 if kind == "dst-too-small" else size + 1) << 15)
    return BundleCase(kind, op, w, b.tiles, gprs, "fault", fault, trap, note)

