"""The TPART* family (TPARTADD, TPARTMUL, TPARTMAX, TPARTMIN, TPARTARGMAX, TPARTARGMIN): capabilities, layouts
and canonical cases per platform.

Facts from pto-isa 3186c381 (``docs/isa/TPART*.md``, the headers ``include/pto/{cpu,npu/a2a3,npu/a5}/TPart*.hpp``
and the system tests ``tests/{cpu/st,npu/<plat>/src/st}/testcase/tpart*/``) and pto-spec 0.58.3
(``asl/tile/irregular-and-complex/union/TPART*.asl``, ``asl/tile/model/legality/indexed-layout.asl``).
Semantics live in ``oracles/tpart.py`` and ``oracles/tpartarg.py``; random geometries and the sources' draws in
``generators/tpart.py``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import UNDEFINED, Case, Outcome, OutcomeKind, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Listed, Profile, spec_physical, whole_rows
from ptofuzz.generators import tpart as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import descriptors
from ptofuzz.oracles import tpart as oracles
from ptofuzz.oracles import tpartarg as argo

if TYPE_CHECKING:
    from ptofuzz.core.signature import Signature
    from ptofuzz.instructions.registry import Redrawn

OPS = ("TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN")
ROLES = ("dst", "src0", "src1")

# ---- dtype capabilities ----------------------------------------------------------------------------------
SPEC_DTYPES = oracles.SPEC_DTYPES
# TPARTMUL: the contract header lists 7 types (no S8/U8) but the executable model, its test
# tile-bound-tpartmul-dtype-001 and ADR 0083 accept all 9; ptofuzz follows the executable model.
CPU_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint8")
A2A3_DTYPES = ("float32", "float16", "int32", "int16")
A5_DTYPES = ("float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
             "uint64", "uint32", "uint16", "uint8")
A5_DTYPES_MUL = tuple(d for d in A5_DTYPES if d not in ("int64", "uint64"))
# kirin: a5's headers, but Int64Part is declared and not defined, so no 64-bit TPART* links there
KIRIN_DTYPES = A5_DTYPES_MUL

# ---- dtype spellings in pto-isa case names -----------------------------------------------------------------
PLAIN = {"float32": "float", "float16": "half", "bfloat16": "bf16"}  # others: numpy names (int16, uint64...)
A5_MAXMIN = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "int8": "s8", "int16": "s16",
             "int32": "s32", "int64": "s64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64"}
SPEC_SPELLING: dict[str, str] = {}  # ptofuzz's own names


def _rxc(token: str) -> tuple[int, int]:
    r, c = token.split("x")
    return int(r), int(c)


def _compact(op: str, platform: str, dt: str, d: str, s0: str, s1: str) -> Case:
    tiles = [Tile(*_rxc(tok), *_rxc(tok)) for tok in (d, s0, s1)]
    return Case(op, platform, dt, tuple(zip(ROLES, tiles)))


# ---- canonical case lists: rows of (dtype, dst, src0, src1) valid regions ------------------------------------
ADD_MUL_BASE = (("float32", "64x64", "64x64", "64x64"), ("float32", "64x64", "8x64", "64x64"),
                ("float32", "64x64", "64x8", "64x64"), ("float32", "64x64", "64x64", "8x64"),
                ("float32", "64x64", "64x64", "64x8"), ("float16", "8x48", "8x16", "8x48"),
                ("float16", "8x768", "8x512", "8x768"), ("int16", "8x48", "8x48", "8x16"),
                ("int32", "64x64", "8x64", "64x64"))
KIRIN_ADD_EXTRA = (("uint32", "64x64", "8x64", "64x64"), ("uint16", "8x48", "8x48", "8x16"),
                   ("int8", "64x64", "8x64", "64x64"), ("uint8", "64x64", "8x64", "64x64"),
                   ("int32", "8x768", "8x512", "8x768"), ("float16", "64x64", "8x64", "64x64"))
ADD_MUL_EXTRA = {  # (op, platform) -> rows beyond the base ones
    ("TPARTADD", "a5"): (("int64", "4x16", "2x16", "4x16"), ("uint64", "4x16", "2x16", "4x16"),
                         ("int64", "4x16", "4x8", "4x16")),
    ("TPARTADD", "kirin9030"): KIRIN_ADD_EXTRA, ("TPARTADD", "kirinDev0000"): KIRIN_ADD_EXTRA,
}
# a5 TPARTMAX/MIN; kirin halves the 122x123 row (61x123, src0 52x123) and has no 64-bit rows
MAX_MIN_BIG = {"a5": ("122x123", "104x123"), "kirin9030": ("61x123", "52x123"), "kirinDev0000": ("61x123", "52x123")}
MAX_MIN_64 = {"a5": (("int64", "4x16", "2x16", "4x16"), ("uint64", "4x16", "2x16", "4x16"))}
A5_STYLE = ("a5", "kirin9030", "kirinDev0000")  # platforms whose TPART* tests follow a5's scheme


def _npu_add_mul(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    rows = ADD_MUL_BASE + ADD_MUL_EXTRA.get((op, platform), ())
    cases = []
    for dt, d, s0, s1 in rows:
        alias = f"case_{PLAIN.get(dt, dt)}_{d}_{s0}_{s1}"
        cases.append((alias, _compact(op, platform, dt, d, s0, s1)))
    return tuple(sorted(cases))


def _a5_max_min(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    rows = [("float32", "64x64", "64x64", "64x64"), ("float32", "2x24", "2x24", "2x8"),
            ("float32", "2x24", "2x24", "1x8"), ("float32", "128x64", "128x64", "96x64"),
            ("float32", "95x95", "95x95", "95x95")]
    big, small = MAX_MIN_BIG[platform]
    rows += [(dt, big, small, big)
             for dt in ("float32", "float16", "int8", "int16", "int32", "uint8", "uint16", "uint32")]
    rows += [("float16", "5x33", "5x33", "5x33")]
    rows += [("float32", "8x8", "0x8", "8x8"), ("float32", "8x8", "8x0", "8x8"),
             ("float32", "8x8", "8x8", "0x8"), ("float32", "8x8", "8x8", "8x0")]
    rows += list(MAX_MIN_64.get(platform, ()))
    return tuple(sorted((f"case_{A5_MAXMIN[dt]}_{d}_{s0}_{s1}", _compact(op, platform, dt, d, s0, s1))
                        for dt, d, s0, s1 in rows))


def _a2a3_max_min(op: str) -> tuple[tuple[str, Case], ...]:
    rows = [("test0", "16x32", "16x16", "16x32"), ("test1", "22x32", "22x32", "16x32"),
            ("test2", "22x40", "22x40", "22x32"), ("test3", "22x40", "22x40", "8x40"),
            ("test4", "64x128", "64x128", "64x128"),
            ("testEmpty0", "16x32", "16x0", "16x32"), ("testEmpty1", "16x32", "0x32", "16x32"),
            ("testEmpty2", "16x32", "16x32", "16x0"), ("testEmpty3", "16x32", "16x32", "0x32")]
    return tuple((name, _compact(op, "a2a3", "float32", d, s0, s1)) for name, d, s0, s1 in rows)


def _cpu(op: str) -> tuple[tuple[str, Case], ...]:
    names = {"TPARTADD": ("float32",), "TPARTMAX": ("float32", "int8", "uint8"),
             "TPARTMIN": ("float32", "int8", "uint8")}.get(op, ())
    full = Tile(64, 64, 64, 64)
    return tuple(sorted(
        (f"case_{PLAIN.get(dt, dt)}_64x64_src1_32x32",
         Case(op, "cpu", dt, (("dst", full), ("src0", full), ("src1", Tile(64, 64, 32, 32)))))
        for dt in names))


def _spec_union(op: str, platform_lists: Sequence[Sequence[tuple[str, Case]]]) -> tuple[tuple[str, Case], ...]:
    """spec's canonical list: every platform's case geometry and dtype once, in spec's full-tile layout."""
    seen: dict[tuple[Any, ...], Case] = {}
    for cases in platform_lists:
        for _, c in cases:
            dt = dtypes.get(c.dtype)
            valids = tuple(c.tile(r).valid for r in ROLES)
            tiles = tuple((r, Tile(*spec_physical(*v, dt), *v)) for r, v in zip(ROLES, valids))
            seen.setdefault((c.dtype, valids), Case(op, "spec", c.dtype, tiles))
    return tuple((f"case_{c.dtype}_{'_'.join(t.token() for _, t in c.tiles)}", c) for c in seen.values())


