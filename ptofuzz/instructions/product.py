"""The ordered product reductions TROWPROD and TCOLPROD: capabilities, layouts, canonical cases and inputs per
platform.

Facts from pto-isa 3186c381 (``docs/isa/T{ROW,COL}PROD.md``: the dtypes each implementation checks; the system
tests ``tests/{cpu/st,npu/<plat>/src/st}/testcase/t{row,col}prod/``: case lists from each ``gen_data.py`` and
``main.cpp``/kernel, files as ``../shared/reference/pto-isa-st-catalog.json`` lists them) and pto-spec 0.58
(``asl/tile/reduce-and-expand/``). The evaluation order of each platform lives in ``oracles/product.py``; random
geometries and the values that make order matter in ``generators/product.py``. The shapes are the sums'
(:mod:`ptofuzz.instructions.ordered`): TROWPROD's destination holds one product per valid source row in column 0,
TCOLPROD's one per valid column in row 0.

cpu: ``include/pto/cpu/TRowProd.hpp`` and ``TColProd.hpp`` check no element type; the cpu dtypes are the cpu
test's (float, half, bfloat16) and the types the pages list for the devices. TCOLPROD has no cpu system test
(``tests/cpu/st/testcase/tcolprod`` is a unit test of int32 values, without data files).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Listed, Profile, whole_rows
from ptofuzz.generators import product as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.instructions import ordered as sums
from ptofuzz.instructions import reduce as shared
from ptofuzz.instructions.ordered import PLAIN, ROLES, _at, _trowsum_npu
from ptofuzz.instructions.registry import Instruction
from ptofuzz.oracles import ieee
from ptofuzz.oracles import product as oracles

if TYPE_CHECKING:
    from ptofuzz.core.signature import Signature

NAMES = ("TROWPROD", "TCOLPROD")  # registry.MODULES lists the same, in this order
REPEAT = "repeat"  # a case the test draws again with the same geometry (a2a3's case18 is case16's)
PLATFORMS = ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")
_DEVICE = ("float32", "float16", "int32", "int16")
DTYPES: dict[str, dict[str, tuple[str, ...]]] = {
    # a2a3/a5: docs/isa/T{ROW,COL}PROD.md's implementation checks (a2a3/TRowProd.hpp:69-70, a5/TRowProd.hpp:27-30,
    # a2a3/TColReduceOps.hpp:87-89, a5/TColProd.hpp:42-46); cpu: see the module docstring
    "TROWPROD": {"spec": oracles.SPEC_DTYPES, "cpu": ("float32", "float16", "bfloat16", "int32", "int16"),
                 "a2a3": _DEVICE, "a5": _DEVICE},
    "TCOLPROD": {"spec": oracles.SPEC_DTYPES,
                 "cpu": ("float32", "float16", "bfloat16", "int32", "uint32", "int16", "uint16"),
                 "a2a3": _DEVICE,
                 "a5": ("float32", "float16", "bfloat16", "int32", "uint32", "int16", "uint16")},
}

# a2a3 TROWPROD: name dtype dst_rows src_rows valid_rows src_cols valid_cols (gen_data.py's TRowProdParams)
_TROWPROD_A2A3 = """
    case1 float32 8 1 1 8 8
    case2 float32 8 1 1 16 16
    case3 float32 8 1 1 128 128
    case4 float32 8 1 1 8 5
    case5 float32 8 1 1 16 11
    case6 float32 8 3 2 8 8
    case7 float32 8 3 2 24 16
    case8 float32 8 4 3 16 9
    case9 float16 16 1 1 16 16
    case10 float16 32 26 19 32 26
    case11 int32 8 1 1 8 8
    case12 int32 8 1 1 16 16
    case13 int32 8 1 1 128 128
    case14 int32 8 1 1 8 5
    case15 int32 8 3 2 24 16
    case16 int16 16 1 1 16 16
    case17 int16 32 26 19 32 32
    case18 int16 16 1 1 16 16
"""
# a5 (kirin9030, kirinDev0000 the same): name dtype rows cols valid_rows valid_cols (as TROWSUM's lists)
_TROWPROD_A5 = """
    case1 float32 127 64 127 63
    case2 float32 63 64 63 64
    case3 float32 31 128 31 127
    case4 float32 15 192 15 192
    case5 float32 7 448 7 447
    case6 float16 256 16 256 15
    case7 float32 64 128 64 128
    case8 float32 32 256 32 256
    case9 float32 16 512 16 512
    case10 float32 8 1024 8 1024
    case11 int32 127 64 127 63
    case12 int32 63 64 63 64
    case13 int32 31 128 31 127
    case14 int32 15 192 15 192
    case15 int32 7 448 7 447
    case16 int16 256 16 256 15
    case17 int16 63 64 63 64
    case18 int16 31 128 31 127
