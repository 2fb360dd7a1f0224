"""The value reductions TROWMAX, TROWMIN, TCOLMAX, TCOLMIN: capabilities, layouts and canonical cases per
platform.

Facts from pto-isa 3186c381 (``docs/isa/T{ROW,COL}{MAX,MIN}.md``: dtypes per implementation and the runtime
checks; ``include/pto/cpu/T{Row,Col}{Max,Min}.hpp``; the system tests ``tests/{cpu/st,npu/<plat>/src/st}/testcase/
t{row,col}{max,min}/``: case names, tile shapes, valid regions and file layouts) and pto-spec 0.58.3
(``ExecuteTileReduction``). Semantics live in ``oracles/reduce.py``.

A case has a source tile and a destination tile. A row reduction's destination is modelled as the column it
writes: ``(rows) x 1`` with valid region ``(source valid rows) x 1``; a column reduction's as the row it writes:
``1 x (columns)`` with valid region ``1 x (source valid columns)`` (what every system test's golden file holds;
the kernels' own destination tiles are wider and copied out through that region). Each test's cases are listed
whole: ``name dtype dst-tile dst-valid src-tile src-valid``.
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
from ptofuzz.instructions import redraws
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import descriptors
from ptofuzz.oracles import reduce as oracles

if TYPE_CHECKING:
    from ptofuzz.core.signature import Signature

NAMES = ("TROWMAX", "TROWMIN", "TCOLMAX", "TCOLMIN")  # registry.MODULES lists the same, in this order
ROLES = ("dst", "src")
PLAIN = {"float32": "float", "float16": "half", "bfloat16": "bf16"}  # others: numpy names (int16, uint32...)
NPUS = ("a2a3", "a5", "kirin9030", "kirinDev0000")

# ---- dtype capabilities ------------------------------------------------------------------------------------
# NPUs: docs/isa/<OP>.md "implementation checks" (kirin runs a5's headers). cpu: the system tests' types; the
# row reductions and TCOLMIN are templates over the element type (int16/int32 compile too); TColMax.hpp's
# CheckCMValid static_assert admits only bf16, f16, f32, s8, u8 destinations of the source's type.
_CPU_BASE = ("float32", "float16", "bfloat16", "int8", "uint8")
_ROW_A5_DT = ("float32", "float16", "int32", "int64", "uint64", "int16", "int8", "uint8")
_COL_A5_DT = ("float32", "float16", "bfloat16", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
              "uint64")
DTYPES: dict[str, dict[str, tuple[str, ...]]] = {
    "TROWMAX": {"cpu": (*_CPU_BASE, "int32", "int16"), "a2a3": ("float32", "float16", "int32", "int16"),
                "a5": _ROW_A5_DT},
    "TROWMIN": {"cpu": (*_CPU_BASE, "int32", "int16"), "a2a3": ("float32", "float16", "int32", "int16"),
                "a5": _ROW_A5_DT},
    "TCOLMAX": {"cpu": _CPU_BASE, "a2a3": ("float32", "float16", "int16", "int32"), "a5": _COL_A5_DT},
    "TCOLMIN": {"cpu": (*_CPU_BASE, "int32", "int16"), "a2a3": ("float32", "float16", "int16", "int32"),
                "a5": _COL_A5_DT},
}

# ---- canonical cases ------------------------------------------------------------------------------------------
_CPU_ROW = """
    case_float_64x64_64x64_64x64 float32 64x1 64x1 64x64 64x64
    case_half_64x64_64x64_64x64 float16 64x1 64x1 64x64 64x64
    case_bf16_64x64_64x64_64x64 bfloat16 64x1 64x1 64x64 64x64
    case_half_161x161_32x32_161x161 float16 32x1 32x1 32x32 32x32 161x161
    case_float_77x81_32x16_77x81 float32 32x1 32x1 32x16 32x16 77x81
    case_float_32x32_32x16_32x32 float32 32x1 32x1 32x16 32x16
    case_int8_64x64_64x64_64x64 int8 64x1 64x1 64x64 64x64
    case_uint8_64x64_64x64_64x64 uint8 64x1 64x1 64x64 64x64
    """
_CPU_COLMAX = """
    case_float_64x64_64x64_64x64 float32 1x64 1x64 64x64 64x64
    case_half_16x256_16x256_16x256 float16 1x256 1x256 16x256 16x256
    case_bf16_16x256_16x256_16x256 bfloat16 1x256 1x256 16x256 16x256
    case_int8_64x64_64x64_64x64 int8 1x64 1x64 64x64 64x64
    case_uint8_64x64_64x64_64x64 uint8 1x64 1x64 64x64 64x64
    """
_CPU_COLMIN = """
    case_float_64x64_64x64_64x64 float32 1x64 1x64 64x64 64x64
    case_half_64x64_64x64_64x64 float16 1x64 1x64 64x64 64x64
    case_bf16_64x64_64x64_64x64 bfloat16 1x64 1x64 64x64 64x64
    case_float_32x32_32x16_32x32 float32 1x16 1x16 32x16 32x16
    case_int8_64x64_64x64_64x64 int8 1x64 1x64 64x64 64x64
    case_uint8_64x64_64x64_64x64 uint8 1x64 1x64 64x64 64x64
    """
Rows6 = tuple[tuple[str, str, int, int, int, int], ...]
# a2a3 and a5 row reductions: (name, dtype, rows, valid rows, cols, valid cols) of gen_data.py's TRowMaxParams
_ROW_NPU: Rows6 = (
    ("case1", "float32", 127, 127, 64, 63), ("case2", "float32", 63, 63, 64, 64),
    ("case3", "float32", 31, 31, 128, 127), ("case4", "float32", 15, 15, 192, 192),
    ("case5", "float32", 7, 7, 448, 447), ("case6", "float16", 256, 256, 16, 15),
    ("case7", "float32", 30, 30, 216, 216), ("case8", "float32", 30, 30, 216, 24),
    ("case9", "float32", 30, 11, 216, 216), ("case10", "float32", 30, 11, 216, 24),
    ("case11", "float32", 238, 238, 40, 40), ("case12", "float32", 238, 238, 40, 16),
    ("case13", "float32", 238, 121, 40, 40), ("case14", "float32", 238, 121, 40, 16),
    ("case15", "float32", 64, 64, 128, 128), ("case16", "float32", 32, 32, 256, 256),
    ("case17", "float32", 16, 16, 512, 512), ("case18", "float32", 8, 8, 1024, 1024),
    ("case19", "int32", 127, 127, 64, 63), ("case20", "int32", 63, 63, 64, 64),
    ("case21", "int32", 31, 31, 128, 127), ("case22", "int32", 15, 15, 192, 192),
    ("case23", "int32", 7, 7, 448, 447), ("case24", "int16", 128, 128, 64, 64),
    ("case25", "int16", 64, 64, 64, 64), ("case26", "int16", 32, 32, 128, 128),
    ("case27", "int16", 16, 16, 192, 192), ("case28", "int16", 8, 8, 448, 448),
)
_ROW_A5_64: Rows6 = (("case_int64_4x16", "int64", 4, 4, 16, 15), ("case_uint64_4x16", "uint64", 4, 4, 16, 15))
_ROW_KIRIN: Rows6 = (
    *_ROW_NPU[:6],
    ("case7", "float32", 64, 64, 128, 128), ("case8", "float32", 32, 32, 256, 256),
    ("case9", "float32", 16, 16, 512, 512), ("case10", "float32", 8, 8, 1024, 1024),
    ("case11", "int32", 63, 63, 64, 64), ("case12", "int16", 15, 15, 192, 192),
    ("case13", "float16", 64, 64, 128, 128), ("case14", "int32", 32, 32, 256, 256),
    ("case15", "int16", 16, 16, 512, 512),
)
# a2a3 column reductions: (name, dtype, cols, rows, valid rows); the input file holds the valid rows only
_COL_A2A3: tuple[tuple[str, str, int, int, int], ...] = (
    ("case1", "int16", 16, 16, 8), ("case2", "int32", 16, 16, 8), ("case3", "float32", 16, 16, 8),
    ("case4", "int16", 128, 16, 8), ("case5", "int32", 64, 16, 8), ("case6", "float32", 64, 16, 8),
    ("case7", "int16", 512, 16, 8), ("case8", "int32", 256, 16, 8), ("case9", "float32", 256, 16, 8),
    ("case10", "int16", 512, 16, 7), ("case11", "int32", 256, 32, 31), ("case12", "float32", 256, 32, 31),
    ("case13", "float32", 256, 16, 1),
)
# a5 and kirin column reductions: (name, dtype, rows, valid rows, cols, valid cols); whole-tile files
_COL_A5_SHAPES = ((1, 1, 256, 255), (16, 16, 128, 127), (16, 15, 256, 255))
_COL_A5: Rows6 = tuple((f"case{k}{j + 1}", dt, *shape)
                for k, dt in enumerate(("float32", "float16", "int8", "uint8", "int16", "uint16", "int32", "uint32"))
                for j, shape in enumerate(_COL_A5_SHAPES))
_COL_A5_64: Rows6 = (("case_int64_4x16", "int64", 4, 4, 16, 16), ("case_uint64_4x16", "uint64", 4, 4, 16, 16))


def rxc(token: str) -> tuple[int, int]:
    """``"RxC"`` as (R, C)."""
    r, c = token.split("x")
    return int(r), int(c)


def _listed(op: str, text: str) -> tuple[tuple[str, Case], ...]:
    """cpu lines: ``name dtype dst-tile dst-valid src-tile src-valid [global shape]``. The kernel of a case with
    a global shape larger than its tile loads one tile of it (the golden holds that tile's result); the shape is
    kept as the ``gm`` param, since two cases differ in it alone."""
    out = []
    for line in text.strip().splitlines():
        name, dt, dtile, dvalid, stile, svalid, *gm = line.split()
        params = (("gm", gm[0]),) if gm else ()
        out.append((name, Case(op, "cpu", dt, (("dst", Tile(*rxc(dtile), *rxc(dvalid))),
                                               ("src", Tile(*rxc(stile), *rxc(svalid)))), params)))
    return tuple(out)


def row_case(op: str, platform: str, dt: str, src: Tile, dst_rows: int | None = None) -> Case:
    """A row reduction: the destination is the column it writes (``dst_rows`` rows, default the valid ones)."""
    rows = src.valid_rows if dst_rows is None else dst_rows
    return Case(op, platform, dt, (("dst", Tile(max(rows, 1), 1, src.valid_rows, 1)), ("src", src)))


def col_case(op: str, platform: str, dt: str, src: Tile, dst_rows: int = 1) -> Case:
    """A column reduction: the destination is the row it writes, the source's physical columns."""
    return Case(op, platform, dt, (("dst", Tile(dst_rows, src.cols, 1, src.valid_cols)), ("src", src)))


def canonical(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    """The cases of ``op``'s system test on ``platform``: (name after the suite's dot, case)."""
    row = oracles.OPS[op][0] == "row"
    if platform == "cpu":
        return _listed(op, _CPU_ROW if row else _CPU_COLMAX if op == "TCOLMAX" else _CPU_COLMIN)
    if row:
        rows = {"a2a3": _ROW_NPU, "a5": _ROW_NPU + _ROW_A5_64}.get(platform, _ROW_KIRIN)
        return tuple((name, row_case(op, platform, dt, Tile(r, c, vr, vc))) for name, dt, r, vr, c, vc in rows)
    if platform == "a2a3":
        return tuple((name, col_case(op, platform, dt, Tile(r, c, vr, c))) for name, dt, c, r, vr in _COL_A2A3)
    cols = _COL_A5 + (_COL_A5_64 if platform == "a5" else ())
    return tuple((name, col_case(op, platform, dt, Tile(r, c, vr, vc))) for name, dt, r, vr, c, vc in cols)


def spec_tiles(op: str, dt: dtypes.DType, valid: tuple[int, int]) -> tuple[Tile, Tile]:
    """The smallest legal pto-spec source holding ``valid`` and the smallest destination pto-spec accepts for it."""
    src = Tile(*spec_physical(*valid, dt), *valid)
    if oracles.OPS[op][0] == "row":
        rows, _ = spec_physical(valid[0], 1, dt)
        return Tile(rows, 1, valid[0], 1), src
    rows = max(1, spec_physical(1, src.cols, dt)[0])
    return Tile(rows, src.cols, 1, valid[1]), src


def _spec_union(op: str, lists: Sequence[Sequence[tuple[str, Case]]]) -> tuple[tuple[str, Case], ...]:
    """spec's canonical list: every platform's source valid region and dtype once (those pto-spec takes)."""
    seen: dict[tuple[str, tuple[int, int]], Case] = {}
    for cases in lists:
        for _, c in cases:
            if c.dtype not in oracles.SPEC_DTYPES:
                continue
            valid = c.tile("src").valid
            d, s = spec_tiles(op, dtypes.get(c.dtype), valid)
            seen.setdefault((c.dtype, valid), Case(op, "spec", c.dtype, (("dst", d), ("src", s))))
    return tuple((f"case_{c.dtype}_{'_'.join(t.token() for _, t in c.tiles)}", c) for c in seen.values())


def _profiles(op: str) -> dict[str, Profile]:
    golden = (("golden.bin", "dst"),)
    output = (("output.bin", "dst"),)
    suite = f"{op}Test"
    row = oracles.OPS[op][0] == "row"
    out: dict[str, Profile] = {}
    for platform in ("cpu", *NPUS):
        root = platforms.get(platform).test_root
        compact = platform == "a2a3" and not row  # a2a3's column tests write the valid rows only
        infile = "input1.bin" if platform == "cpu" and op != "TCOLMAX" else "input.bin"
        out[platform] = Profile(
            op, platform, suite, ((infile, "src"),), golden, output, ROLES, compact=compact, spelling=PLAIN,
            canonical=Listed(canonical, op, platform),
            note=f"{root}/testcase/{op.lower()}: the golden holds the {'column' if row else 'row'} written; "
                 f"{'the input holds the valid rows' if compact else 'the input holds the whole source tile'}")
    spec = Profile(op, "spec", f"{op}Spec", (("input.bin", "src"),), golden, output, ROLES, compact=False,
                   spelling={}, canonical=Listed(_spec_union, op, [p.canonical for p in out.values()]),
                   note="ptofuzz full-tile layout; the smallest legal pto-spec descriptors")
    return {"spec": spec, **out}


# ---- cases from the CLI and random ones ------------------------------------------------------------------------

def explicit_case(op: str, sup: Mapping[str, tuple[str, ...]], platform: str, opts: Mapping[str, Any]) -> Case:
    """The case ``--dtype --shape --src`` describe: ``--shape`` the source tile (default: the valid region, or
    the smallest legal descriptor on spec), ``--src`` its valid region (default: the whole tile, or 16x16)."""
    platform = platforms.canonical(platform)
    dt = dtypes.get(opts.get("dtype") or sup[platform][0])
    shape, valid = opts.get("shape"), opts.get("src")
    valid = valid or shape or (16, 16)
    if platform == "spec" and not shape:
        d, s = spec_tiles(op, dt, valid)
        return Case(op, platform, dt.name, (("dst", d), ("src", s)))
    shape = shape or whole_rows(valid[0], valid[1], dt)
    if valid[0] > shape[0] or valid[1] > shape[1]:
        raise UsageError(f"--src {valid[0]}x{valid[1]} is larger than the tile {shape[0]}x{shape[1]}")
    src = Tile(*shape, *valid)
    if oracles.OPS[op][0] == "row":
        return row_case(op, platform, dt.name, src, spec_tiles(op, dt, valid)[0].rows if platform == "spec" else None)
    return col_case(op, platform, dt.name, src)


def random_case(source: Source, op: str, platform: str, sup: tuple[str, ...], constraints: Mapping[str, Any]
                ) -> Case:
    """A source tile of whole 32-byte rows (spec: a legal descriptor) with a valid region leaning on the edges:
    the whole tile, one row or column, long rows (up to 1024 elements); empty now and then off the spec."""
    dt = dtypes.get(constraints.get("dtype") or source.choice(sup))
    per = max(1, 32 // dt.itemsize)
    row = oracles.OPS[op][0] == "row"
    long = float(source.random(1)[0]) < 0.2
    rows = dimension(source, 8 if long and row else 64, 8)
    cols = dimension(source, 1024 if long and row else 128, per)
    shape = constraints.get("shape")
    if shape:
        rows, cols = shape
    if platform == "spec":
        d, s = spec_tiles(op, dt, (rows, cols))
        return Case(op, platform, dt.name, (("dst", d), ("src", s)))
    tile = whole_rows(rows, cols, dt)
    vr, vc = rows, cols
    roll = float(source.random(1)[0])
    if roll < 0.05 and not row:
        vr, vc = (0, cols) if float(source.random(1)[0]) < 0.5 else (rows, 0)
    elif roll < 0.3:  # a tile larger than its valid region
        tile = (tile[0] + int(source.integers(0, 3)), tile[1] + int(source.integers(0, 3)) * per)
    src = Tile(*tile, vr, vc)
    return row_case(op, platform, dt.name, src) if row else col_case(op, platform, dt.name, src)


def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """The source bits over its whole tile (an implementation must not read outside the valid region)."""
    return {"src": values.draw(source, dtypes.get(case.dtype), case.tile("src").shape, mix)}


def draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    r, c = case.tile("src").shape
    return {"src": values.draw(source, dtypes.get(case.dtype), (n * r * c,), mix).reshape(n, r, c)}


def replay_flags(case: Case) -> str:
    s = case.tile("src")
    return f" --shape {s.rows}x{s.cols} --src {s.valid_rows}x{s.valid_cols}"


def geometry_class(case: Case) -> str:
    """``empty`` (no valid source element), ``rows>65535`` (a column reduction of more valid rows than 16 bits
    count), ``nodesc`` (a tile pto-spec cannot describe), else whether the
    source valid region is its whole tile and whether it is one element wide along the reduced axis."""
    s = case.tile("src")
    if 0 in s.valid:
        return "empty"
    if oracles.OPS[case.op][0] == "col" and s.valid_rows > 0xFFFF:  # more rows than a uint16_t counts
        return "rows>65535"
    dt = dtypes.get(case.dtype)
    if any(descriptors.problem(t, dt, max_bytes=descriptors.SHARED_MAX) for _, t in case.tiles):
        return "nodesc"
    inner = s.valid_cols if oracles.OPS[case.op][0] == "row" else s.valid_rows
    return f"{'full' if s.valid == s.shape else 'part'},{'single' if inner == 1 else 'many'}"


def fault_class(case: Case) -> str:
    """For a fault against a value: which pto-spec rule the geometry breaks (``nodesc``: a tile that is no legal
    descriptor, ``empty``: an empty source region, ``dst``: the destination's shape, ``dtype``: an element type
    pto-spec does not take), or ``spec-legal``."""
    if case.dtype not in oracles.SPEC_DTYPES:
        return "dtype"
    why = oracles.spec_problem(case)
    if not why:
        return "spec-legal"
    if why.startswith(("dst:", "src:")):
        return "nodesc"
    return "empty" if why.startswith("an empty") else "dst"


def known_difference(sig: Signature) -> str | None:
    """pto-spec faults on geometries pto-isa's pages accept (a fault against a value whose geometry is not
    spec-legal): tiles that are no legal descriptor, an empty source of a column reduction (the pages: an early
    return)."""
    a, b = sig.oracles()
    if sig.kind == "fault-vs-value" and "spec" in (a, b) and sig.geometry != "spec-legal":
        return ("pto-spec faults on tiles that are no legal descriptor (power-of-two columns, 128 B * 2**k) and on "
                "an empty source region and takes no 64-bit elements; pto-isa's pages accept any tile and return "
                "early on an empty column reduction")
    return None


def supported(spec: tuple[str, ...], pages: Mapping[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """Element types per platform: pto-spec's, the pages' per platform (``cpu``, ``a2a3``, ``a5``), the kirins
    a5's."""
    return {"spec": spec, **pages, "kirin9030": pages["a5"], "kirinDev0000": pages["a5"]}


def platform_support(sup: Mapping[str, tuple[str, ...]], profiles: Mapping[str, Profile], models: Any, notes: str,
                     spec_notes: str) -> dict[str, PlatformSupport]:
    """The registry's platforms of a reduction whose oracle module ``models`` has ``spec``, ``cpu`` and ``npu``
    (one for every NPU; subnormal effects left open there, the kirins running a5's headers)."""
    return {
        "spec": PlatformSupport(sup["spec"], models.spec, profiles["spec"], bad_dtype="fault", has_system_test=False,
                                notes=spec_notes),
        "cpu": PlatformSupport(sup["cpu"], models.cpu, profiles["cpu"], notes=notes),
        **{p: PlatformSupport(sup[p], models.npu, profiles[p], notes=notes + "; subnormal effects undefined" +
                              ("" if p in ("a2a3", "a5") else "; a5's headers"))
           for p in NPUS},
    }


def illegal_maker(axis: str, dst: str, random: Callable[[Source, str, Mapping[str, Any]], Case]
                  ) -> Callable[[Source, Mapping[str, Any]], Case]:
    """The registry's ``illegal_case`` of a row (``axis`` "row") or column reduction whose destination role is
    ``dst``: a legal spec case from ``random`` with an empty source valid region, no rows or no columns
    (``TileOperandsLegal_ExecuteTileReduction``: LB0 nonzero). The destination keeps the shape the source gives it
    (a row reduction's ``valid rows x 1``, a column reduction's ``1 x valid columns``), as a bundle derives it: a
    destination of another shape has no bundle spelling, so no oracle but the spec model could run it."""
    def illegal(source: Source, constraints: Mapping[str, Any]) -> Case:
        case = random(source, "spec", constraints)
        s, d = case.tile("src"), case.tile(dst)
        no_rows = float(source.random(1)[0]) < 0.5
        s = Tile(s.rows, s.cols, *((0, s.valid_cols) if no_rows else (s.valid_rows, 0)))
        d = Tile(d.rows, d.cols, *((s.valid_rows, 1) if axis == "row" else (1, s.valid_cols)))
        tiles = tuple((r, s if r == "src" else d if r == dst else t) for r, t in case.tiles)
        return case.replace(tiles=tiles)

    return illegal


def case_makers(op: str, sup: Mapping[str, tuple[str, ...]], random_case: Callable[..., Case],
                explicit_case: Callable[..., Case]) -> tuple[Callable[..., Case], Callable[..., Case]]:
    """The registry's ``random_case`` and ``explicit_case`` of ``op`` from a module's
    ``random_case(source, op, platform, dtypes, constraints)`` and ``explicit_case(op, sup, platform, opts)``."""
    def random(source: Source, platform: str, constraints: Mapping[str, Any]) -> Case:
        canon = platforms.canonical(platform)
        return random_case(source, op, canon, sup[canon], constraints)

    def explicit(platform: str, opts: Mapping[str, Any]) -> Case:
        return explicit_case(op, sup, platform, opts)

    return random, explicit


def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The instructions named (all by default), in :data:`NAMES` order."""
    out = []
    for op in (o for o in NAMES if o in names):
        sup = supported(oracles.SPEC_DTYPES, DTYPES[op])
        axis, what = oracles.OPS[op]
        formula = (f"dst[i,0] = {what}_j src[i,j]" if axis == "row" else f"dst[0,j] = {what}_i src[i,j]")
        notes = f"docs/isa/{op}.md: {formula} over src's valid region; a NaN makes the result undefined, a zero " \
                "of mixed-sign zeros some zero"
        support = platform_support(sup, _profiles(op), oracles, notes,
                                   "NaNs passed over (all NaN: canonical NaN), max(+0,-0) = +0, min -0")
        random, explicit = case_makers(op, sup, random_case, explicit_case)
        out.append(Instruction(
            name=op, family="reduce-and-expand",
            summary=f"{'row' if axis == 'row' else 'column'} {what}: {formula} over the valid region",
            inputs=("src",), outputs=("dst",), platforms=support,
            random_case=random, explicit_case=explicit, draw_inputs=draw_inputs,
            options=("dtype", "shape", "src"), random_options=("dtype", "shape"), replay_flags=replay_flags,
            draw_batch=draw_batch, geometry_class=geometry_class, fault_class=fault_class,
            known_difference=known_difference, redraw=redraw, bundle=True,
            illegal_case=illegal_maker(axis, "dst", random)))
    return out


def redraw(items: list[tuple[Source, Case, dict[str, np.ndarray], Any]]) -> list[Any]:
    """Where the data left a valid result open (a NaN in the reduction, mixed-sign zeros, an NPU's subnormals),
    plain values (:func:`values.plain`: no NaN, zero or subnormal) over the source's valid region, then the case
    again: a golden then pins every valid element, which pto-isa's own comparison needs (it cannot honour a
    placeholder)."""
    def fill(source: Source, case: Case, inputs: Mapping[str, np.ndarray], _r: np.ndarray, _c: np.ndarray
             ) -> dict[str, np.ndarray]:
        bits = inputs["src"].copy()
        r, c = case.tile("src").valid
        bits[..., :r, :c] = values.plain(source, dtypes.get(case.dtype), r * c).reshape(r, c)
        return {"src": bits}

    return redraws.where_open(items, fill)