def _profiles(op: str) -> dict[str, Profile]:
    base_io = (("input1.bin", "src0"), ("input2.bin", "src1"))
    golden = (("golden.bin", "dst"),)
    output = (("output.bin", "dst"),)
    maxmin = op in ("TPARTMAX", "TPARTMIN")
    cpu_cases = _cpu(op)
    a2a3_cases = _a2a3_max_min(op) if maxmin else _npu_add_mul(op, "a2a3")
    out = {
        "cpu": Profile(op, "cpu", f"{op}_Test", base_io, golden, output, ROLES, compact=False, spelling=PLAIN,
                       canonical=cpu_cases, physical=None, src1_form=True,
                       note=f"tests/cpu/st/testcase/{op.lower()}: full 64x64 tiles, src1 read top-left with "
                            "stride 64"),
        "a2a3": Profile(op, "a2a3", f"{op}Test",
                        (("input0.bin", "src0"), ("input1.bin", "src1")) if maxmin else base_io,
                        golden, output, ROLES, compact=True, spelling=PLAIN, canonical=a2a3_cases,
                        note=f"tests/npu/a2a3/src/st/testcase/{op.lower()}: compact valid-region files"),
    }
    for platform in A5_STYLE:
        out[platform] = Profile(op, platform, f"{op}Test", base_io, golden, output, ROLES, compact=True,
                                spelling=A5_MAXMIN if maxmin else PLAIN,
                                canonical=_a5_max_min(op, platform) if maxmin else _npu_add_mul(op, platform),
                                note=f"{platforms.get(platform).test_root}/testcase/{op.lower()}: compact "
                                     "valid-region files")
    spec = Profile(op, "spec", f"{op}Spec", base_io, golden, output, ROLES, compact=False,
                   spelling=SPEC_SPELLING, canonical=Listed(_spec_union, op, [p.canonical for p in out.values()]),
                   physical=spec_physical,
                   note="ptofuzz full-tile layout; physical tiles are the smallest legal pto-spec descriptors")
    return {"spec": spec, **out}


# ---- cases from the CLI ----------------------------------------------------------------------------------

