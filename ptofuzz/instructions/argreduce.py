"""The arg reductions TROWARGMAX, TROWARGMIN, TCOLARGMAX, TCOLARGMIN: capabilities, layouts and canonical cases per
platform.

Facts from pto-isa 3186c381 (``docs/isa/T{ROW,COL}ARG{MAX,MIN}.md``: dtypes per implementation and the runtime
checks; ``include/pto/cpu/TReduceIdx.hpp``; the system tests, :mod:`ptofuzz.instructions.argreduce_cases`) and
pto-spec 0.58.3 (``ExecuteTileReduction``, ARGMAX/ARGMIN). Semantics live in ``oracles/argreduce.py``.

A case has a source tile ``src``, an index tile ``dst_idx`` (its dtype the case's ``idx`` param) and a value tile
``dst`` (the source's type), which only the value + index form writes (param ``val`` 1). A row reduction's
destinations are the column they write, ``(valid rows) x 1`` of their tile; a column reduction's the row, ``1 x
(valid columns)``. cpu's one system test (``targreduceop``) covers all four instructions: each instruction's cpu
profile holds its own cases, named whole (``TARGREDUCEOPTest.case_row_max_...``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Listed, Profile, spec_physical, whole_rows
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.generators.tpart import dimension
from ptofuzz.instructions import argreduce_cases as table
from ptofuzz.instructions import redraws
from ptofuzz.instructions import reduce as shared
from ptofuzz.instructions.reduce import NPUS, PLAIN, rxc
from ptofuzz.instructions.registry import Instruction
from ptofuzz.oracles import argreduce as oracles
from ptofuzz.oracles import descriptors
from ptofuzz.oracles import reduce as value_oracles

if TYPE_CHECKING:
    from ptofuzz.core.signature import Signature

NAMES = ("TROWARGMAX", "TROWARGMIN", "TCOLARGMAX", "TCOLARGMIN")  # registry.MODULES lists the same, in this order
INDEX_DTYPES = ("int32", "uint32", "int16", "uint16")
DEFAULT_INDEX = "int32"

# ---- dtype capabilities ------------------------------------------------------------------------------------
# cpu: TReduceIdx.hpp:47-52 (CheckArgTiles) takes integral, half, bfloat16_t and float sources and int32/uint32
# indices. NPUs: the pages' implementation checks (TROWARG*.md:64: A2A3 half, float, int32, int16; A5 the 2- and
# 4-byte types; TCOLARG*.md:106 and :112), with the types their system tests run beside (a2a3's column tests run
# int16 and int32; its value + index forms of 2-byte sources write 16-bit indices).
_CPU = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8")
_ROW_A5 = ("float32", "float16", "bfloat16", "int32", "uint32", "int16", "uint16")
_COL_A5 = ("float32", "float16", "int32", "uint32", "int16", "uint16", "int8", "uint8")
DTYPES: dict[str, dict[str, tuple[str, ...]]] = {
    **{op: {"cpu": _CPU, "a2a3": ("float32", "float16", "int32", "int16"), "a5": _ROW_A5}
       for op in ("TROWARGMAX", "TROWARGMIN")},
    **{op: {"cpu": _CPU, "a2a3": ("float32", "float16", "uint32", "uint16", "int32", "int16"), "a5": _COL_A5}
       for op in ("TCOLARGMAX", "TCOLARGMIN")},
}


def _case(op: str, platform: str, dt: str, idx: str, dst_idx: Tile, src: Tile, dst: Tile | None) -> Case:
    """A case of the index form (``dst`` None: the value tile is the index tile's shape, not written) or the
    value + index form."""
    return Case(op, platform, dt, (("dst_idx", dst_idx), ("src", src), ("dst", dst or dst_idx)),
                (("idx", idx), ("val", 1 if dst is not None else None)))


_TAGS = frozenset({"a2a3", "a5", "max"})


def _lines(text: str, op: str, platform: str) -> list[list[str]]:
    """The table's lines of ``op``'s test on ``platform``, tags dropped."""
    keep = {"max", platform} if op.endswith("MAX") else {platform}
    out = []
    for line in text.strip().splitlines():
        words = line.split()
        tags = {w for w in words if w in _TAGS}
        if {t for t in tags if t != "max"} - keep or ("max" in tags and "max" not in keep):
            continue
        out.append([w for w in words if w not in _TAGS])
    return out


def _row_cases(op: str, platform: str, text: str) -> tuple[tuple[str, Case], ...]:
    out = []
    for name, dt, idx, dtile, stile, valid, *rest in _lines(text, op, platform):
        (vr, vc), (dr, dc) = rxc(valid), rxc(dtile)
        dst = Tile(*rxc(rest[0]), vr, 1) if rest else None
        out.append((name, _case(op, platform, dt, idx, Tile(dr, dc, vr, 1), Tile(*rxc(stile), vr, vc), dst)))
    return tuple(out)


def _col_cases(op: str, platform: str, text: str) -> tuple[tuple[str, Case], ...]:
    out = []
    for name, dt, idx, icols, stile, valid, *rest in _lines(text, op, "a2a3" if platform == "a2a3" else "a5"):
        vr, vc = rxc(valid)
        dst = Tile(1, int(rest[0]), 1, vc) if rest else None
        out.append((name, _case(op, platform, dt, idx, Tile(1, int(icols), 1, vc), Tile(*rxc(stile), vr, vc), dst)))
    return tuple(out)


CPU_SUITE = "TARGREDUCEOPTest"


def _cpu_cases(op: str) -> tuple[tuple[str, Case], ...]:
    axis, what = oracles.OPS[op]
    out = []
    for line in table.CPU.strip().splitlines():
        name, dt, idx, valid, stile, itile, *rest = line.split()
        if not name.startswith((f"case_{axis}_{what}_", f"case_{axis}_val_{what}_")):
            continue
        vr, vc = rxc(valid)
        region = (vr, 1) if axis == "row" else (1, vc)
        dst = Tile(*rxc(rest[0]), *region) if rest else None
        out.append((f"{CPU_SUITE}.{name}",
                    _case(op, "cpu", dt, idx, Tile(*rxc(itile), *region), Tile(*rxc(stile), vr, vc), dst)))
    return tuple(out)


def canonical(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    """The cases of ``op``'s system test on ``platform``: (name after the suite's dot, or the whole name)."""
    if platform == "cpu":
        return _cpu_cases(op)
    if oracles.OPS[op][0] == "row":
        return _row_cases(op, platform, table.ROW_A2A3 if platform == "a2a3" else table.ROW_A5)
    return _col_cases(op, platform, table.COL)  # the kirins run a5's column cases


def spec_tiles(op: str, dt: dtypes.DType, valid: tuple[int, int]) -> tuple[Tile, Tile]:
    """The smallest legal pto-spec source holding ``valid`` and the smallest index destination (int32) pto-spec
    accepts for it."""
    src = Tile(*spec_physical(*valid, dt), *valid)
    i32 = dtypes.get("int32")
    if oracles.OPS[op][0] == "row":
        rows, _ = spec_physical(valid[0], 1, i32)
        return Tile(rows, 1, valid[0], 1), src
    rows = max(1, spec_physical(1, src.cols, i32)[0])
    return Tile(rows, src.cols, 1, valid[1]), src


def spec_case(op: str, dt: str, valid: tuple[int, int], idx: str = DEFAULT_INDEX) -> Case:
    d, s = spec_tiles(op, dtypes.get(dt), valid)
    return _case(op, "spec", dt, idx, d, s, None)


def _spec_union(op: str, lists: Sequence[Sequence[tuple[str, Case]]]) -> tuple[tuple[str, Case], ...]:
    """spec's canonical list: every platform's source valid region and dtype once (those pto-spec takes)."""
    seen: dict[tuple[str, tuple[int, int]], Case] = {}
    for cases in lists:
        for _, c in cases:
            if c.dtype in oracles.SPEC_DTYPES:
                valid = c.tile("src").valid
                seen.setdefault((c.dtype, valid), spec_case(op, c.dtype, valid))
    return tuple((f"case_{c.dtype}_{DEFAULT_INDEX}_{'_'.join(t.token() for _, t in c.tiles[:2])}", c)
                 for c in seen.values())


def _derive(named: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
    """A general name's tiles: the value tile has the index tile's shape."""
    return (("dst_idx", named["dst_idx"]), ("src", named["src"]), ("dst", named["dst_idx"]))


Goldens = Callable[[Case], tuple[tuple[str, str], ...]]


def _goldens(op: str, platform: str) -> Goldens:
    col_npu = platform in NPUS and op == "TCOLARGMAX"

    def goldens(case: Case) -> tuple[tuple[str, str], ...]:
        if not case.param("val"):
            return (("golden.bin", "dst_idx"),)
        if col_npu:  # tcolargmax: the values in golden.bin, the indices in idx.bin
            return (("golden.bin", "dst"), ("idx.bin", "dst_idx"))
        return (("golden.bin", "dst_idx"), ("golden_val.bin", "dst"))
    return goldens


def _profile(op: str, platform: str, suite: str, canonical_cases: Sequence[tuple[str, Case]],
             spelling: Mapping[str, str], note: str) -> Profile:
    """Every platform's layout: the whole source in input.bin, the index golden (and the value golden of the
    value + index form) at the destinations' whole tiles; general names carry the index type and ``_val1``."""
    return Profile(op, platform, suite, (("input.bin", "src"),), (("golden.bin", "dst_idx"),),
                   (("output.bin", "dst_idx"),), ("dst_idx", "src"), False, spelling, canonical=canonical_cases,
                   dtype_param="idx", derive=_derive, param_tokens=(("val", "val"),),
                   golden_for=_goldens(op, platform), note=note, test="targreduceop" if platform == "cpu" else "")


