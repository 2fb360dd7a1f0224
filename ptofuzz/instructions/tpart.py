"""TPARTADD, TPARTMUL, TPARTMAX, TPARTMIN: capabilities, layouts and canonical cases per platform.

Facts from pto-isa-conventions.md §3 (pto-isa 3186c381) and pto-spec-notes.md §3 (pto-spec 0.58.3).
Semantics live in ``oracles/tpart.py``; random geometries in ``generators/tpart.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ptofuzz import dtypes, platforms
from ptofuzz.bundle import oracle as bundle_oracle
from ptofuzz.case import UNDEFINED, Case, Tile
from ptofuzz.errors import UsageError
from ptofuzz.generators import tpart as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.layouts import Profile, spec_physical
from ptofuzz.oracles import descriptors
from ptofuzz.oracles import tpart as oracles
from ptofuzz.registry import Instruction, PlatformSupport

OPS = ("TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN")
ROLES = ("dst", "src0", "src1")

# ---- dtype capabilities ----------------------------------------------------------------------------------
SPEC_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8")
# TPARTMUL: the contract header lists 7 types (no S8/U8) but the executable model, its test
# tile-bound-tpartmul-dtype-001 and ADR 0083 accept all 9; ptofuzz follows the executable model.
CPU_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint8")
A2A3_DTYPES = ("float32", "float16", "int32", "int16")
A5_DTYPES = ("float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
             "uint64", "uint32", "uint16", "uint8")
A5_DTYPES_MUL = tuple(d for d in A5_DTYPES if d not in ("int64", "uint64"))

# ---- dtype spellings in pto-isa case names -----------------------------------------------------------------
PLAIN = {"float32": "float", "float16": "half", "bfloat16": "bf16"}  # others: numpy names (int16, uint64...)
A5_MAXMIN = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "int8": "s8", "int16": "s16",
             "int32": "s32", "int64": "s64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64"}
SPEC_SPELLING: dict[str, str] = {}  # ptofuzz's own names


def _compact(op: str, platform: str, dt: str, d: str, s0: str, s1: str) -> Case:
    tiles = []
    for tok in (d, s0, s1):
        r, c = (int(x) for x in tok.split("x"))
        tiles.append(Tile(r, c, r, c))
    return Case(op, platform, dt, tuple(zip(ROLES, tiles)))


def _npu_add_mul(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    rows = [("float32", "64x64", "64x64", "64x64"), ("float32", "64x64", "8x64", "64x64"),
            ("float32", "64x64", "64x8", "64x64"), ("float32", "64x64", "64x64", "8x64"),
            ("float32", "64x64", "64x64", "64x8"), ("float16", "8x48", "8x16", "8x48"),
            ("float16", "8x768", "8x512", "8x768"), ("int16", "8x48", "8x48", "8x16"),
            ("int32", "64x64", "8x64", "64x64")]
    if op == "TPARTADD" and platform == "a5":
        rows += [("int64", "4x16", "2x16", "4x16"), ("uint64", "4x16", "2x16", "4x16"),
                 ("int64", "4x16", "4x8", "4x16")]
    cases = []
    for dt, d, s0, s1 in rows:
        alias = f"case_{PLAIN.get(dt, dt)}_{d}_{s0}_{s1}"
        cases.append((alias, _compact(op, platform, dt, d, s0, s1)))
    return tuple(sorted(cases))


def _a5_max_min(op: str) -> tuple[tuple[str, Case], ...]:
    rows = [("float32", "64x64", "64x64", "64x64"), ("float32", "2x24", "2x24", "2x8"),
            ("float32", "2x24", "2x24", "1x8"), ("float32", "128x64", "128x64", "96x64"),
            ("float32", "95x95", "95x95", "95x95")]
    rows += [(dt, "122x123", "104x123", "122x123")
             for dt in ("float32", "float16", "int8", "int16", "int32", "uint8", "uint16", "uint32")]
    rows += [("float16", "5x33", "5x33", "5x33")]
    rows += [("float32", "8x8", "0x8", "8x8"), ("float32", "8x8", "8x0", "8x8"),
             ("float32", "8x8", "8x8", "0x8"), ("float32", "8x8", "8x8", "8x0")]
    rows += [("int64", "4x16", "2x16", "4x16"), ("uint64", "4x16", "2x16", "4x16")]
    return tuple(sorted((f"case_{A5_MAXMIN[dt]}_{d}_{s0}_{s1}", _compact(op, "a5", dt, d, s0, s1))
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


def _spec_union(op: str, platform_lists: list[tuple[tuple[str, Case], ...]]) -> tuple[tuple[str, Case], ...]:
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
    a5_cases = _a5_max_min(op) if maxmin else _npu_add_mul(op, "a5")
    cpu = Profile(op, "cpu", f"{op}_Test", base_io, golden, output, ROLES, compact=False, spelling=PLAIN,
                  canonical=cpu_cases, physical=None, src1_form=True,
                  note=f"tests/cpu/st/testcase/{op.lower()}: full 64x64 tiles, src1 read top-left with stride 64")
    a2a3 = Profile(op, "a2a3", f"{op}Test", (("input0.bin", "src0"), ("input1.bin", "src1")) if maxmin else base_io,
                   golden, output, ROLES, compact=True, spelling=PLAIN, canonical=a2a3_cases,
                   note=f"tests/npu/a2a3/src/st/testcase/{op.lower()}: compact valid-region files")
    a5 = Profile(op, "a5", f"{op}Test", base_io, golden, output, ROLES, compact=True,
                 spelling=A5_MAXMIN if maxmin else PLAIN, canonical=a5_cases,
                 note=f"tests/npu/a5/src/st/testcase/{op.lower()}: compact valid-region files")
    spec = Profile(op, "spec", f"{op}Spec", base_io, golden, output, ROLES, compact=False,
                   spelling=SPEC_SPELLING, canonical=_spec_union(op, [cpu_cases, a2a3_cases, a5_cases]),
                   physical=spec_physical,
                   note="ptofuzz full-tile layout; physical tiles are the smallest legal pto-spec descriptors")
    return {"spec": spec, "cpu": cpu, "a2a3": a2a3, "a5": a5}


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
        phys = {r: spec_physical(*v, dt) for r, v in valids.items()}
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


def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """Source bits over each whole physical tile (outside the valid region too: implementations must not
    read there). An in-place destination starts as its source, so nothing extra is drawn."""
    dt = dtypes.get(case.dtype)
    if mix.rate > 0 and set(mix.kinds) & {values.TIE, *values.ROW_PATTERNS}:  # row-level kinds: per tile
        return {role: values.draw(source, dt, case.tile(role).shape, mix) for role in ("src0", "src1")}
    (r0, c0), (r1, c1) = case.tile("src0").shape, case.tile("src1").shape
    both = values.draw(source, dt, (r0 * c0 + r1 * c1,), mix)  # one draw for both tiles: half the overhead
    return {"src0": both[:r0 * c0].reshape(r0, c0), "src1": both[r0 * c0:].reshape(r1, c1)}


def draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    """``n`` cases' source bits at once, stacked on a leading axis (element-level special values only)."""
    dt = dtypes.get(case.dtype)
    (r0, c0), (r1, c1) = case.tile("src0").shape, case.tile("src1").shape
    k0 = r0 * c0
    both = values.draw(source, dt, (n * (k0 + r1 * c1),), mix).reshape(n, -1)
    return {"src0": both[:, :k0].reshape(n, r0, c0), "src1": both[:, k0:].reshape(n, r1, c1)}


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