"""
# a2a3 TCOLPROD: dtype cols src_rows valid_rows (case1..16); its script writes the valid rows only
_TCOLPROD_A2A3 = [("int16", 16, 16, 8), ("int32", 16, 16, 8), ("float32", 16, 16, 8), ("int16", 128, 16, 8),
                  ("int32", 64, 16, 8), ("float32", 64, 16, 8), ("int16", 512, 16, 8), ("int32", 256, 16, 8),
                  ("float32", 256, 16, 8), ("int16", 512, 16, 7), ("int32", 256, 32, 31), ("float32", 256, 32, 31),
                  ("float32", 256, 16, 1), ("float16", 256, 1, 1), ("float16", 64, 5, 3), ("float16", 16, 8, 4)]
# a5 TCOLPROD (kirin the same): name dtype rows valid_rows cols valid_cols
_TCOLPROD_A5 = """
    case01 float32 1 1 256 255
    case02 float32 16 16 128 127
    case03 float32 16 15 256 255
    case41 int16 1 1 256 255
    case42 int16 16 16 128 127
    case43 int16 16 15 256 255
    case51 uint16 1 1 256 255
    case52 uint16 16 16 128 127
    case53 uint16 16 15 256 255
    case61 int32 1 1 256 255
    case62 int32 16 16 128 127
    case63 int32 16 15 256 255
    case71 uint32 1 1 256 255
    case72 uint32 16 16 128 127
    case73 uint32 16 15 256 255
"""


def _lines(text: str) -> list[tuple[str, str, list[int]]]:
    """(name, dtype, the numbers) of each line of a case table."""
    return [(w[0], w[1], [int(x) for x in w[2:]]) for w in (t.split() for t in text.splitlines() if t.strip())]


def canonical(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    """The cases of ``op``'s system test on ``platform``: (name after the suite's dot, case)."""
    out: list[tuple[str, Case]] = []
    if platform == "cpu":
        if op == "TROWPROD":
            for dt, r, c in (("float32", 64, 64), ("float16", 16, 256), ("bfloat16", 16, 256)):
                tiles = (("dst", Tile(r, c, r, 1)), ("src", Tile(r, c, r, c)))
                out.append((f"case_{PLAIN[dt]}_{r}x{c}_{r}x{c}_{r}x{c}", Case(op, "", dt, tiles)))
    elif op == "TROWPROD" and platform == "a2a3":
        for name, dtype, (drows, srows, vrows, scols, vcols) in _lines(_TROWPROD_A2A3):
            tiles = (("dst", Tile(drows, 1, vrows, 1)), ("src", Tile(srows, scols, vrows, vcols)))
            case = Case(op, "", dtype, tiles)
            repeats = sum(c0.replace(params=()) == case for _, c0 in out)
            out.append((name, case.replace(params=((REPEAT, repeats + 1),)) if repeats else case))
    elif op == "TROWPROD":
        out = _trowsum_npu(_TROWPROD_A5, op)
    elif platform == "a2a3":
        for i, (dtype, cols, srows, vrows) in enumerate(_TCOLPROD_A2A3):
            tiles = (("dst", Tile(1, cols, 1, cols)), ("src", Tile(srows, cols, vrows, cols)))
            out.append((f"case{i + 1}", Case(op, "", dtype, tiles)))
    else:
        for name, dtype, (rows, vrows, cols, vcols) in _lines(_TCOLPROD_A5):
            tiles = (("dst", Tile(1, cols, 1, vcols)), ("src", Tile(rows, cols, vrows, vcols)))
            out.append((name, Case(op, "", dtype, tiles)))
    return _at(out, platform)


def spec_tiles(op: str, valid: tuple[int, int], dt: dtypes.DType) -> tuple[tuple[str, Tile], ...]:
    """A spec case's tiles: the sum's (:func:`ptofuzz.instructions.ordered.spec_tiles`, pto-spec's legality is
    the same): the smallest legal descriptors of the source and of the destination pto-spec accepts for it."""
    return sums.spec_tiles(oracles.SUM_OF[op], valid, dt)


def _profiles(op: str) -> dict[str, Profile]:
    golden = (("golden.bin", "dst"),)
    output = (("output.bin", "dst"),)
    out: dict[str, Profile] = {}
    for platform in PLATFORMS:
        compact = op == "TCOLPROD" and platform == "a2a3"  # its script writes the valid rows only
        root = platforms.get(platform).test_root
        out[platform] = Profile(
            op, platform, f"{op}Test", (("input.bin", "src"),), golden, output, ROLES, compact=compact,
            spelling=PLAIN, canonical=Listed(canonical, op, platform),
            note=f"{root}/testcase/{op.lower()}: {'valid-region files' if compact else 'each file its whole tile'}")
    seen: dict[tuple[str, tuple[int, int]], Case] = {}
    for p in out.values():
        for _, c in p.canonical:
            if c.dtype in DTYPES[op]["spec"]:
                valid = c.tile("src").valid
                seen.setdefault((c.dtype, valid), Case(op, "spec", c.dtype, spec_tiles(op, valid, dtypes.get(c.dtype))))
    spec_cases = tuple((f"case_{c.dtype}_{'_'.join(t.token() for _, t in c.tiles)}", c) for c in seen.values())
    spec = Profile(op, "spec", f"{op}Spec", (("input.bin", "src"),), golden, output, ROLES, compact=False,
                   spelling={}, canonical=spec_cases, note="ptofuzz full-tile layout; the destination as pto-spec "
                                                           "derives it")
    return {"spec": spec, **out}


# ---- cases and inputs -------------------------------------------------------------------------------------

def _tiles(op: str, platform: str, valid: tuple[int, int], dt: dtypes.DType, wide: int = 0
           ) -> tuple[tuple[str, Tile], ...]:
    if platforms.get(platform).kind == platforms.SPEC:
        return spec_tiles(op, valid, dt)
    vr, vc = valid
    r, c = whole_rows(vr, vc, dt)
    c += wide * max(1, 32 // dt.itemsize)
    dst = Tile(*whole_rows(vr, 1, dt), vr, 1) if op == "TROWPROD" else Tile(1, c, 1, vc)
    return (("dst", dst), ("src", Tile(r, c, vr, vc)))


def random_case(source: Source, op: str, platform: str, sup: tuple[str, ...], constraints: Mapping[str, Any]) -> Case:
    """A case legal on ``platform``: reduced lengths around a2a3's block and a5's register
    (:func:`ptofuzz.generators.product.valid_region`)."""
    dt = dtypes.get(constraints.get("dtype") or source.choice(sup))
    valid = constraints.get("shape") or gen.valid_region(source, op, dt)
    return Case(op, platform, dt.name, _tiles(op, platform, valid, dt, int(source.integers(0, 2))))


def explicit_case(op: str, sup: Mapping[str, tuple[str, ...]], platform: str, opts: Mapping[str, Any]) -> Case:
    """The case ``--dtype --shape`` describe: ``--shape`` the source's valid region (default 16x16)."""
    dt = dtypes.get(opts.get("dtype") or sup[platforms.canonical(platform)][0])
    valid: tuple[int, int] = opts.get("shape") or (16, 16)
    if 0 in valid:
        raise UsageError("--shape: a reduction needs at least one row and one column")
    return Case(op, platform, dt.name, _tiles(op, platform, valid, dt))