def _profiles(op: str) -> dict[str, Profile]:
    row = oracles.OPS[op][0] == "row"
    out: dict[str, Profile] = {}
    for platform in ("cpu", *NPUS):
        root = platforms.get(platform).test_root
        if platform == "cpu":
            suite, where = f"{op}Test", f"{root}/testcase/targreduceop (all four instructions)"
        else:
            suite = f"{op}Test" if row else ("TCOLCMAXTest" if op == "TCOLARGMAX" else "TCOLCMINTest")
            where = f"{root}/testcase/{op.lower()}"
        out[platform] = _profile(op, platform, suite, Listed(canonical, op, platform), PLAIN,
                                 f"{where}: the goldens hold the {'column' if row else 'row'} written; the input "
                                 "the whole source")
    spec = _profile(op, "spec", f"{op}Spec", Listed(_spec_union, op, [p.canonical for p in out.values()]), {},
                    "ptofuzz full-tile layout; the smallest legal pto-spec descriptors")
    return {"spec": spec, **out}


# ---- cases from the CLI and random ones ------------------------------------------------------------------------

def _build(op: str, platform: str, dt: dtypes.DType, idx: str, src: Tile, val: bool) -> Case:
    if platform == "spec":
        return spec_case(op, dt.name, src.valid, idx)
    if oracles.OPS[op][0] == "row":
        d = Tile(max(src.valid_rows, 1), 1, src.valid_rows, 1)
    else:
        d = Tile(1, src.cols, 1, src.valid_cols)
    return _case(op, platform, dt.name, idx, d, src, d if val else None)


