"""The ordered reductions TROWSUM and TCOLSUM: capabilities, layouts, canonical cases and inputs per platform.

Facts from pto-isa 3186c381 (``docs/isa/T{ROW,COL}SUM.md``: the dtypes each implementation checks; the system
tests ``tests/{cpu/st,npu/<plat>/src/st}/testcase/t{row,col}sum/``: case lists from each ``gen_data.py`` and
``main.cpp``/kernel, files as ``../shared/reference/pto-isa-st-catalog.json`` lists them) and pto-spec 0.58
(``asl/tile/reduce-and-expand/``). The evaluation order of each platform, the point of this family, lives in
``oracles/ordered.py``; random geometries and the values that make order matter in ``generators/ordered.py``.

Roles: ``dst`` and ``src``. TROWSUM's destination holds one sum per valid source row in column 0 (valid
``rows x 1``); TCOLSUM's one sum per valid column in row 0 (valid ``1 x cols``). The NPU tests store the valid
sums only (TROWSUM: ``rows`` elements, a ``rows x 1`` tile here; TCOLSUM: the destination row), the cpu tests
the whole destination tile. TCOLSUM's ``binary`` parameter is the ``isBinary`` flag of the four-operand form
(a2a3: ``TCOLSumTestFramework<..., IsBinary>`` in main.cpp; a5/kirin: ``runTColSum(..., isBinary)`` in the
kernel; cpu: ``TCOLSUM(dst, src, tmp, true)``). a5's ``case11``..``case15`` run ``half`` kernels (main.cpp's
host buffers say int16_t; the bytes are the same).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Listed, Profile, spec_physical, whole_rows
from ptofuzz.generators import ordered as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.instructions.reduce import illegal_maker
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import descriptors
from ptofuzz.oracles import ordered as oracles

if TYPE_CHECKING:
    from ptofuzz.core.signature import Signature

NAMES = ("TROWSUM", "TCOLSUM")  # registry.MODULES lists the same, in this order
ROLES = ("dst", "src")
PLAIN = {"float32": "float", "float16": "half", "bfloat16": "bf16"}
PLATFORMS = ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")
_A5_ROW = ("float32", "float16", "int32", "int16", "int64", "uint64")
DTYPES: dict[str, dict[str, tuple[str, ...]]] = {
    # cpu: TRowSum.hpp:46-56 / TColSum.hpp:36-45 (same-type pairs); a2a3/a5: the pages' implementation checks
    "TROWSUM": {"spec": oracles.SPEC_DTYPES, "cpu": ("float32", "float16", "bfloat16", "int32", "int16"),
                "a2a3": ("float32", "float16", "int32", "int16"), "a5": _A5_ROW},
    "TCOLSUM": {"spec": oracles.SPEC_DTYPES, "cpu": ("float32", "float16", "bfloat16"),
                "a2a3": ("float32", "float16", "int32", "int16"),
                "a5": ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8",
                       "int64", "uint64")},
}
KIND = {"cpu": "cpu", "a2a3": "a2a3", "a5": "a5", "kirin9030": "a5", "kirinDev0000": "a5"}

_TROWSUM_NPU = """
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
"""
_TROWSUM_A2A3 = _TROWSUM_NPU + """
    case11 int32 127 64 127 63
    case12 int32 63 64 63 64
    case13 int32 31 128 31 127
    case14 int32 15 192 15 192
    case15 int32 7 448 7 447
    case16 int16 128 64 128 64
    case17 int16 64 64 64 64
    case18 int16 32 128 32 128
    case19 int16 16 192 16 192
    case20 int16 8 448 8 448
"""
_TROWSUM_KIRIN = _TROWSUM_NPU + """
    case11 int32 63 64 63 64
    case12 int16 15 192 15 192
    case13 float16 64 128 64 128
    case14 int32 32 256 32 256
    case15 int16 16 512 16 512