def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """The source bits over the whole tile (an implementation must not read outside the valid region), with the
    order-revealing line patterns of :func:`ptofuzz.generators.product.draw`."""
    return {"src": gen.draw(source, case, dtypes.get(case.dtype), mix)}


def geometry_class(case: Case) -> str:
    """Which implementation limits the reduced length passes: one factor, within a2a3's 32-byte block, within
    a5's 256-byte register, several registers (a partial last one or whole ones); ``rows>65535`` /
    ``cols>65535`` first, a source of more valid rows (columns) than 16 bits count."""
    dt = dtypes.get(case.dtype)
    vr, vc = case.tile("src").valid
    if vr > 0xFFFF or vc > 0xFFFF:  # more than a uint16_t counts (the cpu headers' row and column counts)
        return "rows>65535" if vr > 0xFFFF else "cols>65535"
    n = vc if case.op == "TROWPROD" else vr
    block, reg = 32 // dt.itemsize, 256 // dt.itemsize
    if n == 1:
        return "1"
    if n <= block:
        return "<=block"
    if n <= reg:
        return "<=repeat"
    return ">repeat" if n % reg else "k*repeat"


def fault_class(case: Case) -> str:
    """Which of pto-spec's legality rules a case breaks: the sum's (:func:`ptofuzz.instructions.ordered.
    fault_class`, named for TROWSUM/TCOLSUM); ``spec-legal`` when none."""
    return sums.fault_class(oracles.as_sum(case))


def known_difference(sig: Signature) -> str | None:
    """The documented difference between pto-spec and pto-isa's cpu (the simulator comes here as cpu): pto-spec
    faults on tiles the pages accept (:func:`ptofuzz.instructions.ordered.spec_fault_difference`, the sums' rules).
    Both multiply in the same order (a fold from one in the element type)."""
    a, b = sig.oracles()
    if sig.kind == "fault-vs-value" and "spec" in (a, b) and {a, b} - {"spec"} <= sums.PAGES:
        return sums.spec_fault_difference(sig.op, sig.geometry)  # pto-spec's legality against a page's platform
    if "spec" not in (a, b) or "cpu" not in (a, b):
        return None
    return None