# "op" first: the elementwise operation, whose result does not depend on the geometry (see differential.py)
REGIONS = ("op", "src0-only", "src1-only", "neither", "outside")


def regions(case: Case, role: str) -> tuple[tuple[str, ...], np.ndarray]:
    """Region code of every destination element: both sources valid (op), one of them, neither, or outside
    the destination valid region."""
    d = case.tile("dst")
    rows = np.arange(d.rows)[:, None]
    cols = np.arange(d.cols)[None, :]
    inside = {r: (rows < case.tile(r).valid_rows) & (cols < case.tile(r).valid_cols) for r in ("src0", "src1")}
    code = np.where(inside["src0"], np.where(inside["src1"], 0, 1), np.where(inside["src1"], 2, 3))
    return REGIONS, np.where((rows < d.valid_rows) & (cols < d.valid_cols), code, 4).astype(np.uint8)


def known_difference(sig: Any) -> str | None:
    """The intended differences between TPART* models (pto-spec-notes §3, pto-isa-conventions §3). A real
    target comes here named by its platform (differential.as_platforms): cpusim as cpu."""
    a, b = sig.oracles()
    if (a, b) == ("cpu", "spec") and sig.op in ("TPARTADD", "TPARTMUL") and sig.region == "op" \
            and sig.kind == "nan-encoding":  # only the real simulator shows it: the model expects "a NaN"
        return ("the cpu simulator's NaN is the host FPU's (x86: the first NaN operand, quieted, sign kept); "
                "pto-spec fixes other NaN bits, and the cpu model expects only 'a NaN'")
    if sig.kind == "fault-vs-value" and "spec" in (a, b):
        if sig.dtype_class == "int64":
            return "pto-spec has no 64-bit integer TPART*; a5 implements them (Int64Part)"
        if sig.geometry != "spec-legal":
            return ("pto-spec faults on this geometry (no source equals dst, an empty or overhanging source, an "
                    "empty destination, or a tile that is no legal descriptor); pto-isa implementations do not "
                    "check it (cpu) or accept it (a2a3/a5 empty regions)")
    if (a, b) == ("cpu", "spec") and sig.op in ("TPARTMAX", "TPARTMIN") and sig.region == "op" \
            and sig.kind in ("nan-vs-number", "nan-encoding", "signed-zero"):
        return ("cpu TPARTMAX/MIN are std::max/std::min: a NaN wins as src0, ties and mixed zeros return src0 "
                "bit for bit; pto-spec lets a number beat a NaN, returns the canonical NaN for two NaNs and "
                "orders -0 < +0")
    return None


