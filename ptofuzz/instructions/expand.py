"""The broadcast copies TROWEXPAND and TCOLEXPAND: capabilities, layouts and canonical cases per platform.

Facts from pto-isa 3186c381 (``docs/isa/T{ROW,COL}EXPAND.md``: the dtypes each implementation checks; the
system tests ``tests/{cpu/st,npu/<plat>/src/st}/testcase/t{row,col}expand/`` and ``trowexpandbrcb/`` (a5,
kirin9030: TROWEXPAND of a one-column ColMajor source): folder names, files and byte layouts, as
``../shared/reference/pto-isa-st-catalog.json`` lists them; each kernel's tiles from its main.cpp and kernel
source) and pto-spec 0.58 (``asl/tile/reduce-and-expand/{row,column}-expansion/``). Semantics live in
``oracles/expand.py``; random geometries in ``generators/expand.py``.

Every test's files hold whole tiles: ``input.bin`` (the cpu TCOLEXPAND test: ``input1.bin``) the source, and
``golden.bin`` the destination (zeros outside its valid region, which no result defines). Each test's cases are
listed whole: ``name dtype dst-tile dst-valid src-tile src-valid``. Where a main.cpp and its gen_data.py disagree
on a tile, the kernel's is taken: a2a3's TROWEXPAND kernels declare every non-brcb source's valid region
``rows x 1`` (its script says the source's columns), and a2a3's TCOLEXPAND script writes only the source's first
row (``1 x cols``: all the kernel reads, but for its valid columns) where main.cpp declares more rows, so its
cases' sources are that one row.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Listed, Profile, spec_physical, whole_rows
from ptofuzz.generators import expand as gen
from ptofuzz.generators.source import Source
from ptofuzz.instructions import elementwise as ew
from ptofuzz.instructions import unary
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import descriptors
from ptofuzz.oracles import expand as oracles

if TYPE_CHECKING:
    from ptofuzz.core.signature import Signature

NAMES = ("TROWEXPAND", "TCOLEXPAND")  # registry.MODULES lists the same, in this order
ROLES = ("dst", "src")
PLAIN = {"float32": "float", "float16": "half", "bfloat16": "bf16"}  # others: numpy names (int16, uint32...)
PLATFORMS = ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")

# ---- dtype capabilities (docs/isa/<OP>.md "Data type"/"Implementation checks"; kirin runs a5's headers) -------
# the cpu simulator's TRowExpand.hpp / TColExpand.hpp are templates over the element type: every 8- to 32-bit type
CPU_DTYPES = ew.CPU_DTYPES
A2A3_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8")
A5_DTYPES = (*A2A3_DTYPES, "int64", "uint64")
DTYPES = {"spec": oracles.SPEC_DTYPES, "cpu": CPU_DTYPES, "a2a3": A2A3_DTYPES, "a5": A5_DTYPES,
          "kirin9030": A5_DTYPES, "kirinDev0000": A5_DTYPES}

_ROW_A2A3 = """
    case0 uint16 16x512 16x512 16x16 16x1
    case1 uint8 16x256 16x256 16x32 16x1
    case2 uint32 16x128 16x128 16x8 16x1
    case3 float32 16x512 16x512 16x32 16x1
    case4 uint16 16x256 16x255 16x16 16x1
    case5 uint8 16x512 16x511 16x32 16x1
    case6 uint32 16x128 16x127 16x8 16x1
    case7 uint16 16x128 16x127 16x16 16x1
    case8 uint8 2x64 2x63 2x32 2x1
    case9 uint16 4080x16 4080x16 4080x1 4080x1
    case10 uint16 16x16 16x16 16x1 16x1
    case11 uint32 4080x8 4080x8 4080x1 4080x1
    case12 uint32 16x8 16x8 16x1 16x1
    case13 float32 4080x8 4080x8 4080x1 4080x1
    case14 float32 16x8 16x8 16x1 16x1
    case15 int16 16x512 16x512 16x16 16x1
    case16 int8 16x256 16x256 16x32 16x1
    case17 int32 16x128 16x128 16x8 16x1
    case18 int16 16x256 16x255 16x16 16x1
    case19 int8 16x512 16x511 16x32 16x1
    case20 int32 16x128 16x127 16x8 16x1
    case21 int16 16x128 16x127 16x16 16x1
    case22 int8 2x64 2x63 2x32 2x1"""
_ROW_A5 = """
    case0_half_16_16_16_512 float16 16x512 16x512 16x16 16x1
    case1_int8_16_32_16_256 int8 16x256 16x256 16x32 16x1
    case2_float_16_8_16_128 float32 16x128 16x128 16x8 16x1
    case3_half_16_16_16_511 float16 16x512 16x511 16x16 16x1
    case4_int8_16_32_16_255 int8 16x256 16x255 16x32 16x1
    case5_float_16_8_16_127 float32 16x128 16x127 16x8 16x1"""
_ROW_KIRIN = _ROW_A5 + """
    case6_uint8_16_32_16_256 uint8 16x256 16x256 16x32 16x1
    case7_uint8_16_32_16_255 uint8 16x256 16x255 16x32 16x1
    case8_int16_16_16_16_512 int16 16x512 16x512 16x16 16x1
    case9_int16_16_16_16_511 int16 16x512 16x511 16x16 16x1
    case10_uint16_16_16_16_512 uint16 16x512 16x512 16x16 16x1
    case11_uint16_16_16_16_511 uint16 16x512 16x511 16x16 16x1
    case12_int32_16_8_16_128 int32 16x128 16x128 16x8 16x1
    case13_int32_16_8_16_127 int32 16x128 16x127 16x8 16x1
    case14_uint32_16_8_16_128 uint32 16x128 16x128 16x8 16x1
    case15_uint32_16_8_16_127 uint32 16x128 16x127 16x8 16x1"""
_BRCB = "TROWEXPANDBRCBTest.case{k}_{spelled}_{rows}_{cols} {dt} {rows}x{cols} {rows}x{cols} {rows}x1 {rows}x1"


def _brcb(cases: Sequence[tuple[str, int, int]]) -> str:
    """trowexpandbrcb's cases (a second suite: whole names): a ColMajor one-column source (the same bytes as a
    one-column tile) broadcast over a whole destination."""
    return "\n".join(_BRCB.format(k=k, spelled=PLAIN.get(dt, dt), dt=dt, rows=r, cols=c)
                     for k, (dt, r, c) in enumerate(cases))


_COL_A2A3 = """
    case1 int16 32x32 16x8 1x32 1x8
    case2 int32 24x16 16x8 1x16 1x8
    case3 float32 24x16 16x8 1x16 1x8
    case4 int16 16x128 8x127 1x128 1x127
    case5 int32 16x64 15x63 1x64 1x63
    case6 float32 16x64 15x63 1x64 1x63
    case7 int16 12x256 6x256 1x256 1x256
    case8 int32 16x256 15x256 1x256 1x256
    case9 float32 16x64 15x64 1x64 1x64
    case10 int16 16x256 7x255 1x256 1x255
    case11 int32 32x256 31x255 1x256 1x255
    case12 float32 1x64 1x63 1x64 1x63"""
_COL_KIRIN = """
    case_half_1_16_512_512 float16 16x512 16x512 1x512 1x512
    case_int8_2_32_256_255 int8 32x256 32x255 2x256 2x255
    case_float_1_8_128_63 float32 8x128 8x63 1x128 1x63
    case_half_1_33_512_512 float16 33x512 33x512 1x512 1x512
    case_int8_2_17_256_44 int8 17x256 17x44 2x256 2x44
    case_float_1_54_64_63 float32 54x64 54x63 1x64 1x63"""

# (op, platform) -> (suite, the input file, the cases: name dtype dst dst-valid src src-valid)
CANONICAL: dict[tuple[str, str], tuple[str, str, str]] = {
    ("TROWEXPAND", "cpu"): ("TROWEXPAND_Test", "input.bin", """
        case_expand_float_64x64 float32 64x64 64x64 64x64 64x64"""),
    ("TROWEXPAND", "a2a3"): ("TROWEXPANDTest", "input.bin", _ROW_A2A3),
    ("TROWEXPAND", "a5"): ("TROWEXPANDTest", "input.bin", _ROW_A5 + """
        case6_int64_4_16_4_16 int64 4x16 4x16 4x16 4x1
        case7_uint64_4_16_4_16 uint64 4x16 4x16 4x16 4x1
        """ + _brcb((("float16", 4800, 16), ("float32", 7280, 8), ("float32", 16, 8)))),
    ("TROWEXPAND", "kirin9030"): ("TROWEXPANDTest", "input.bin", _ROW_KIRIN + "\n" + _brcb(
        (("float16", 2400, 16), ("float32", 3640, 8), ("float32", 16, 8)))),
    ("TROWEXPAND", "kirinDev0000"): ("TROWEXPANDTest", "input.bin", _ROW_KIRIN),
    ("TCOLEXPAND", "cpu"): ("TCOLEXPANDTest", "input1.bin", """
        case_float_64x64_64x64_64x64 float32 64x64 64x64 64x64 64x64
        case_half_16x256_16x256_16x256 float16 16x256 16x256 16x256 16x256
        case_bf16_16x256_16x256_16x256 bfloat16 16x256 16x256 16x256 16x256"""),
    ("TCOLEXPAND", "a2a3"): ("TCOLEXPANDTest", "input.bin", _COL_A2A3),
    ("TCOLEXPAND", "a5"): ("TCOLEXPANDTest", "input.bin", _COL_KIRIN + """
        case_int64_1_4_16_16 int64 4x16 4x16 1x16 1x16
        case_uint64_1_4_16_16 uint64 4x16 4x16 1x16 1x16"""),
    ("TCOLEXPAND", "kirin9030"): ("TCOLEXPANDTest", "input.bin", _COL_KIRIN),
    ("TCOLEXPAND", "kirinDev0000"): ("TCOLEXPANDTest", "input.bin", _COL_KIRIN),
}


def _rxc(token: str) -> tuple[int, int]:
    r, c = token.split("x")
    return int(r), int(c)


def canonical(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    """The cases of ``op``'s system tests on ``platform``: (name after the suite's dot, or a whole name for a
    second suite, case)."""
    out = []
    for line in CANONICAL[(op, platform)][2].strip().splitlines():
        name, dt, dst, dv, src, sv = line.split()
        out.append((name, Case(op, platform, dt, (("dst", Tile(*_rxc(dst), *_rxc(dv))),
                                                  ("src", Tile(*_rxc(src), *_rxc(sv)))))))
    return tuple(out)


def spec_source(op: str, dst: Tile, dt: dtypes.DType) -> Tile:
    """pto-spec's broadcast source for a destination: TROWEXPAND one physical column of the destination's valid
    rows, TCOLEXPAND one valid row at the destination's physical columns (the smallest legal descriptors)."""
    if op == "TROWEXPAND":
        return Tile(*spec_physical(dst.valid_rows, 1, dt), dst.valid_rows, 1)
    return Tile(spec_physical(1, dst.cols, dt)[0], dst.cols, 1, dst.valid_cols)