def explicit_case(op: str, profiles: Mapping[str, Profile], sup_dtypes: Mapping[str, tuple[str, ...]],
                  platform: str, opts: Mapping[str, Any]) -> Case:
    """The one case ``--dtype --shape --dst --src0 --src1 --inplace`` describe.

    Defaults: dtype = the platform's first; dst valid = ``--shape`` (or the largest source, or 64x64);
    sources = dst. Physical tiles: the valid regions themselves (compact layouts), ``--shape`` or the
    smallest tile holding every region (cpu), ``--shape`` or the smallest legal descriptor (spec).
    """
    prof = profiles[platform]
    dt = dtypes.get(opts.get("dtype") or sup_dtypes[platform][0])
    shape = opts.get("shape")
    given = [opts.get(r) for r in ROLES]
    dv = given[0] or shape or (tuple(max(v[i] for v in given[1:] if v) for i in (0, 1))
                               if any(given[1:]) else (64, 64))
    inplace = opts.get("inplace")
    if inplace not in (None, "src0", "src1"):
        raise UsageError(f"--inplace {inplace!r} must be src0 or src1 (the source the destination overwrites)")
    valids = {"dst": dv}
    for role, g in zip(ROLES[1:], given[1:]):
        valids[role] = g or dv
        if role == inplace and g and g != dv:
            raise UsageError(f"--inplace {inplace} makes {role} the destination tile, but --{role} "
                             f"{g[0]}x{g[1]} differs from --dst {dv[0]}x{dv[1]}; drop one of them")
    if prof.compact:
        if shape and shape != dv:
            raise UsageError(f"--shape {shape[0]}x{shape[1]} differs from --dst {dv[0]}x{dv[1]}: {platform} "
                             "tiles are their valid region (compact layout); drop --shape")
        phys = {r: v for r, v in valids.items()}
    elif platforms.get(platform).kind == platforms.SPEC and not shape:
        phys = {r: spec_physical(v[0], v[1], dt) for r, v in valids.items()}
        if inplace:
            phys[inplace] = phys["dst"]
    else:
        common = shape or tuple(max(v[i] for v in valids.values()) for i in (0, 1))
        phys = {r: common for r in ROLES}
    for role in ROLES:
        (r, c), (R, C) = valids[role], phys[role]
        if r > R or c > C:
            raise UsageError(f"--{role} {r}x{c} is larger than the tile {R}x{C}; pass a bigger --shape "
                             "or a smaller region")
    tiles = tuple((role, Tile(*phys[role], *valids[role])) for role in ROLES)
    params = (("inplace", inplace),) if inplace else ()
    return Case(op, platform, dt.name, tiles, params)


def _relation(v: tuple[int, int], d: tuple[int, int]) -> str:
    if 0 in v:
        return "empty"
    if v == d:
        return "eq"
    if v[0] <= d[0] and v[1] <= d[1]:
        return "rows" if v[1] == d[1] else "cols" if v[0] == d[0] else "in"
    return "over"


def geometry_class(case: Case) -> str:
    """How each source's valid region relates to the destination's (eq, fewer rows, fewer cols, inside,
    empty, overhanging); ``dst=empty``; or ``nodesc`` when a tile is no legal pto-spec descriptor (a new Local
    destination of at most 64 KiB, sources of at most 256 KiB), the one thing that matters then."""
    dt = dtypes.get(case.dtype)
    if any(descriptors.problem(t, dt, max_bytes=descriptors.LOCAL_MAX if role == "dst" else descriptors.SHARED_MAX)
           for role, t in case.tiles):
        return "nodesc"
    return relations(case)


def relations(case: Case) -> str:
    """``dst=empty``, or how each source's valid region relates to the destination's."""
    d = case.tile("dst").valid
    if 0 in d:
        return "dst=empty"
    return f"src0={_relation(case.tile('src0').valid, d)},src1={_relation(case.tile('src1').valid, d)}"


def fault_class(case: Case) -> str:
    """For a fault against a value: which pto-spec rule the geometry breaks, or ``spec-legal``."""
    g = geometry_class(case)
    if g in ("nodesc", "dst=empty"):
        return g
    rel = dict(part.split("=") for part in g.split(","))
    if "empty" in rel.values():
        return "src-empty"
    if "over" in rel.values():
        return "src-over"
    if "eq" not in rel.values():
        return "no-src-eq"
    return "spec-legal"


# "op" first: the elementwise operation, whose result does not depend on the geometry (see engine/differential.py)
REGIONS = ("op", "src0-only", "src1-only", "neither", "outside")


def regions(case: Case, role: str) -> tuple[tuple[str, ...], np.ndarray]:
    """Region code of every element of an output tile (``dst``; TPARTARG*'s ``dst_idx`` too, whose tile may
    have another shape): both sources valid (op), one of them, neither, or outside the destination valid
    region."""
    d, out = case.tile("dst"), case.tile(role)
    rows = np.arange(out.rows)[:, None]
    cols = np.arange(out.cols)[None, :]
    inside = {r: (rows < case.tile(r).valid_rows) & (cols < case.tile(r).valid_cols) for r in ("src0", "src1")}
    code = np.where(inside["src0"], np.where(inside["src1"], 0, 1), np.where(inside["src1"], 2, 3))
    return REGIONS, np.where((rows < d.valid_rows) & (cols < d.valid_cols), code, 4).astype(np.uint8)