def replay_flags(case: Case) -> str:
    """The explicit flags that rebuild ``case``: its regions, a common tile shape, in-place."""
    flags = "".join(f" --{r} {case.tile(r).valid_rows}x{case.tile(r).valid_cols}" for r in ROLES)
    shapes = {t.shape for _, t in case.tiles}
    if len(shapes) == 1:
        (r, c), = shapes
        flags += f" --shape {r}x{c}"
    return flags + (f" --inplace {case.param('inplace')}" if case.param("inplace") else "")


def redraw(items: list[tuple[Source, Case, dict[str, np.ndarray], Any]]) -> list[Any]:
    """Plain values in both sources wherever an element both cover came out undefined; then only those
    elements are recomputed (the operation is elementwise), for all cases at once."""
    out: list[Any] = [None] * len(items)
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


def _cpusim(case: Case, inputs: Mapping[str, np.ndarray]) -> Any:
    from ptofuzz.cpusim import (
        tpart as sim,  # lazily: only a campaign with --oracles ...,cpusim needs it
    )

    return sim.evaluate(case, inputs)


def instructions() -> list[Instruction]:
    out = []
    for op in OPS:
        profiles = _profiles(op)
        sup = {"spec": SPEC_DTYPES, "cpu": CPU_DTYPES, "a2a3": A2A3_DTYPES,
               "a5": A5_DTYPES_MUL if op == "TPARTMUL" else A5_DTYPES}
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
        }

        def random_case(source: Source, platform: str, constraints: Mapping[str, Any], *, _op: str = op,
                        _sup: dict[str, tuple[str, ...]] = sup, _p: dict[str, Profile] = profiles) -> Case:
            return gen.random_case(source, _op, platform, _sup[platform], _p[platform].physical,
                                   _p[platform].compact, constraints)

        def explicit(platform: str, opts: Mapping[str, Any], *, _op: str = op,
                     _sup: dict[str, tuple[str, ...]] = sup, _p: dict[str, Profile] = profiles) -> Case:
            return explicit_case(_op, _p, _sup, platform, opts)

        out.append(Instruction(
            name=op, family="irregular-and-complex",
            summary=f"partial {oracles.OPS[op]}: op where both sources are valid, copy where one is",
            inputs=("src0", "src1"), outputs=("dst",), platforms=platforms,
            random_case=random_case, explicit_case=explicit, draw_inputs=draw_inputs,
            options=("dtype", "shape", "dst", "src0", "src1", "inplace"), redraw=redraw,
            replay_flags=replay_flags, draw_batch=draw_batch, geometry_class=geometry_class, regions=regions,
            known_difference=known_difference, shared=oracles.shared_work, fault_class=fault_class,
            bundle=bundle_oracle.evaluate, cpusim=_cpusim))
    return out