"""
_TCOLSUM_A2A3_BASE = [("int16", 16, 16, 8), ("int32", 16, 16, 8), ("float32", 16, 16, 8), ("int16", 128, 16, 8),
                      ("int32", 64, 16, 8), ("float32", 64, 16, 8), ("int16", 512, 16, 8), ("int32", 256, 16, 8),
                      ("float32", 256, 16, 8), ("int16", 512, 16, 7), ("int32", 256, 32, 31),
                      ("float32", 256, 32, 31), ("float32", 256, 16, 1)]  # dtype cols src_row valid_row
_TCOLSUM_A5 = """
    case01 float32 1 256 1 255 0
    case02 float32 16 128 16 127 0
    case03 float32 16 256 15 255 0
    case04 float32 64 128 63 127 1
    case05 float32 64 128 64 128 1
    case11 float16 1 256 1 255 0
    case12 float16 16 128 16 127 0
    case13 float16 16 256 15 255 0
    case14 float16 64 128 63 127 1
    case15 float16 64 128 64 128 1
    case21 int8 1 256 1 255 0
    case22 int8 16 128 16 127 0
    case23 int8 16 256 15 255 0
    case24 int8 64 128 63 127 1
    case25 int8 64 128 64 128 1
"""  # name dtype rows cols valid_rows valid_cols binary
_TCOLSUM_A5_ONLY = """
    case31 float32 1 512 1 511 1
    case_int64_4x16 int64 4 16 4 16 0
    case_uint64_4x16 uint64 4 16 4 16 0