def known_difference(sig: Signature) -> str | None:
    """The intended differences between TPART* models (docs/reference/oracles.md: pto-spec's
    ``ExecuteTilePartial`` against pto-isa's ``TPart*.hpp``). A real target comes here named by its platform
    (differential.as_platforms): cpusim as cpu."""
    a, b = sig.oracles()
    if sig.kind == "fault-vs-value" and "spec" in (a, b):
        if sig.dtype_class == "int64":
            return "pto-spec has no 64-bit integer TPART*; a5 implements them (Int64Part)"
        if sig.geometry != "spec-legal":
            return ("pto-spec faults on this geometry (no source equals dst, an empty or overhanging source, an "
                    "empty destination, or a tile that is no legal descriptor); pto-isa implementations do not "
                    "check it (cpu) or accept it (a2a3/a5 empty regions)")
    return None


def _region_flags(case: Case, *, shape: bool = True) -> str:
    """``--dst --src0 --src1`` of ``case``, and ``--shape`` when every tile has the same one (and ``shape``)."""
    flags = "".join(f" --{r} {case.tile(r).valid_rows}x{case.tile(r).valid_cols}" for r in ROLES)
    shapes = {t.shape for _, t in case.tiles}
    if shape and len(shapes) == 1:
        (r, c), = shapes
        flags += f" --shape {r}x{c}"
    return flags


def replay_flags(case: Case) -> str:
    """The explicit flags that rebuild ``case``: its regions, a common tile shape, in-place."""
    return _region_flags(case) + (f" --inplace {case.param('inplace')}" if case.param("inplace") else "")


def redraw(items: list[tuple[Source, Case, dict[str, np.ndarray], Outcome]]) -> list[Redrawn]:
    """Plain values in both sources wherever an element both cover came out undefined; then only those
    elements are recomputed (the operation is elementwise), for all cases at once."""
    out: list[Redrawn] = [None] * len(items)
    patches = []
    for k, (source, case, inputs, outcome) in enumerate(items):
        dt = dtypes.get(case.dtype)
        if platforms.get(case.platform).implementation == "a5" and dt.bits == 64:
            continue  # Int64Part's undefined elements come from the geometry, not the data
        rows, cols = oracles.covered(case)[2]
        r, c = np.nonzero(outcome.classes["dst"][:rows, :cols] == UNDEFINED)
        if r.size == 0:
            continue
        new = {role: bits.copy() for role, bits in inputs.items()}
        for role in ("src0", "src1"):
            new[role][r, c] = values.plain(source, dt, r.size)
        patches.append((k, (case, new, outcome, r, c)))
    for (k, patch), patched in zip(patches, oracles.repatch([p for _, p in patches])):
        out[k] = (patch[1], patched)
    return out


NAMES = (*OPS, "TPARTARGMAX", "TPARTARGMIN")  # ptofuzz.instructions.registry.MODULES lists the same, in this order