def _spec_union(op: str, lists: Sequence[Sequence[tuple[str, Case]]]) -> tuple[tuple[str, Case], ...]:
    """spec's canonical list: every platform's destination valid region and dtype once (those pto-spec takes), at
    the smallest legal descriptor, with pto-spec's broadcast source."""
    seen: dict[tuple[str, tuple[int, int]], Case] = {}
    for cases in lists:
        for _, c in cases:
            if c.dtype not in oracles.SPEC_DTYPES:
                continue
            dt = dtypes.get(c.dtype)
            valid = c.tile("dst").valid
            dst = Tile(*spec_physical(*valid, dt), *valid)
            seen.setdefault((c.dtype, valid), Case(op, "spec", c.dtype, (("dst", dst),
                                                                         ("src", spec_source(op, dst, dt)))))
    return tuple((f"case_{c.dtype}_{'_'.join(t.token() for _, t in c.tiles)}", c) for c in seen.values())


def _profiles(op: str) -> dict[str, Profile]:
    golden = (("golden.bin", "dst"),)
    output = (("output.bin", "dst"),)
    out: dict[str, Profile] = {}
    for platform in PLATFORMS:
        suite, infile, _ = CANONICAL[(op, platform)]
        root = platforms.get(platform).test_root
        more = f", {root}/testcase/trowexpandbrcb" if op == "TROWEXPAND" and platform in ("a5", "kirin9030") else ""
        out[platform] = Profile(
            op, platform, suite, ((infile, "src"),), golden, output, ROLES, compact=False, spelling=PLAIN,
            canonical=Listed(canonical, op, platform), param_tokens=(),
            note=f"{root}/testcase/{op.lower()}{more}: each file its whole tile")
    out["spec"] = Profile(op, "spec", f"{op}Spec", (("input1.bin", "src"),), golden, output, ROLES, compact=False,
                          spelling={}, canonical=Listed(_spec_union, op, [p.canonical for p in out.values()]),
                          physical=spec_physical,
                          note="ptofuzz full-tile layout; both tiles legal pto-spec descriptors")
    return {"spec": out.pop("spec"), **out}