def replay_flags(case: Case) -> str:
    s = case.tile("src")
    return f" --shape {s.valid_rows}x{s.valid_cols}"


def redraw(items: list[tuple[Source, Case, dict[str, np.ndarray], Any]]) -> list[Any]:
    """Where the data left a valid product open (a subnormal factor or partial product on an NPU, an integer
    product that does not fit, a NaN), new source bits of :func:`ptofuzz.generators.product.grid` factors: every
    product is then exact in any order, so a golden pins every valid element; the outcome is evaluated again."""
    out: list[Any] = []
    for source, case, inputs, outcome in items:
        cls = outcome.classes.get("dst") if outcome is not None else None
        d = case.tile("dst")
        if cls is None or not (cls[..., :d.valid_rows, :d.valid_cols] != 0).any():
            out.append(None)
            continue
        dt = dtypes.get(case.dtype)
        shape = inputs["src"].shape
        lead = int(np.prod(shape[:-1]))
        v = gen.grid(source, dt, shape[-1], lead).reshape(shape)
        if dt.is_float:
            bits = ieee.from_float64(v, dt)
        else:
            bits = v.astype(np.int64).astype(np.uint64).astype(dt.bits_dtype)
        out.append(({"src": bits}, None))
    return out


def explain(case: Case, inputs: Mapping[str, np.ndarray], files: Mapping[str, np.ndarray]) -> str:
    """For ``check``: a golden that is a product in another order than the platform's (the NPU scripts multiply
    in float64 and cast once, or call numpy's ``prod`` in the element type; the cpu script's ``np.prod`` runs in
    float32 and casts once), said so."""
    dt = dtypes.get(case.dtype)
    if not dt.is_float or "dst" not in files:
        return ""
    x = oracles.terms(case, inputs)
    v = ieee.to_float64(x, dt)
    n = x.shape[-2]
    d = case.tile("dst")
    flat = files["dst"].reshape(-1)
    if flat.size != d.rows * d.cols:
        return ""
    tile = flat.reshape(d.shape)
    got = tile[:n, 0] if case.op == "TROWPROD" else tile[0, :n]
    with np.errstate(all="ignore"):
        wide = ieee.from_float64(np.prod(v, axis=-1), dt)
        narrow = np.prod(x.view(dtypes.value_dtype(dt)), axis=-1).view(dt.bits_dtype)
        single = ieee.from_float64(np.prod(v.astype(np.float32), axis=-1, dtype=np.float32).astype(np.float64), dt)
    for bits, how in ((wide, "in float64, rounded once to the type"),
                      (narrow, f"by numpy's np.prod in {dt.name} (its own order)"),
                      (single, "by numpy's np.prod in float32, rounded once to the type")):
        if got.shape == bits.shape and np.array_equal(got, bits):
            return (f"golden.bin is the product {how}, not in this platform's order (oracles/product.py: "
                    f"{case.platform}'s order); the two differ in the last bits where the products round")
    return ""


def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The instructions named (all by default), in :data:`NAMES` order."""
    out = []
    for op in (o for o in NAMES if o in names):
        profiles = _profiles(op)
        sup = {**DTYPES[op], "kirin9030": DTYPES[op]["a5"], "kirinDev0000": DTYPES[op]["a5"]}
        axis = "row (over its columns)" if op == "TROWPROD" else "column (over its rows)"
        support = sums.platform_support(sup, profiles, oracles, {
            "spec": "increasing-index left fold from one in the element type; integers wrap",
            "cpu": "the simulator header's order: a fold from one in the element type",
            "a2a3": "a2a3 headers' order (oracles/product.py); subnormals open",
            "a5": "a5 headers' order (oracles/product.py); subnormals open"},
            cpu_test=bool(profiles["cpu"].canonical))
        rnd, explicit = sums.case_makers(op, sup, random_case, explicit_case)

        out.append(Instruction(
            name=op, family="reduce-and-expand",
            summary=f"ordered reduction: the product of each valid {axis}, in each platform's order",
            inputs=("src",), outputs=("dst",), platforms=support,
            random_case=rnd, explicit_case=explicit, draw_inputs=draw_inputs,
            options=("dtype", "shape"), random_options=("dtype", "shape"), replay_flags=replay_flags,
            geometry_class=geometry_class, redraw=redraw, explain=explain, fault_class=fault_class,
            known_difference=known_difference, bundle=True,
            illegal_case=shared.illegal_maker("row" if op == "TROWPROD" else "col", "dst", rnd)))
    return out