def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The TPART* instructions named (all by default), in :data:`NAMES` order."""
    out = []
    for op in (o for o in OPS if o in names):
        profiles = _profiles(op)
        sup = {"spec": SPEC_DTYPES, "cpu": CPU_DTYPES, "a2a3": A2A3_DTYPES,
               "a5": A5_DTYPES_MUL if op == "TPARTMUL" else A5_DTYPES,
               "kirin9030": KIRIN_DTYPES, "kirinDev0000": KIRIN_DTYPES}
        platforms = {
            "spec": PlatformSupport(sup["spec"], oracles.spec, profiles["spec"], bad_dtype="fault",
                                    has_system_test=False,
                                    notes="illegal patterns and types are Fault_TileLegality (trap 5)"),
            "cpu": PlatformSupport(sup["cpu"], oracles.cpu, profiles["cpu"],
                                   has_system_test=bool(profiles["cpu"].canonical),
                                   notes="any geometry; neither source valid -> 0"
                                   + ("" if profiles["cpu"].canonical else
                                      "; pto-isa's cpu TPARTMUL test is an in-memory gtest (no case folders)")),
            "a2a3": PlatformSupport(sup["a2a3"], oracles.a2a3, profiles["a2a3"],
                                    notes="one source = dst, the other inside it"),
            "a5": PlatformSupport(sup["a5"], oracles.a5, profiles["a5"],
                                  notes="one source = dst, max(src) = dst; 64-bit via Int64Part"),
            **{k: PlatformSupport(sup[k], oracles.a5, profiles[k],
                                  notes="a5's headers; no 64-bit (Int64Part is not defined there)")
               for k in ("kirin9030", "kirinDev0000")},
        }

        def random_case(source: Source, platform: str, constraints: Mapping[str, Any], *, _op: str = op,
                        _sup: dict[str, tuple[str, ...]] = sup, _p: dict[str, Profile] = profiles) -> Case:
            return gen.random_case(source, _op, platform, _sup[platform], _p[platform].physical,
                                   _p[platform].compact, constraints)

        def illegal(source: Source, constraints: Mapping[str, Any], *, _op: str = op) -> Case:
            return gen.illegal_spec_case(source, _op, SPEC_DTYPES, spec_physical, constraints)

        def explicit(platform: str, opts: Mapping[str, Any], *, _op: str = op,
                     _sup: dict[str, tuple[str, ...]] = sup, _p: dict[str, Profile] = profiles) -> Case:
            return explicit_case(_op, _p, _sup, platform, opts)

        out.append(Instruction(
            name=op, family="irregular-and-complex",
            summary=f"partial {oracles.OPS[op]}: op where both sources are valid, copy where one is",
            inputs=("src0", "src1"), outputs=("dst",), platforms=platforms,
            random_case=random_case, explicit_case=explicit, draw_inputs=gen.draw_inputs, draw_many=gen.draw_many,
            options=("dtype", "shape", "dst", "src0", "src1", "inplace"), redraw=redraw,
            replay_flags=replay_flags, draw_batch=gen.draw_batch, geometry_class=geometry_class, regions=regions,
            known_difference=known_difference, shared=oracles.shared_work, fault_class=fault_class,
            bundle=True, illegal_case=illegal))
    return out + arg_instructions(names)


# ==== TPARTARGMAX / TPARTARGMIN: a value tile and an index tile per operand ====================================
# Facts from pto-isa 3186c381: tests/cpu/st/testcase/tpartarg{max,min}, tests/npu/<p>/src/st/testcase/
# tpartarg{max,min} (gen_data.py and main.cpp); semantics in oracles/tpartarg.py. pto-spec has no model of them.

ARG_OPS = ("TPARTARGMAX", "TPARTARGMIN")
ARG_ROLES = (*ROLES, *(argo.INDEX_ROLE[r] for r in ROLES))
ARG_CPU_DTYPES = CPU_DTYPES  # TPartCheck (include/pto/cpu/TPartOp.hpp) takes the value type only
ARG_NPU_DTYPES = tuple(argo.NPU_PAIRS)  # float32, float16
ARG_DEFAULT_INDEX = "uint32"


def _with_index_tiles(named: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
    """Every role's tile from the value tiles: each index tile has its value tile's geometry."""
    return (*((r, named[r]) for r in ROLES), *((argo.INDEX_ROLE[r], named[r]) for r in ROLES))


def _npu_tile(valid: tuple[int, int], dt: dtypes.DType) -> Tile:
    """The tile the NPU tests would declare for a valid region (:func:`ptofuzz.core.layouts.whole_rows`)."""
    return Tile(*whole_rows(*valid, dt), *valid)


def _arg_case(op: str, platform: str, val: str, idx: str, tiles: Mapping[str, Tile], tie: bool = False) -> Case:
    params: tuple[tuple[str, Any], ...] = (("idx", idx),) + ((("tie", 1),) if tie else ())
    return Case(op, platform, val, tuple((r, tiles[r]) for r in ARG_ROLES), params)


def _arg_cpu(op: str) -> tuple[tuple[str, Case], ...]:
    full = Tile(64, 64, 64, 64)
    small = Tile(64, 64, 32, 32)
    tiles = {"dst": full, "src0": full, "src1": small, "dst_idx": full, "src0_idx": full, "src1_idx": small}
    return (("case_float_64x64_src1_32x32", _arg_case(op, "cpu", "float32", "uint32", tiles)),)


# a2a3: (val, idx, comment, tile shapes of dst, dst_idx, src0, src0_idx, src1, src1_idx, src0 valid, src1 valid)
_T4, _T32, _H32 = ((4, 8),) * 6, ((128, 64),) * 6, ((128, 128),) * 6
_TD32 = ((57, 128), (57, 120), (57, 112), (57, 104), (57, 144), (57, 136))
_TD32_S0 = _TD32[:2] + ((51, 112), (51, 104)) + _TD32[4:]
_TD32_S1 = _TD32[:4] + ((51, 144), (51, 136))
_A2A3_FEW = (("same_size", (4, 8), (4, 8)), ("row_diff_0", (3, 8), (4, 8)), ("row_diff_1", (4, 8), (3, 8)),
             ("col_diff_0", (4, 7), (4, 8)), ("col_diff_1", (4, 8), (4, 7)), ("small_0", (3, 7), (4, 8)),
             ("small_1", (4, 8), (3, 7)), ("same_size_unaligned", (4, 7), (4, 7)),
             ("row_diff_unaligned_0", (3, 7), (4, 7)), ("row_diff_unaligned_1", (4, 7), (3, 7)),
             ("col_diff_unaligned_0", (4, 5), (4, 7)), ("col_diff_unaligned_1", (4, 7), (4, 5)))


def _a2a3_32k(rows: int, cols: int, small_rows: int, small_cols: int, *, small: bool = True
              ) -> tuple[tuple[str, tuple[int, int], tuple[int, int]], ...]:
    full = (rows, cols)
    out = [("same_size_32k", full, full), ("row_diff_32k_0", (small_rows, cols), full),
           ("row_diff_32k_1", full, (small_rows, cols)), ("col_diff_32k_0", (rows, small_cols), full),
           ("col_diff_32k_1", full, (rows, small_cols))]
    if small:
        out += [("small_32k_0", (small_rows, small_cols), full), ("small_32k_1", full, (small_rows, small_cols))]
    return tuple(out)


A2A3_ARG = (
    *(("float32", "uint32", c, _T4, v0, v1) for c, v0, v1 in _A2A3_FEW),
    *(("float32", "uint32", c, _T32, v0, v1) for c, v0, v1 in _a2a3_32k(128, 64, 111, 57)),
    ("float32", "uint32", "tile_diff", ((4, 8), (4, 16), (4, 24), (4, 32), (4, 40), (4, 48)), (4, 7), (4, 7)),
    ("float32", "uint32", "tile_diff_32k", _TD32, (57, 97), (57, 97)),
    ("float32", "uint32", "tile_diff_32k_row_diff_0", _TD32_S0, (51, 97), (57, 97)),
    ("float32", "uint32", "tile_diff_32k_row_diff_1", _TD32_S1, (57, 97), (51, 97)),
    ("float32", "uint32", "tile_diff_32k_col_diff_0", _TD32, (57, 97), (57, 101)),
    ("float32", "uint32", "tile_diff_32k_col_diff_1", _TD32, (57, 101), (57, 97)),
    ("float32", "uint32", "tile_diff_32k_small_0", _TD32, (51, 97), (57, 101)),
    ("float32", "uint32", "tile_diff_32k_small_1", _TD32, (57, 101), (51, 97)),
    ("float32", "uint32", "same_tile", _T4, (4, 8), (4, 8)),  # equal=True: both value tiles one value (ties)
    *(("float16", "uint16", c, _H32, v0, v1) for c, v0, v1 in _a2a3_32k(128, 128, 111, 111, small=False)),
    *(("float16", "uint32", c, _T32, v0, v1) for c, v0, v1 in _a2a3_32k(128, 64, 111, 57)),
)


def _arg_a2a3(op: str) -> tuple[tuple[str, Case], ...]:
    out = []
    for val, idx, comment, shapes, v0, v1 in A2A3_ARG:
        dv = (max(v0[0], v1[0]), max(v0[1], v1[1]))  # gen_data: dst (value and index) = the larger extents
        valid = {"dst": dv, "dst_idx": dv, "src0": v0, "src0_idx": v0, "src1": v1, "src1_idx": v1}
        order = ("dst", "dst_idx", "src0", "src0_idx", "src1", "src1_idx")  # gen_data's TestParams order
        tiles = {r: Tile(*s, *valid[r]) for r, s in zip(order, shapes)}
        out.append((f"case_{PLAIN[val]}_{idx}_{comment}",
                    _arg_case(op, "a2a3", val, idx, tiles, tie=comment == "same_tile")))
    return tuple(out)


# a5 (and kirin): (val, idx, dst / src0 / src1 valid, dst / src0 / src1 tiles); the index tile of an operand is
# its value tile. Row 5's main.cpp declares int32 indices where gen_data writes uint32 (same bits in the file).
A5_ARG = (
    ("float32", "uint32", "64x64", "64x64", "64x64", "64x64", "64x64", "64x64"),
    ("float32", "uint32", "8x512", "8x512", "8x512", "8x512", "8x512", "8x512"),
    ("float32", "uint32", "8x512", "3x211", "8x512", "8x512", "3x512", "8x512"),
    ("float32", "int32", "2x24", "2x24", "2x8", "4x32", "3x24", "2x16"),
    ("float32", "uint32", "12x63", "12x63", "6x60", "12x64", "12x64", "6x64"),
    ("float16", "int16", "10x31", "8x16", "10x31", "10x32", "8x32", "12x32"),
    ("float16", "uint16", "5x33", "5x33", "5x30", "8x48", "5x48", "6x48"),
    ("float32", "uint32", "8x7", "8x7", "8x0", "8x8", "8x8", "1x8"),
    ("float32", "uint32", "8x7", "8x7", "0x7", "8x8", "8x8", "1x8"),
    ("float32", "uint32", "8x7", "8x0", "8x7", "8x8", "1x8", "8x8"),
    ("float32", "uint32", "8x7", "0x7", "8x7", "8x8", "1x8", "8x8"),
    ("float16", "uint32", "1x144", "1x144", "1x144", "1x144", "1x144", "1x144"),
    ("float16", "uint32", "8x512", "8x512", "8x512", "8x512", "8x512", "8x512"),
    ("float16", "uint32", "8x512", "3x512", "8x512", "8x512", "3x512", "8x512"),
    ("float16", "uint32", "8x512", "8x211", "8x512", "8x512", "8x512", "8x512"),
)
A5_ARG_ROWS = {  # (op, platform) -> the rows of A5_ARG its test runs (numbered from 1)
    ("TPARTARGMAX", "a5"): tuple(range(1, 16)),
    ("TPARTARGMIN", "a5"): tuple(k for k in range(1, 16) if k not in (2, 3)),
    **{(op, p): (1, 4, 5, 6, 7) for op in ARG_OPS for p in ("kirin9030", "kirinDev0000")},
}


def _arg_a5(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    out = []
    for k in A5_ARG_ROWS[(op, platform)]:
        val, idx, *shapes = A5_ARG[k - 1]
        valids, phys = [_rxc(s) for s in shapes[:3]], [_rxc(s) for s in shapes[3:]]
        named = {r: Tile(*p, *v) for r, p, v in zip(ROLES, phys, valids)}
        out.append((f"case_{A5_MAXMIN[val]}_{'_'.join(shapes[:3])}",
                    _arg_case(op, platform, val, idx, dict(_with_index_tiles(named)))))
    return tuple(out)


def _arg_profiles(op: str) -> dict[str, Profile]:
    a5_io = (("input0_val.bin", "src0"), ("input1_val.bin", "src1"), ("input0_idx.bin", "src0_idx"),
             ("input1_idx.bin", "src1_idx"))
    a5_golden = (("golden_val.bin", "dst"), ("golden_idx.bin", "dst_idx"))
    a5_output = (("output_val.bin", "dst"), ("output_idx.bin", "dst_idx"))
    common: dict[str, Any] = {"name_roles": ROLES, "compact": False, "derive": _with_index_tiles,
                              "dtype_param": "idx"}
    low = op.lower()
    out = {
        "cpu": Profile(op, "cpu", f"{op}_Test", a5_io, a5_golden, a5_output, spelling=PLAIN, canonical=_arg_cpu(op),
                       note=f"tests/cpu/st/testcase/{low}: full 64x64 tiles, src1 read top-left with stride 64",
                       **common),
        "a2a3": Profile(op, "a2a3", f"{op}Test",
                        (("src_val0.bin", "src0"), ("src_idx0.bin", "src0_idx"), ("src_val1.bin", "src1"),
                         ("src_idx1.bin", "src1_idx")),
                        (("dst_val.bin", "dst"), ("dst_idx.bin", "dst_idx")),
                        (("dst_val_out.bin", "dst"), ("dst_idx_out.bin", "dst_idx")), spelling=PLAIN,
                        canonical=_arg_a2a3(op),
                        note=f"tests/npu/a2a3/src/st/testcase/{low}: whole tiles, each of the six its own shape",
                        **common),
    }
    for platform in A5_STYLE:
        out[platform] = Profile(op, platform, f"{op}Test", a5_io, a5_golden, a5_output, spelling=A5_MAXMIN,
                                canonical=_arg_a5(op, platform),
                                note=f"{platforms.get(platform).test_root}/testcase/{low}: whole tiles, an "
                                     "operand's index tile shaped as its value tile", **common)
    return out


def arg_explicit_case(op: str, profiles: Mapping[str, Profile], sup_dtypes: Mapping[str, tuple[str, ...]],
                      platform: str, opts: Mapping[str, Any]) -> Case:
    """The case ``--dtype --index-dtype --shape --dst --src0 --src1`` describe: the value tiles as for the
    other TPART* ops, each index tile shaped as its value tile. NPU tiles default to whole 32-byte rows."""
    values_opts = {k: v for k, v in opts.items() if k != "index_dtype"}
    base = explicit_case(op, profiles, sup_dtypes, platform, values_opts)
    dt = dtypes.get(base.dtype)
    named = dict(base.tiles)
    if platforms.get(platform).is_npu and not opts.get("shape"):
        named = {r: _npu_tile(t.valid, dt) for r, t in named.items()}
    idx = dtypes.get(opts.get("index_dtype") or ARG_DEFAULT_INDEX).name
    accepted = _index_dtypes(platform, dt.name)
    if idx not in accepted:
        raise UsageError(f"--index-dtype {idx}: {op} on {platform} pairs {dt.name} values with "
                         f"{', '.join(accepted)} indices; pass one of those")
    return _arg_case(op, platform, dt.name, idx, dict(_with_index_tiles(named)))


def _index_dtypes(platform: str, value_dtype: str) -> tuple[str, ...]:
    if platforms.get(platform).kind == platforms.CPU:
        return argo.CPU_INDEX
    return argo.NPU_PAIRS.get(value_dtype, ())


def arg_random_case(source: Source, op: str, platform: str, sup_dtypes: tuple[str, ...],
                    constraints: Mapping[str, Any]) -> Case:
    """A random case legal on ``platform`` (the TPART* geometries without in-place destinations; NPU tiles of
    whole 32-byte rows) with an index type the platform pairs with the value type."""
    cpu = platforms.get(platform).kind == platforms.CPU
    base = gen.random_case(source, op, platform, sup_dtypes, None if cpu else
                           (lambda r, c, dt: _npu_tile((r, c), dt).shape), False,
                           {k: v for k, v in constraints.items() if k != "index_dtype"})
    idx = constraints.get("index_dtype") or source.choice(_index_dtypes(platform, base.dtype))
    # an in-place draw only made a source's region the destination's; the ARG tests never alias tiles
    return _arg_case(op, platform, base.dtype, dtypes.get(idx).name, dict(_with_index_tiles(dict(base.tiles))))


def _arg_draw(source: Source, case: Case, mix: values.ValueMix, lead: tuple[int, ...]) -> dict[str, np.ndarray]:
    dt, it = dtypes.get(case.dtype), argo.index_dtype(case)
    out = {r: values.draw(source, dt, lead + case.tile(r).shape, mix) for r in ("src0", "src1")}
    for r in ("src0_idx", "src1_idx"):
        out[r] = values.draw(source, it, lead + case.tile(r).shape, 0.0)
    (r0, c0), (r1, c1) = case.tile("src0").shape, case.tile("src1").shape
    rb, cb = min(r0, r1), min(c0, c1)
    a, b = out["src0"][..., :rb, :cb], out["src1"][..., :rb, :cb]
    if case.param("tie"):  # a2a3's same_tile: every compared pair ties
        b[...] = a
    elif mix.rate > 0 and a.size:  # ties decide which index wins: as common as the special values
        tie = source.random(a.size).reshape(a.shape) < mix.rate
        b[tie] = a[tie]
    return out


def arg_draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """Values over each whole physical tile (ties between the sources at the special-value rate), random index
    bits (an index is copied, never computed with)."""
    return _arg_draw(source, case, mix, ())


def arg_draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    return _arg_draw(source, case, mix, (n,))


def arg_known_difference(sig: Signature) -> str | None:
    """cpu against an NPU platform, where both sources hold equal values: the index (and for -0 against +0 the
    value) comes from another source. Only that pair: cpu against an external target running cpu cases, against
    cpusim or against spec is no documented difference."""
    a, b = sig.oracles()
    other = b if a == "cpu" else a if b == "cpu" else ""
    npu = other in platforms.names() and platforms.get(other).is_npu  # not spec, an external target, cpusim
    if npu and sig.region == "op" and sig.kind in ("index", "signed-zero"):
        return ("on a tie (equal values, -0 against +0) the cpu simulator takes src1 (its `>`/`<` is false: "
                "include/pto/cpu/TPartArgCommon.hpp), as docs/isa/TPARTARGMAX.md says; a2a3 and a5 take src0 "
                "(a2a3 vcmp_ge/vcmp_le, a5 vsel on a strict vcmp_gt/vcmp_lt)")
    return None


def arg_replay_flags(case: Case) -> str:
    """Regions, the index type, and ``--shape`` on the cpu (NPU tiles are rebuilt as whole 32-byte rows)."""
    cpu = platforms.get(case.platform).kind == platforms.CPU
    return _region_flags(case, shape=cpu) + f" --index-dtype {argo.index_dtype(case).name}"


def arg_redraw(items: list[tuple[Source, Case, dict[str, np.ndarray], Any]]) -> list[Any]:
    """Plain values in both sources wherever a compared pair left the result undefined (an NPU NaN or a
    subnormal a flushing compare would order otherwise), then the case again."""
    out: list[Any] = []
    for source, case, inputs, outcome in items:
        (r0, c0), (r1, c1) = case.tile("src0").valid, case.tile("src1").valid
        rd, cd = case.tile("dst").valid
        rb, cb = min(r0, r1, rd), min(c0, c1, cd)
        r, c = np.nonzero(outcome.classes["dst"][:rb, :cb] == UNDEFINED)
        if outcome.kind is not OutcomeKind.OK or r.size == 0:
            out.append(None)
            continue
        dt = dtypes.get(case.dtype)
        new = {role: bits.copy() for role, bits in inputs.items()}
        for role in ("src0", "src1"):
            new[role][r, c] = values.plain(source, dt, r.size)
        out.append((new, argo.oracle_of(case.platform)(case, new)))
    return out


def arg_instructions(names: Collection[str] = ARG_OPS) -> list[Instruction]:
    out = []
    for op in (o for o in ARG_OPS if o in names):
        profiles = _arg_profiles(op)
        sup = {"cpu": ARG_CPU_DTYPES, **{p: ARG_NPU_DTYPES for p in ("a2a3", *A5_STYLE)}}
        npu_note = "float32 with int32/uint32 indices, float16 with int16/uint16/int32/uint32; one source = dst, " \
                   "dst = max(src); "
        support = {
            "cpu": PlatformSupport(sup["cpu"], argo.cpu_checked, profiles["cpu"],
                                   notes="any geometry; ties and NaN take src1; neither source valid -> 0 and "
                                         "index 0"),
            "a2a3": PlatformSupport(sup["a2a3"], argo.npu, profiles["a2a3"],
                                    notes=npu_note + "ties take src0; NaN undefined"),
            **{p: PlatformSupport(sup[p], argo.npu, profiles[p],
                                  notes=npu_note + "ties take src0; NaN undefined"
                                  + ("" if p == "a5" else "; a5's headers"))
               for p in A5_STYLE},
        }

        def random_case(source: Source, platform: str, constraints: Mapping[str, Any], *, _op: str = op,
                        _sup: dict[str, tuple[str, ...]] = sup) -> Case:
            return arg_random_case(source, _op, platform, _sup[platforms.canonical(platform)], constraints)

        def explicit(platform: str, opts: Mapping[str, Any], *, _op: str = op,
                     _sup: dict[str, tuple[str, ...]] = sup, _p: dict[str, Profile] = profiles) -> Case:
            return arg_explicit_case(_op, _p, _sup, platform, opts)

        out.append(Instruction(
            name=op, family="irregular-and-complex",
            summary=f"partial arg{argo.OPS[op]}: value and index of the {argo.OPS[op]} where both sources are "
                    "valid, copied where one is",
            inputs=argo.INPUTS, outputs=argo.OUTPUTS, platforms=support,
            random_case=random_case, explicit_case=explicit, draw_inputs=arg_draw_inputs,
            role_dtype_params={r: ("idx", ARG_DEFAULT_INDEX) for r in argo.INDEX_ROLE.values()},
            index_roles=("dst_idx",),
            options=("dtype", "index_dtype", "shape", "dst", "src0", "src1"),
            random_options=("dtype", "index_dtype", "shape"), option_choices={"index_dtype": argo.INDEX_DTYPES},
            redraw=arg_redraw,
            replay_flags=arg_replay_flags, draw_batch=arg_draw_batch, geometry_class=relations,
            regions=regions, known_difference=arg_known_difference,
            unmodelled={"spec": "pto-spec deleted TPARTARG*"}))
    return out