def explicit_case(op: str, sup: Mapping[str, tuple[str, ...]], platform: str, opts: Mapping[str, Any]) -> Case:
    """The case ``--dtype --index-dtype --shape --src`` describe: ``--shape`` the source tile (default: the valid
    region, or the smallest legal descriptor on spec), ``--src`` its valid region (default: the whole tile, or
    16x16); the index form."""
    platform = platforms.canonical(platform)
    dt = dtypes.get(opts.get("dtype") or sup[platform][0])
    idx = dtypes.get(opts.get("index_dtype") or DEFAULT_INDEX).name
    shape, valid = opts.get("shape"), opts.get("src")
    valid = valid or shape or (16, 16)
    if platform == "spec" and not shape:
        return spec_case(op, dt.name, valid, idx)
    shape = shape or whole_rows(valid[0], valid[1], dt)
    if valid[0] > shape[0] or valid[1] > shape[1]:
        raise UsageError(f"--src {valid[0]}x{valid[1]} is larger than the tile {shape[0]}x{shape[1]}")
    return _build(op, platform, dt, idx, Tile(*shape, *valid), False)


def random_case(source: Source, op: str, platform: str, sup: tuple[str, ...], constraints: Mapping[str, Any]
                ) -> Case:
    """A source tile of whole 32-byte rows (spec: a legal descriptor) with a valid region leaning on the edges
    (the whole tile, one row or column, long rows), a 32-bit index (both forms off the spec)."""
    dt = dtypes.get(constraints.get("dtype") or source.choice(sup))
    idx = constraints.get("index_dtype") or source.choice(oracles.SPEC_INDEX)
    per = max(1, 32 // dt.itemsize)
    row = oracles.OPS[op][0] == "row"
    long = float(source.random(1)[0]) < 0.2
    rows = dimension(source, 8 if long and row else 64, 8)
    cols = dimension(source, 1024 if long and row else 128, per)
    shape = constraints.get("shape")
    if shape:
        rows, cols = shape
    val = platform != "spec" and float(source.random(1)[0]) < 0.5
    tile = whole_rows(rows, cols, dt)
    if platform != "spec" and float(source.random(1)[0]) < 0.3:  # a tile larger than its valid region
        tile = (tile[0] + int(source.integers(0, 3)), tile[1] + int(source.integers(0, 3)) * per)
    return _build(op, platform, dt, dtypes.get(idx).name, Tile(*tile, rows, cols), val)


# ---- inputs: ties at the first and last index, NaNs placed --------------------------------------------------------

PLANTS = ("tie-first-last", "nan-first", "nan-last", "all-equal")


def plant(source: Source, case: Case, bits: np.ndarray, rate: float = 0.3) -> np.ndarray:
    """``bits`` (the source, with a leading batch axis) with some reduced lines of the valid region rewritten: the
    extreme copied to the line's first and last index (a tie there), a NaN at its first or last index (float
    types; else the tie), or every element the first's. Vectorised over the lines."""
    dt = dtypes.get(case.dtype)
    r, c = case.tile("src").valid
    out: np.ndarray = bits.copy()
    if r * c == 0:
        return out
    region = out[..., :r, :c]
    lines = region if oracles.OPS[case.op][0] == "row" else np.swapaxes(region, -1, -2)  # a view: writes land
    n = lines.shape[-1]
    shape = lines.shape[:-1]
    what = source.integers(0, 2 * len(PLANTS) - 1, int(np.prod(shape))).reshape(shape)  # half the lines untouched
    ext, _ = value_oracles.reduce_bits(oracles.OPS[case.op][1], lines, dt)
    nan = np.array(dt.canonical_nan if dt.is_float else 0, bits.dtype)
    tie = (what == 0) | (~np.bool_(dt.is_float) & ((what == 1) | (what == 2)))
    lines[..., 0] = np.where(tie, ext, lines[..., 0])
    lines[..., n - 1] = np.where(tie, ext, lines[..., n - 1])
    if dt.is_float:
        lines[..., 0] = np.where(what == 1, nan, lines[..., 0])
        lines[..., n - 1] = np.where(what == 2, nan, lines[..., n - 1])
    lines[...] = np.where((what == 3)[..., None], lines[..., :1], lines)
    return out


def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """The source bits over its whole tile (an implementation must not read outside the valid region), ties and
    NaNs planted in some lines."""
    bits = values.draw(source, dtypes.get(case.dtype), case.tile("src").shape, mix)
    return {"src": plant(source, case, bits[None])[0]}


def draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    r, c = case.tile("src").shape
    bits = values.draw(source, dtypes.get(case.dtype), (n * r * c,), mix).reshape(n, r, c)
    return {"src": plant(source, case, bits)}


def replay_flags(case: Case) -> str:
    s = case.tile("src")
    return f" --index-dtype {case.param('idx') or DEFAULT_INDEX} --shape {s.rows}x{s.cols} " \
           f"--src {s.valid_rows}x{s.valid_cols}"


def geometry_class(case: Case) -> str:
    """``nodesc`` (a tile pto-spec cannot describe), else whether the source valid region is its whole tile and
    whether it is one element wide along the reduced axis, and ``val`` for the value + index form."""
    s = case.tile("src")
    if 0 in s.valid:
        return "empty"
    dt = dtypes.get(case.dtype)
    if any(descriptors.problem(t, dt, max_bytes=descriptors.SHARED_MAX) for r, t in case.tiles if r == "src"):
        return "nodesc"
    inner = s.valid_cols if oracles.OPS[case.op][0] == "row" else s.valid_rows
    return f"{'full' if s.valid == s.shape else 'part'},{'single' if inner == 1 else 'many'}" + \
        (",val" if case.param("val") else "")


def fault_class(case: Case) -> str:
    """For a fault against a value: which pto-spec rule the case breaks (``dtype``: an element type pto-spec
    does not take, ``val``: the value + index form, ``nodesc``: a tile that is no legal descriptor, ``empty``,
    ``dst``: the destination's shape or index type), or ``spec-legal``."""
    if case.dtype not in oracles.SPEC_DTYPES:
        return "dtype"
    why = oracles.spec_problem(case)
    if not why:
        return "spec-legal"
    if why.startswith("pto-spec's arg reductions write one"):
        return "val"
    if why.startswith(("dst_idx:", "src:")):
        return "nodesc"
    return "empty" if why.startswith("an empty") else "dst"


def known_difference(sig: Signature) -> str | None:
    """pto-spec faults on geometries and forms pto-isa's pages accept (a fault against a value whose case is
    not spec-legal)."""
    a, b = sig.oracles()
    if sig.kind == "fault-vs-value" and "spec" in (a, b) and sig.geometry != "spec-legal":
        return ("pto-spec faults on tiles that are no legal descriptor, on an empty source region, on 16-bit "
                "indices and has no value + index form; pto-isa's pages accept any tile, 16-bit indices (A2A3, "
                "A5 value + index forms) and the value + index form")
    return None


def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The instructions named (all by default), in :data:`NAMES` order."""
    out = []
    for op in (o for o in NAMES if o in names):
        sup = shared.supported(oracles.SPEC_DTYPES, DTYPES[op])
        axis, what = oracles.OPS[op]
        formula = (f"dst_idx[i,0] = arg{what}_j src[i,j]" if axis == "row" else f"dst_idx[0,j] = arg{what}_i src[i,j]")
        notes = f"docs/isa/{op}.md: {formula} (value + index form: dst = the {what}); a tie for the {what}, a NaN " \
                "in the line leave the index undefined"
        support = shared.platform_support(sup, _profiles(op), oracles, notes,
                                          "the first index of the extreme; NaNs passed over; indices only")
        random, explicit = shared.case_makers(op, sup, random_case, explicit_case)

        out.append(Instruction(
            name=op, family="reduce-and-expand",
            summary=f"{'row' if axis == 'row' else 'column'} arg{what}: {formula} over the valid region",
            inputs=("src",), outputs=("dst_idx", "dst"), platforms=support,
            random_case=random, explicit_case=explicit, draw_inputs=draw_inputs,
            role_dtype_params={"dst_idx": ("idx", DEFAULT_INDEX)}, index_roles=("dst_idx",),
            options=("dtype", "index_dtype", "shape", "src"), random_options=("dtype", "index_dtype", "shape"),
            option_choices={"index_dtype": INDEX_DTYPES}, replay_flags=replay_flags,
            draw_batch=draw_batch, geometry_class=geometry_class, fault_class=fault_class,
            known_difference=known_difference, redraw=redraw, bundle=True,
            illegal_case=shared.illegal_maker(axis, "dst_idx", random)))
    return out


def redraw(items: list[tuple[Source, Case, dict[str, np.ndarray], Any]]) -> list[Any]:
    """Where the data left a valid result open (a tie for the extreme, a NaN, an NPU's subnormals), plain values
    (:func:`values.plain`: no NaN, zero or subnormal; magnitudes below 8, integers in [-8, 7] or [0, 15]) over
    the source's valid region with one element of each reduced line made its unique extreme (16 or -16, 8 or -9;
    unsigned: 16, or 0 above values raised by one), then the case again: a golden then pins every valid index,
    which pto-isa's own comparison needs (it cannot honour a placeholder)."""
    def fill(source: Source, case: Case, inputs: Mapping[str, np.ndarray], _r: np.ndarray, _c: np.ndarray
             ) -> dict[str, np.ndarray]:
        dt = dtypes.get(case.dtype)
        r, c = case.tile("src").valid
        row, most = oracles.OPS[case.op][0] == "row", oracles.OPS[case.op][1] == "max"
        plain = values.plain(source, dt, r * c).reshape(r, c)
        lines, length = (r, c) if row else (c, r)
        at = (source.integers(0, max(length - 1, 0), lines) if length else np.zeros(0)).astype(np.intp)
        if dt.is_float:
            from ptofuzz.oracles import ieee

            extreme = ieee.from_float64(np.array([16.0 if most else -16.0]), dt)[0]
        elif dt.kind == "uint":
            if not most:
                plain = plain + np.ones_like(plain)
            extreme = np.array([16 if most else 0], dtype=dt.bits_dtype)[0]
        else:
            extreme = np.array([8 if most else -9], dtype=np.int64).astype(dt.bits_dtype)[0]
        lanes = np.arange(lines)
        if row:
            plain[lanes, at] = extreme
        else:
            plain[at, lanes] = extreme
        bits = inputs["src"].copy()
        bits[..., :r, :c] = plain
        return {"src": bits}

    return redraws.where_open(items, fill, "dst_idx")