# ---- cases from the CLI ------------------------------------------------------------------------------------

def explicit_case(op: str, platform: str, opts: Mapping[str, Any]) -> Case:
    """The one case ``--dtype --shape --dst`` describe: ``--dst`` the destination's valid region (default:
    ``--shape``, or 16x16), ``--shape`` its physical tile (default: the smallest legal descriptor on spec, whole
    32-byte rows elsewhere); the source is the one the formula reads (spec: pto-spec's broadcast source)."""
    platform = platforms.canonical(platform)
    dt = dtypes.get(opts.get("dtype") or DTYPES[platform][0])
    shape: tuple[int, int] | None = opts.get("shape")
    valid: tuple[int, int] = opts.get("dst") or shape or (16, 16)
    spec = platforms.get(platform).kind == platforms.SPEC
    if shape is None:
        shape = spec_physical(*valid, dt) if spec else whole_rows(*valid, dt)
    if valid[0] > shape[0] or valid[1] > shape[1]:
        raise UsageError(f"--dst {valid[0]}x{valid[1]} is larger than the tile {shape[0]}x{shape[1]}; pass a bigger "
                         "--shape or a smaller --dst")
    dst = Tile(*shape, *valid)
    if spec:
        src = spec_source(op, dst, dt)
    else:
        sv = (valid[0], 1) if op == "TROWEXPAND" else (1, valid[1])
        src = Tile(*whole_rows(*sv, dt), *sv)
    return Case(op, platform, dt.name, (("dst", dst), ("src", src)))