"""


def _trowsum_npu(text: str, op: str = "TROWSUM") -> list[tuple[str, Case]]:
    out = []
    for line in (t for t in text.splitlines() if t.strip()):
        name, dt, rows, cols, vr, vc = line.split()
        r, c, v1, v2 = int(rows), int(cols), int(vr), int(vc)
        out.append((name, Case(op, "", dt, (("dst", Tile(v1, 1, v1, 1)), ("src", Tile(r, c, v1, v2))))))
    return out


def _tcolsum_a5(text: str) -> list[tuple[str, Case]]:
    out = []
    for line in (t for t in text.splitlines() if t.strip()):
        name, dt, rows, cols, vr, vc, binary = line.split()
        r, c, v1, v2 = int(rows), int(cols), int(vr), int(vc)
        out.append((name, Case("TCOLSUM", "", dt, (("dst", Tile(1, c, 1, v2)), ("src", Tile(r, c, v1, v2))),
                               (("binary", int(binary)),))))
    return out


def _tcolsum_a2a3() -> list[tuple[str, Case]]:
    out = []
    for i, binary in ((i, b) for b in (0, 1) for i in range(len(_TCOLSUM_A2A3_BASE))):
        dt, cols, rows, vr = _TCOLSUM_A2A3_BASE[i]
        name = f"case{i + 1 + binary * len(_TCOLSUM_A2A3_BASE)}"
        tiles = (("dst", Tile(1, cols, 1, cols)), ("src", Tile(rows, cols, vr, cols)))
        out.append((name, Case("TCOLSUM", "", dt, tiles, (("binary", binary),))))
    return out


def _cpu(op: str) -> list[tuple[str, Case]]:
    out = []
    for dt, r, c in (("float32", 64, 64), ("float16", 16, 256), ("bfloat16", 16, 256)):
        name = f"case_{PLAIN[dt]}_{r}x{c}_{r}x{c}_{r}x{c}"
        if op == "TROWSUM":
            tiles = (("dst", Tile(r, c, r, 1)), ("src", Tile(r, c, r, c)))
            params: tuple[tuple[str, Any], ...] = ()
        else:
            tiles, params = (("dst", Tile(1, c, 1, c)), ("src", Tile(r, c, r, c))), (("binary", 1),)
        out.append((name, Case(op, "", dt, tiles, params)))
    return out


def _at(cases: list[tuple[str, Case]], platform: str) -> tuple[tuple[str, Case], ...]:
    return tuple((n, Case(c.op, platform, c.dtype, c.tiles, c.params)) for n, c in cases)


def canonical(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    """The cases of ``op``'s system test on ``platform``: (name after the suite's dot, case)."""
    if platform == "cpu":
        return _at(_cpu(op), platform)
    if op == "TROWSUM":
        text = {"a2a3": _TROWSUM_A2A3, "a5": _TROWSUM_A2A3 + """
            case_int64_4x16 int64 4 16 4 15
            case_uint64_4x16 uint64 4 16 4 15
            """}.get(platform, _TROWSUM_KIRIN)
        return _at(_trowsum_npu(text), platform)
    if platform == "a2a3":
        return _at(_tcolsum_a2a3(), platform)
    return _at(_tcolsum_a5(_TCOLSUM_A5 + (_TCOLSUM_A5_ONLY if platform == "a5" else "")), platform)


def spec_tiles(op: str, valid: tuple[int, int], dt: dtypes.DType) -> tuple[tuple[str, Tile], ...]:
    """A spec case's tiles: the source the smallest legal descriptor of its valid region, the destination the
    smallest legal descriptor pto-spec accepts for it (TROWSUM ``valid_rows x 1`` of one physical column; TCOLSUM
    ``1 x valid_cols`` of the source's physical columns; its rows derived from a 128 B * 2**k capacity)."""
    vr, vc = valid
    src = Tile(*spec_physical(vr, vc, dt), vr, vc)
    if op == "TROWSUM":
        dst = Tile(spec_physical(vr, 1, dt)[0], 1, vr, 1)
    else:
        dst = Tile(max(1, spec_physical(1, src.cols, dt)[0]), src.cols, 1, vc)
    return (("dst", dst), ("src", src))


def _spec_union(op: str, lists: Sequence[Sequence[tuple[str, Case]]]) -> tuple[tuple[str, Case], ...]:
    seen: dict[tuple[str, tuple[int, int]], Case] = {}
    for cases in lists:
        for _, c in cases:
            if c.dtype in DTYPES[op]["spec"]:
                valid = c.tile("src").valid
                seen.setdefault((c.dtype, valid), Case(op, "spec", c.dtype, spec_tiles(op, valid, dtypes.get(c.dtype))))
    return tuple((f"case_{c.dtype}_{'_'.join(t.token() for _, t in c.tiles)}", c) for c in seen.values())


def _profiles(op: str) -> dict[str, Profile]:
    golden = (("golden.bin", "dst"),)
    output = (("output.bin", "dst"),)
    out: dict[str, Profile] = {}
    for platform in PLATFORMS:
        compact = op == "TCOLSUM" and platform == "a2a3"  # its script writes the valid rows only
        root = platforms.get(platform).test_root
        out[platform] = Profile(
            op, platform, f"{op}Test", (("input.bin", "src"),), golden, output, ROLES, compact=compact,
            spelling=PLAIN, canonical=Listed(canonical, op, platform),
            param_tokens=(('binary', 'bin'),) if op == 'TCOLSUM' else (),
            note=f"{root}/testcase/{op.lower()}: {'valid-region files' if compact else 'each file its whole tile'}")
    out["spec"] = Profile(op, "spec", f"{op}Spec", (("input.bin", "src"),), golden, output, ROLES, compact=False,
                          spelling={}, canonical=Listed(_spec_union, op, [p.canonical for p in out.values()]),
                          note="ptofuzz full-tile layout; the destination as pto-spec derives it")
    return {"spec": out.pop("spec"), **out}


# ---- cases and inputs -------------------------------------------------------------------------------------

def _tiles(op: str, platform: str, valid: tuple[int, int], dt: dtypes.DType, wide: int = 0
           ) -> tuple[tuple[str, Tile], ...]:
    if platforms.get(platform).kind == platforms.SPEC:
        return spec_tiles(op, valid, dt)
    vr, vc = valid
    r, c = whole_rows(vr, vc, dt)
    c += wide * max(1, 32 // dt.itemsize)
    dst = Tile(*whole_rows(vr, 1, dt), vr, 1) if op == "TROWSUM" else Tile(1, c, 1, vc)
    return (("dst", dst), ("src", Tile(r, c, vr, vc)))


def random_case(source: Source, op: str, platform: str, sup: tuple[str, ...], constraints: Mapping[str, Any]) -> Case:
    """A case legal on ``platform``: rows and columns that reach past each implementation's 256-byte repeat
    (see :func:`ptofuzz.generators.ordered.valid_region`); TCOLSUM's ``binary`` drawn half the time."""
    dt = dtypes.get(constraints.get("dtype") or source.choice(sup))
    valid = constraints.get("shape") or gen.valid_region(source, op, dt)
    params: tuple[tuple[str, Any], ...] = ()
    if op == "TCOLSUM" and platforms.get(platform).kind != platforms.SPEC:
        params = (("binary", int(source.integers(0, 1))),)
    return Case(op, platform, dt.name, _tiles(op, platform, valid, dt, int(source.integers(0, 2))), params)


def explicit_case(op: str, sup: Mapping[str, tuple[str, ...]], platform: str, opts: Mapping[str, Any]) -> Case:
    """The case ``--dtype --shape [--binary]`` describe: ``--shape`` the source's valid region (default 16x16)."""
    dt = dtypes.get(opts.get("dtype") or sup[platforms.canonical(platform)][0])
    valid: tuple[int, int] = opts.get("shape") or (16, 16)
    if 0 in valid:
        raise UsageError("--shape: a reduction needs at least one row and one column")
    binary = opts.get("binary")
    params = (("binary", int(bool(binary))),) if op == "TCOLSUM" and binary is not None else ()
    return Case(op, platform, dt.name, _tiles(op, platform, valid, dt), params)


def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """The source bits over the whole tile (an implementation must not read outside the valid region), with the
    order-revealing row patterns of :func:`ptofuzz.generators.ordered.draw` where the case's dtype is a float."""
    return {"src": gen.draw(source, case, dtypes.get(case.dtype), mix)}


def geometry_class(case: Case) -> str:
    """Which implementation limits the reduced length passes: one 256-byte repeat, several, and whether the
    last is partial; TCOLSUM adds ``binary``."""
    dt = dtypes.get(case.dtype)
    vr, vc = case.tile("src").valid
    n = vc if case.op == "TROWSUM" else vr
    e = oracles.repeat_elements(dt)
    form = "1" if n == 1 else ("<=repeat" if n <= e else (">repeat" if n % e else "k*repeat"))
    wide = ",16-bit" if case.op == "TROWSUM" and dt.name in ("float16", "bfloat16") else ""
    return form + wide + (",binary" if case.param("binary") else "")


def fault_class(case: Case) -> str:
    """Which of pto-spec's legality rules (:func:`ptofuzz.oracles.ordered.spec_legality`) a case breaks: an empty
    source, an illegal descriptor, a TROWSUM destination of more than one physical column or fewer rows than the
    source's valid rows, a destination of another valid shape (or,
    TCOLSUM, other physical columns than the source's); ``spec-legal`` when none."""
    s, d = case.tile("src"), case.tile("dst")
    dt = dtypes.get(case.dtype)
    if descriptors.problem(d, dt, max_bytes=descriptors.LOCAL_MAX) or \
            descriptors.problem(s, dt, max_bytes=descriptors.SHARED_MAX):
        return "descriptor"
    if 0 in s.valid:
        return "empty"
    if case.op == "TROWSUM":
        if d.valid != (s.valid_rows, 1):
            return "dst-valid"
        return "dst-cols>1" if d.cols != 1 else "dst-rows" if d.rows < s.valid_rows else "spec-legal"
    if d.valid != (1, s.valid_cols):
        return "dst-valid"
    return "dst-cols" if d.cols != s.cols else "spec-legal"


#: value mismatch kinds a sum's rounding history gives (compare's element error classes)
ROUNDING = ("ulp-1", "ulp-2..16", "ulp-large", "inf-vs-finite", "nan-vs-number")


#: the platforms pto-isa's pages describe (a real target comes here as the platform it runs: cpusim as cpu)
PAGES = frozenset({"cpu", "a2a3", "a5", "kirin9030", "kirinDev0000"})


def spec_fault_difference(op: str, fault: str) -> str | None:
    """Why pto-spec faults where pto-isa's pages give a row or column sum (or product), by :func:`fault_class`:
    a row reduction's destination of more than one physical column (the pages: an ND destination, the result in
    column 0) and tiles that are no legal descriptor (the pages take any tile); None for the other rules (an
    empty source, a destination of another valid shape: the pages reject those too)."""
    if fault == "dst-cols>1" and op in ("TROWSUM", "TROWPROD"):
        return ("pto-spec's row reductions require a destination of one physical column (Fault_TileLegality); "
                "the pages (docs/isa/TROWSUM.md, TROWPROD.md) accept an ND destination and write column 0")
    if fault == "descriptor":
        return ("pto-spec faults on tiles that are no legal descriptor (a 128 B * 2**k capacity, power-of-two "
                "columns: TileDescriptorLegal); pto-isa's pages accept any tile")
    return None


def known_difference(sig: Signature) -> str | None:
    """The documented differences between pto-spec and pto-isa's cpu (the simulator comes here as cpu): pto-spec
    faults on tiles the pages accept (:func:`spec_fault_difference`); the cpu sums half and bfloat16 rows in a
    float32 accumulator (``include/pto/cpu/TRowSum.hpp:21`` with ``tile_offsets.hpp:25-27``, one rounding at the
    end), pto-spec
    folds in the element type; a binary TCOLSUM's zero of -0 terms is -0 (a tree), pto-spec's +0 (a fold from
    +0)."""
    a, b = sig.oracles()
    if sig.kind == "fault-vs-value" and "spec" in (a, b) and {a, b} - {"spec"} <= PAGES:
        return spec_fault_difference(sig.op, sig.geometry)  # pto-spec's legality against a page's platform
    if "spec" not in (a, b) or "cpu" not in (a, b):
        return None
    if sig.op == "TROWSUM" and sig.kind in ROUNDING and ",16-bit" in sig.geometry:
        return ("the cpu sums a half/bfloat16 row in a float32 accumulator rounded once (TRowSum.hpp:21, "
                "tile_offsets.hpp:25-27); pto-spec folds in the element type, rounding every addition")
    if sig.op == "TCOLSUM" and sig.kind == "signed-zero" and sig.geometry.endswith(",binary"):
        return ("docs/isa/TCOLSUM.md's isBinary form sums a column in a binary tree, which gives -0 for -0 terms; "
                "pto-spec has no such form and folds from +0 (its TCOLSUM.asl: no tree reassociation), giving +0")
    return None


def replay_flags(case: Case) -> str:
    s = case.tile("src")
    return f" --shape {s.valid_rows}x{s.valid_cols}" + (" --binary" if case.param("binary") else "")


def platform_support(sup: Mapping[str, tuple[str, ...]], profiles: Mapping[str, Profile], models: Any,
                     notes: Mapping[str, str], cpu_test: bool = True) -> dict[str, PlatformSupport]:
    """The registry's platforms of an ordered reduction (the sums, the products): ``models`` has ``spec``,
    ``cpu``, ``a2a3`` and ``a5`` (the kirins build a5's headers); ``notes`` per model."""
    return {
        "spec": PlatformSupport(sup["spec"], models.spec, profiles["spec"], bad_dtype="fault", has_system_test=False,
                                notes=notes["spec"]),
        "cpu": PlatformSupport(sup["cpu"], models.cpu, profiles["cpu"], has_system_test=cpu_test, notes=notes["cpu"]),
        "a2a3": PlatformSupport(sup["a2a3"], models.a2a3, profiles["a2a3"], notes=notes["a2a3"]),
        **{p: PlatformSupport(sup[p], models.a5, profiles[p],
                              notes=notes["a5"] + ("" if p == "a5" else "; a5's headers"))
           for p in ("a5", "kirin9030", "kirinDev0000")},
    }


def case_makers(op: str, sup: Mapping[str, tuple[str, ...]], random_case: Callable[..., Case],
                explicit_case: Callable[..., Case]) -> tuple[Callable[..., Case], Callable[..., Case]]:
    """The registry's ``random_case`` and ``explicit_case`` of ``op`` from a module's
    ``random_case(source, op, platform, dtypes, constraints)`` and ``explicit_case(op, sup, platform, opts)``."""
    def rnd(source: Source, platform: str, constraints: Mapping[str, Any]) -> Case:
        return random_case(source, op, platform, sup[platforms.canonical(platform)], constraints)

    def explicit(platform: str, opts: Mapping[str, Any]) -> Case:
        return explicit_case(op, sup, platform, opts)

    return rnd, explicit


def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The instructions named (all by default), in :data:`NAMES` order."""
    out = []
    for op in (o for o in NAMES if o in names):
        sup = {**DTYPES[op], "kirin9030": DTYPES[op]["a5"], "kirinDev0000": DTYPES[op]["a5"]}
        axis = "row (over its columns)" if op == "TROWSUM" else "column (over its rows)"
        support = platform_support(sup, _profiles(op), oracles, {
            "spec": "increasing-index left fold from +0 in the element type; integers wrap",
            "cpu": "the simulator header's order (oracles/ordered.py); binary TCOLSUM: a tree, pinned where every "
                   "tree agrees",
            "a2a3": "a2a3 headers' order; vcadd's hardware tree open (TROWSUM floats)",
            "a5": "a5 headers' order; vcadd's hardware tree open (TROWSUM floats)"})
        rnd, explicit = case_makers(op, sup, random_case, explicit_case)
        out.append(Instruction(
            name=op, family="reduce-and-expand",
            summary=f"ordered reduction: the sum of each valid {axis}, in each platform's order",
            inputs=("src",), outputs=("dst",), platforms=support,
            random_case=rnd, explicit_case=explicit, draw_inputs=draw_inputs,
            options=("dtype", "shape") + (("binary",) if op == "TCOLSUM" else ()),
            random_options=("dtype", "shape"), replay_flags=replay_flags, geometry_class=geometry_class,
            redraw=redraw, explain=explain, fault_class=fault_class, known_difference=known_difference,
            bundle=True, illegal_case=illegal_maker("row" if op == "TROWSUM" else "col", "dst", rnd)))
    return out


def redraw(items: list[tuple[Source, Case, dict[str, np.ndarray], Any]]) -> list[Any]:
    """Where the data left a valid sum open (an NPU's vcadd tree over terms that round, a subnormal, an integer
    sum that does not fit, a NaN), new source bits of small multiples of 1/16 (small integers for integer types):
    every sum is then exact in any order, so a golden pins every valid element; the outcome is evaluated again."""
    out: list[Any] = []
    for source, case, inputs, outcome in items:
        cls = outcome.classes.get("dst") if outcome is not None else None
        d = case.tile("dst")
        if cls is None or not (cls[..., :d.valid_rows, :d.valid_cols] != 0).any():
            out.append(None)
            continue
        dt = dtypes.get(case.dtype)
        shape = inputs["src"].shape
        small = source.integers(-8 if dt.kind != "uint" else 0, 8, int(np.prod(shape))).astype(np.int64)
        if dt.is_float:
            from ptofuzz.oracles import ieee

            bits = ieee.from_float64(small.astype(np.float64) / 16, dt).reshape(shape)
        else:
            bits = small.astype(np.uint64).astype(dt.bits_dtype).reshape(shape)
        out.append(({"src": bits}, None))
    return out


def explain(case: Case, inputs: Mapping[str, np.ndarray], files: Mapping[str, np.ndarray]) -> str:
    """For ``check``: a golden that is numpy's sum in another order than the platform's (the NPU scripts sum in
    float64 and cast once, a2a3's TCOLSUM script calls ``np.sum(axis=0)`` in the element type), said so."""
    dt = dtypes.get(case.dtype)
    if not dt.is_float or "dst" not in files:
        return ""
    from ptofuzz.oracles import ieee

    x = oracles.terms(case, inputs)
    v = ieee.to_float64(x, dt)
    n = x.shape[-2]
    d = case.tile("dst")
    flat = files["dst"].reshape(-1)
    if flat.size != d.rows * d.cols:
        return ""
    tile = flat.reshape(d.shape)
    got = tile[:n, 0] if case.op == "TROWSUM" else tile[0, :n]
    with np.errstate(all="ignore"):  # infinities of both signs, overflow: numpy's sums as they come
        wide = ieee.from_float64(v.sum(axis=-1), dt)
        narrow = np.sum(x.view(dtypes.value_dtype(dt)), axis=-1).view(dt.bits_dtype)
    for bits, how in ((wide, "in float64, rounded once to the type"),
                      (narrow, f"by numpy's np.sum in {dt.name} (its own pairwise order)")):
        if got.shape == bits.shape and np.array_equal(got, bits):
            return (f"golden.bin is the sum {how}, not in this platform's order (oracles/ordered.py: "
                    f"{case.platform}'s {'binary tree' if case.param('binary') else 'fold'}); the two differ in the "
                    "last bits where the terms round")
    return ""