def replay_flags(case: Case) -> str:
    d = case.tile("dst")
    return f" --shape {d.rows}x{d.cols} --dst {d.valid_rows}x{d.valid_cols}"


# ---- fuzzing: geometry classes, fault classes, documented differences ---------------------------------------

def geometry_class(case: Case) -> str:
    """``empty`` (no valid element), ``nodesc`` (a tile pto-spec cannot describe), else ``spec`` (pto-spec's
    broadcast source) or ``wide`` (a source with more than the formula reads, or other physical columns), and
    whether the valid region fills the destination (``full``) or not (``part``)."""
    d, s = case.tile("dst"), case.tile("src")
    if 0 in d.valid:
        return "empty"
    dt = dtypes.get(case.dtype)
    if any(descriptors.problem(t, dt, max_bytes=descriptors.LOCAL_MAX) for t in (d, s)):
        return "nodesc"
    form = "spec" if oracles.spec_legality(case.on("spec")) is None else "wide"
    return f"{form},{'full' if d.valid == d.shape else 'part'}"


def fault_class(case: Case) -> str:
    """For a fault against a value: which pto-spec rule the geometry breaks, or ``spec-legal``."""
    fault = oracles.spec_legality(case.on("spec"))
    if fault is None:
        return "spec-legal"
    why = fault.fault.reason if fault.fault is not None else ""
    return "empty" if "empty" in why else "shape" if "physical columns" in why else \
        "valid" if "valid shape" in why else "nodesc"


def known_difference(sig: Signature) -> str | None:
    """The documented differences between pto-spec's model and pto-isa's pages: pto-spec faults on 64-bit
    elements (a5's pages take them) and on source geometries pto-isa accepts."""
    a, b = sig.oracles()
    if sig.kind == "fault-vs-value" and "spec" in (a, b):
        if sig.dtype_class == "int64":
            return ("pto-spec's expansions take TileVecArithmeticDataTypeSupported (no 64-bit element); a5's pages "
                    "list int64_t and uint64_t (docs/isa/T{ROW,COL}EXPAND.md)")
        if sig.geometry != "spec-legal":
            return ("pto-spec requires TROWEXPAND's source to be one physical column (TCOLEXPAND's one valid row at "
                    "the destination's columns) and faults on an empty valid region and on a tile that is no legal "
                    "descriptor; pto-isa reads the source's first column (row) at its own stride and writes nothing "
                    "for an empty region")
    return None


# ---- the instructions --------------------------------------------------------------------------------------

def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The instructions named (all by default), in :data:`NAMES` order."""
    out = []
    for op in (o for o in NAMES if o in names):
        profiles = _profiles(op)
        formula = "src[i, 0]" if op == "TROWEXPAND" else "src[0, j]"
        notes = f"docs/isa/{op}.md: dst[i, j] = {formula} over dst's valid region, a bit copy; "
        support = {
            "spec": PlatformSupport(DTYPES["spec"], oracles.spec, profiles["spec"], bad_dtype="fault",
                                    has_system_test=False,
                                    notes="pto-spec's broadcast source (TROWEXPAND: one physical column; TCOLEXPAND: "
                                          "one valid row at dst's columns), else Fault_TileLegality (trap 5)"),
            "cpu": PlatformSupport(DTYPES["cpu"], oracles.cpu, profiles["cpu"],
                                   notes=notes + "a source without what the formula reads unsupported"),
            **{p: PlatformSupport(DTYPES[p], oracles.npu, profiles[p],
                                  notes=notes + ("returns early on an empty tile" if p == "a2a3" else
                                                 "A5's runtime assertions on the source's valid region")
                                  + ("" if p in ("a2a3", "a5") else "; a5's headers"))
               for p in ("a2a3", "a5", "kirin9030", "kirinDev0000")},
        }

        def random_case(source: Source, platform: str, constraints: Mapping[str, Any], *, _op: str = op) -> Case:
            return gen.random_case(source, _op, platform, DTYPES[platforms.canonical(platform)], constraints)

        def explicit(platform: str, opts: Mapping[str, Any], *, _op: str = op) -> Case:
            return explicit_case(_op, platform, opts)

        def illegal(source: Source, constraints: Mapping[str, Any], *, _op: str = op) -> Case:
            return gen.illegal_spec_case(source, _op, DTYPES["spec"], constraints)

        out.append(Instruction(
            name=op, family="reduce-and-expand",
            summary=f"broadcast copy: dst[i, j] = {formula} over the valid region",
            inputs=("src",), outputs=("dst",), platforms=support,
            random_case=random_case, explicit_case=explicit, draw_inputs=unary.draw_inputs,
            draw_many=unary.draw_many, options=("dtype", "shape", "dst"), random_options=("dtype", "shape"),
            replay_flags=replay_flags, draw_batch=unary.draw_batch, geometry_class=geometry_class,
            fault_class=fault_class, regions=ew.regions, known_difference=known_difference, illegal_case=illegal,
            bundle=True))
    return out
