"""The arithmetic expansions TROWEXPAND{ADD,SUB,MUL,MAX,MIN} and TCOLEXPAND{ADD,SUB,MUL,MAX,MIN}: capabilities,
layouts and canonical cases per platform.

Facts from pto-isa 3186c381 (``docs/isa/T{ROW,COL}EXPAND{ADD,...}.md``: the dtypes, the row forms' two modes, the
column forms' one scalar a column; the cpu simulator's ``include/pto/cpu/TRowExpandOp.hpp`` and
``TColExpandOp.hpp``; the system tests ``tests/npu/<plat>/src/st/testcase/t{row,col}expand{add,...}/`` and the cpu
ones ``tests/cpu/st/testcase/t{row,col}expandop/`` (several instructions in one test: the folder name says which;
their DIV and EXPDIF folders are no instruction's here), their folder names, files and byte layouts as pto-isa's
catalogue of system tests lists them, each kernel's tiles from its kernel source) and pto-spec 0.58
(``asl/tile/reduce-and-expand/{row,column}-expansion/``). Semantics live in ``oracles/expandop.py``; random
geometries in ``generators/expandop.py``.

Files: the first input file holds the full-shape operand, the second the expanded one, whichever role (``src0``,
``src1``) the kernel passes them as (a2a3's ``src0eqdst=false`` cases and a5's swapped ones call
``TROWEXPAND*(dst, expanded, full)``; the column forms never swap); ``golden.bin`` the destination. The cpu tests'
files are whole tiles (zeros outside the valid region; TCOLEXPAND*'s second file the one-row tile at src0's
columns); a2a3's scripts write valid regions only (its kernels' tiles are listed with their physical shapes:
``16x16of32x32``); a5's and kirin's tiles are their valid regions, as are every NPU column test's. Each test's
cases are listed whole: ``case dtype dst src0 src1 [tmp]`` (``tmp``: a2a3's kernels that call the overload with a
tmp tile, whose result is the same), in one table (:data:`CASES`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import UNDEFINED, Case, Tile
from ptofuzz.core.layouts import Listed, Profile, spec_physical
from ptofuzz.generators import expandop as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.generators.tpart import draw_batch, draw_inputs, draw_many
from ptofuzz.instructions import elementwise as ew
from ptofuzz.instructions import expand
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import descriptors
from ptofuzz.oracles import elementwise as ew_oracles
from ptofuzz.oracles import expandop as oracles

if TYPE_CHECKING:
    from ptofuzz.core.signature import Signature

ROW_NAMES = ("TROWEXPANDADD", "TROWEXPANDSUB", "TROWEXPANDMUL", "TROWEXPANDMAX", "TROWEXPANDMIN")
COL_NAMES = ("TCOLEXPANDADD", "TCOLEXPANDSUB", "TCOLEXPANDMUL", "TCOLEXPANDMAX", "TCOLEXPANDMIN")
NAMES = (*ROW_NAMES, *COL_NAMES)
ROLES = ("dst", "src0", "src1")
PLAIN = expand.PLAIN
PLATFORMS = ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")

# ---- dtype capabilities ----------------------------------------------------------------------------------------
# docs/isa/T{ROW,COL}EXPAND{ADD,...}.md "Constraints": half, float, int16, int32 on A2, A3 and A5; uint16, uint32,
# bfloat16_t, int8, uint8 on A5 too (kirin runs a5's headers). The cpu simulator's TRowExpandOp.hpp:22-27
# (IsRowExpandAllowedType) and TColExpandOp.hpp:20-25 (IsColExpandAllowedType): float, half, int32, int16, uint32,
# uint16, and uint8 for MUL only.
A2A3_DTYPES = ("float32", "float16", "int32", "int16")
A5_DTYPES = (*A2A3_DTYPES, "uint32", "uint16", "bfloat16", "int8", "uint8")
CPU_DTYPES = ("float32", "float16", "int32", "int16", "uint32", "uint16")


def dtypes_of(op: str, platform: str) -> tuple[str, ...]:
    """The element types ``op`` takes on ``platform``."""
    platform = platforms.canonical(platform)
    if platform == "spec":
        return oracles.SPEC_DTYPES
    if platform == "cpu":
        return (*CPU_DTYPES, "uint8") if op.endswith("MUL") else CPU_DTYPES
    # a2a3's trowexpandmul system test declares uint32 cases (23-26) though the page lists uint32 for A5 only and
    # a2a3's header static_asserts it out (include/pto/npu/a2a3/TRowExpandMul.hpp:40-43): taken with the page's
    # formula (a uint32 product that wraps is undefined, as every integer width's overflow)
    if platform == "a2a3":
        return (*A2A3_DTYPES, "uint32") if op == "TROWEXPANDMUL" else A2A3_DTYPES
    return A5_DTYPES


# ---- canonical cases ------------------------------------------------------------------------------------------
# Every NPU system test's cases, from each gen_data.py's parameters and its kernel's tiles, as ONE table: a line
# ``axis ops platforms case dtype dst src0 src1 [tmp]`` is the case ``<suite>.<case>`` of each instruction of
# ``axis`` (``row``: TROWEXPAND*, ``col``: TCOLEXPAND*) whose word is in ``ops`` (``*``: all five) on each platform
# of ``platforms`` (a name of :data:`PLATFORM_GROUPS` or a comma list). A test's cases are its lines in table order.
PLATFORM_GROUPS = {"npu": ("a2a3", "a5", "kirin9030", "kirinDev0000"), "a5-like": ("a5", "kirin9030", "kirinDev0000")}
CASES = """
row * a2a3 case1 float32 16x16 16x16 16x1
row * a2a3 case2 float32 16x16of32x32 16x16of32x32 16x1
row * a2a3 case3 float16 16x16 16x16 16x1
row * a2a3 case4 float16 16x16of32x32 16x16of32x32 16x1
row * a2a3 case5 float32 1x16384 1x16384 1x1
row * a2a3 case6 float32 2048x1of2048x8 2048x1of2048x8 2048x1
row * a2a3 case7 float32 16x16 16x16 16x8
row * a2a3 case8 float32 16x16of32x32 16x16of32x32 16x8
row * a2a3 case9 float16 16x16 16x16 16x16
row * a2a3 case10 float16 16x16of32x32 16x16of32x32 16x16
row * a2a3 case11 float32 1x16384 1x16384 1x8
row * a2a3 case12 float32 2048x1of2048x8 2048x1of2048x8 2048x8
row * a2a3 case13 float32 16x16 16x1 16x16
row * a2a3 case14 float32 16x16 16x8 16x16
row * a2a3 case15 float32 16x16of32x32 16x16of32x32 16x1 tmp
row * a2a3 case16 float16 16x16 16x16 16x1 tmp
row * a2a3 case17 float32 1x16384 1x16384 1x1 tmp
row * a2a3 case18 float32 2048x1of2048x8 2048x1of2048x8 2048x1 tmp
row * a2a3 case19 int32 16x16 16x16 16x1
row * a2a3 case20 int32 16x16 16x16 16x8
row * a2a3 case21 int16 16x16 16x16 16x1
row * a2a3 case22 int16 16x16 16x16 16x16
row MUL a2a3 case23 uint32 16x16 16x16 16x1
row MUL a2a3 case24 uint32 16x16 16x16 16x8
row MUL a2a3 case25 uint32 16x16 16x1 16x16
row MUL a2a3 case26 uint32 16x16 16x8 16x16
row ADD,MUL,MAX,MIN a5-like case_fp32_16_32 float32 16x32 16x32 16x1
row ADD,MUL,MAX,MIN a5-like case_fp32_56_128 float32 56x128 56x128 56x1
row ADD,MUL,MAX,MIN a5-like case_fp16_48_64 float16 48x64 48x64 48x1
row ADD,MUL,MAX,MIN a5-like case_fp16_16_128 float16 16x128 16x128 16x1
row ADD,MUL,MAX,MIN a5-like case_fp32_24_64 float32 24x64 24x64 24x8
row ADD,MUL,MAX,MIN a5-like case_fp16_32_64 float16 32x64 32x1 32x64
row ADD,MUL,MAX,MIN a5-like case_fp32_20_64 float32 20x64 20x8 20x64
row SUB a5-like case_fp32_8_128 float32 8x128 8x128 8x1
row SUB a5-like case_fp32_24_32 float32 24x32 24x32 24x1
row SUB a5-like case_fp16_16_256 float16 16x256 16x256 16x1
row SUB a5-like case_fp16_32_64 float16 32x64 32x64 32x1
row SUB a5-like case_fp32_24_64 float32 24x64 24x64 24x8
row SUB a5-like case_fp32_16_128 float32 16x128 16x1 16x128
row SUB a5-like case_fp16_16_64 float16 16x64 16x16 16x64
row * a5 case_int32_16_32 int32 16x32 16x32 16x1
row * a5 case_int16_16_64 int16 16x64 16x64 16x1
row MUL a5 case_uint32_16_32 uint32 16x32 16x32 16x1
row MUL a5 case_uint16_16_64 uint16 16x64 16x64 16x1
col ADD,MUL,MAX,MIN npu case_fp32_16_128_1_128 float32 16x128 16x128 1x128
col ADD,MUL,MAX,MIN npu case_fp32_32_32_1_32 float32 32x32 32x32 1x32
col ADD,MUL,MAX,MIN npu case_fp16_4_256_1_256 float16 4x256 4x256 1x256
col ADD,MUL,MAX,MIN npu case_fp16_10_64_1_64 float16 10x64 10x64 1x64
col SUB npu case_fp32_6_128_1_128 float32 6x128 6x128 1x128
col SUB npu case_fp32_18_32_1_32 float32 18x32 18x32 1x32
col SUB npu case_fp16_10_256_1_256 float16 10x256 10x256 1x256
col SUB npu case_fp16_12_64_1_64 float16 12x64 12x64 1x64
col * a2a3 case_int32_8_32_1_32 int32 8x32 8x32 1x32
col * a2a3 case_int16_8_32_1_32 int16 8x32 8x32 1x32
col * a5 case_int32_16_32_1_32 int32 16x32 16x32 1x32
col * a5 case_int16_16_64_1_64 int16 16x64 16x64 1x64
col ADD,MAX,MIN kirin9030,kirinDev0000 case_int32_16_32_1_32 int32 16x32 16x32 1x32
col ADD,MAX,MIN kirin9030,kirinDev0000 case_int16_16_64_1_64 int16 16x64 16x64 1x64
col ADD a5 case_fp32_1_128_1_128 float32 1x128 1x128 1x128
col MUL a5 case_uint32_16_32_1_32 uint32 16x32 16x32 1x32
col MUL a5 case_uint16_16_64_1_64 uint16 16x64 16x64 1x64
"""
WORDS = ("ADD", "SUB", "MUL", "MAX", "MIN")
# the NPU tests' suite names: a2a3's row tests spell the mnemonic, every other test the CamelCase name
SUITE = {("row", "a2a3"): "{op}Test"}
SUITE_DEFAULT = "T{Axis}Expand{Word}Test"


def _axis(op: str) -> str:
    return oracles.AXIS[op]


def _copy(op: str) -> str:
    """The plain expansion whose broadcast source ``op`` takes (TROWEXPAND or TCOLEXPAND)."""
    return f"T{_axis(op).upper()}EXPAND"


def suite_of(op: str, platform: str) -> str:
    """The suite of ``op``'s system test on an NPU ``platform``."""
    axis = _axis(op)
    word = op.removeprefix(f"T{axis.upper()}EXPAND")
    return SUITE.get((axis, platform), SUITE_DEFAULT).format(op=op, Axis=axis.title(), Word=word.title())


def _table() -> dict[tuple[str, str], list[tuple[str, ...]]]:
    """:data:`CASES` parsed: (op, platform) -> its lines' fields ``case dtype dst src0 src1 [tmp]``, in order."""
    out: dict[tuple[str, str], list[tuple[str, ...]]] = {}
    for line in CASES.strip().splitlines():
        axis, ops, plats, *fields = line.split()
        for word in WORDS if ops == "*" else ops.split(","):
            for platform in PLATFORM_GROUPS.get(plats) or plats.split(","):
                out.setdefault((f"T{axis.upper()}EXPAND{word}", platform), []).append(tuple(fields))
    return out


NPU_CASES = _table()

# the cpu tests t{row,col}expandop: (dtype, valid, src0 tile, dst tile) per instruction (their gen_data.py's
# parameters; MUL adds uint8); TROWEXPAND*'s src1 is the ColMajor column of src0's rows, dst's valid rows
_CPU_GEOMETRIES = (("float32", "64x64", "64x64", "64x64"), ("float16", "16x256", "16x256", "16x256"),
                   ("float32", "16x16", "32x32", "64x64"), ("int16", "16x256", "16x256", "16x256"),
                   ("int32", "64x64", "64x64", "64x64"), ("uint16", "64x64", "64x64", "64x64"),
                   ("uint32", "64x64", "64x64", "64x64"))
CPU_SUITES = {"row": "TROWEXPANDOPTest", "col": "TCOLEXPANDOPTest"}
CPU_TESTS = {"row": "trowexpandop", "col": "tcolexpandop"}


def _rxc(token: str) -> tuple[int, int]:
    r, c = token.split("x")
    return int(r), int(c)


def _tile(token: str) -> Tile:
    """``8x8`` or ``8x8of16x16`` (valid of physical)."""
    valid, _, phys = token.partition("of")
    return Tile(*_rxc(phys or valid), *_rxc(valid))


def _cpu_cases(op: str) -> tuple[tuple[str, Case], ...]:
    axis = _axis(op)
    word = op.removeprefix(f"T{axis.upper()}EXPAND").lower()
    geometries = _CPU_GEOMETRIES + ((("uint8", "64x64", "64x64", "64x64"),) if word == "mul" else ())
    out = []
    for dt, valid, src, dst in geometries:
        (vr, vc), (sr, sc) = _rxc(valid), _rxc(src)
        name = f"{CPU_SUITES[axis]}.case_{word}_{PLAIN.get(dt, dt)}_{valid}_{src}_{dst}"
        src1 = Tile(sr, 1, vr, 1) if axis == "row" else Tile(1, sc, 1, vc)
        out.append((name, Case(op, "cpu", dt, (("dst", Tile(*_rxc(dst), vr, vc)), ("src0", Tile(sr, sc, vr, vc)),
                                                ("src1", src1)))))
    return tuple(out)


def canonical(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    """The cases of ``op``'s system test on ``platform``: (whole folder name, case)."""
    if platform == "cpu":
        return _cpu_cases(op)
    out = []
    suite = suite_of(op, platform)
    for name, dt, dst, s0, s1, *more in NPU_CASES[(op, platform)]:
        params = (("tmp", 1),) if more == ["tmp"] else ()
        out.append((f"{suite}.{name}", Case(op, platform, dt, (("dst", _tile(dst)), ("src0", _tile(s0)),
                                                                 ("src1", _tile(s1))), params)))
    return tuple(out)


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
            seen.setdefault((c.dtype, valid), Case(op, "spec", c.dtype, (
                ("dst", dst), ("src0", dst), ("src1", expand.spec_source(_copy(op), dst, dt)))))
    return tuple((f"case_{c.dtype}_{'_'.join(t.token() for _, t in c.tiles)}", c) for c in seen.values())


FIRST_FILE = {"cpu": ("input1.bin", "input2.bin"), "a2a3": ("input1.bin", "input2.bin"),
              "a5": ("input0.bin", "input1.bin"), "kirin9030": ("input0.bin", "input1.bin"),
              "kirinDev0000": ("input0.bin", "input1.bin")}
# the column tests' files where they differ from the row tests' (a2a3's tcolexpand* scripts: input0, input1)
COL_FIRST_FILE = {**FIRST_FILE, "a2a3": ("input0.bin", "input1.bin")}


def files_of(op: str, platform: str) -> tuple[str, str]:
    """The full-shape operand's file and the expanded operand's on ``platform``."""
    return (FIRST_FILE if _axis(op) == "row" else COL_FIRST_FILE)[platform]


def _inputs_for(op: str, platform: str) -> Any:
    full_file, expanded_file = files_of(op, platform)

    def inputs(case: Case) -> tuple[tuple[str, str], ...]:
        """The full-shape operand's file first, the expanded operand's second (module docstring)."""
        if oracles.expanded_role(case) == "src0":
            return ((full_file, "src1"), (expanded_file, "src0"))
        return ((full_file, "src0"), (expanded_file, "src1"))

    return inputs


def _profiles(op: str) -> dict[str, Profile]:
    golden = (("golden.bin", "dst"),)
    output = (("output.bin", "dst"),)
    out: dict[str, Profile] = {}
    for platform in PLATFORMS:
        cases = canonical(op, platform)
        suite = f"{op}Test" if platform == "cpu" else suite_of(op, platform)
        root = platforms.get(platform).test_root
        test = CPU_TESTS[_axis(op)] if platform == "cpu" else op.lower()
        # the cpu test's suite serves five instructions: random cases are named after their own
        out[platform] = Profile(
            op, platform, suite, ((files_of(op, platform)[0], "src0"), (files_of(op, platform)[1], "src1")),
            golden, output, ROLES, compact=platform == "a2a3", spelling=PLAIN, canonical=cases,
            inputs_for=_inputs_for(op, platform), test="" if test == op.lower() else test,
            note=f"{root}/testcase/{test}: the full-shape operand's file first; "
                 + ("valid-region files" if platform == "a2a3" else "each file its whole tile"))
    out["spec"] = Profile(op, "spec", f"{op}Spec", (("input1.bin", "src0"), ("input2.bin", "src1")), golden, output,
                          ROLES, compact=False, spelling={},
                          canonical=Listed(_spec_union, op, [p.canonical for p in out.values()]),
                          physical=spec_physical,
                          note="ptofuzz full-tile layout; every tile a legal pto-spec descriptor")
    return {"spec": out.pop("spec"), **out}


# ---- cases from the CLI ------------------------------------------------------------------------------------

def explicit_case(op: str, platform: str, opts: Mapping[str, Any]) -> Case:
    """The one case ``--dtype --shape --dst`` describe: ``--dst`` the destination's valid region (default:
    ``--shape``, or 16x16), ``--shape`` the physical tile of dst and src0 (default: the smallest legal descriptor
    on spec, whole 32-byte rows elsewhere); src1 the broadcast column (TROWEXPAND*: Mode 1) or row (TCOLEXPAND*:
    one row at dst's columns); spec: pto-spec's broadcast source."""
    platform = platforms.canonical(platform)
    copy = expand.explicit_case(_copy(op), platform, {**opts, "dtype": opts.get("dtype")
                                                      or dtypes_of(op, platform)[0]})
    d = copy.tile("dst")
    if platforms.get(platform).kind == platforms.SPEC:
        src1 = copy.tile("src")
    elif _axis(op) == "row":
        src1 = Tile(max(d.valid_rows, 1), 1, d.valid_rows, 1)
    else:
        src1 = Tile(1, d.cols, 1, d.valid_cols)
    return Case(op, platform, copy.dtype, (("dst", d), ("src0", d), ("src1", src1)))


def replay_flags(case: Case) -> str:
    d = case.tile("dst")
    return f" --shape {d.rows}x{d.cols} --dst {d.valid_rows}x{d.valid_cols}"


# ---- inputs: both sources over their whole tiles, drawn as TPART*'s (ptofuzz.instructions.tpart) -------------

def redraw(items: list[tuple[Source, Case, dict[str, np.ndarray], Any]]) -> list[Any]:
    """Plain values wherever the data left a valid element undefined (integer overflow, a NaN in max/min, an
    NPU's subnormals or overflow): in the full-shape operand's element and the broadcast value it meets (which the
    rest of its row, or column, shares); then the case again, as the tile-tile family does."""
    out: list[Any] = []
    for source, case, inputs, outcome in items:
        rows, cols = case.tile("dst").valid
        role = oracles.expanded_role(case)
        if not outcome.classes or role is None:
            out.append(None)
            continue
        r, c = np.nonzero(outcome.classes["dst"][:rows, :cols] == UNDEFINED)
        if len(r) == 0:
            out.append(None)
            continue
        dt = dtypes.get(case.dtype)
        new = {name: bits.copy() for name, bits in inputs.items()}
        full = "src1" if role == "src0" else "src0"
        new[full][r, c] = values.plain(source, dt, len(r))
        k = case.tile(role).valid_cols
        er, ec = (r, c % k) if oracles.AXIS[case.op] == "row" else (np.zeros_like(r), c)
        new[role][er, ec] = values.plain(source, dt, len(r))
        out.append((new, None))
    return out


# ---- fuzzing: geometry classes, fault classes, documented differences ---------------------------------------

def geometry_class(case: Case) -> str:
    """``empty`` (no valid element), ``nodesc`` (a tile pto-spec cannot describe), ``swap`` (src0 is the expanded
    operand), else ``spec`` (pto-spec's geometry) or ``mode1``/``mode2`` (TROWEXPAND*) or ``row1``/``cover``
    (TCOLEXPAND*: src1 one valid row of dst's valid columns, or more than that) (a documented one pto-spec does not
    take), and whether the valid region fills the destination (``full``) or not (``part``)."""
    d = case.tile("dst")
    if 0 in d.valid:
        return "empty"
    dt = dtypes.get(case.dtype)
    if any(descriptors.problem(t, dt, max_bytes=descriptors.LOCAL_MAX) for _, t in case.tiles):
        return "nodesc"
    role = oracles.expanded_role(case)
    if oracles.spec_legality(case.on("spec")) is None:
        form = "spec"
    elif role is None:
        form = "other"
    elif _axis(case.op) == "col":
        form = "row1" if case.tile("src1").valid == (1, d.valid_cols) else "cover"
    else:
        form = "swap" if role == "src0" else "mode1" if case.tile(role).valid_cols == 1 else "mode2"
    return f"{form},{'full' if d.valid == d.shape else 'part'}"


def fault_class(case: Case) -> str:
    """For a fault against a value: which pto-spec rule the geometry breaks, or ``spec-legal``."""
    fault = oracles.spec_legality(case.on("spec"))
    if fault is None:
        return "spec-legal"
    why = fault.fault.reason if fault.fault is not None else ""
    return "empty" if "empty" in why else "full" if "full-shape" in why else \
        "shape" if "physical columns" in why else "valid" if "valid shape" in why else "nodesc"


def known_difference(sig: Signature) -> str | None:
    """The documented differences between pto-spec's model and pto-isa's pages: pto-spec takes only its broadcast
    geometry (src0 the destination's tile; src1 one physical column, or one valid row at the destination's
    columns), pto-isa's pages a source at its own stride, TROWEXPAND*'s Mode 2 and role swap, and a TCOLEXPAND*
    src1 whose valid shape covers more than the columns."""
    a, b = sig.oracles()
    if sig.kind == "fault-vs-value" and "spec" in (a, b) and sig.geometry != "spec-legal" and sig.op in COL_NAMES:
        return ("pto-spec requires src0 to be the destination's tile and src1 one valid row of its valid columns at "
                "its physical columns, and faults on an empty valid region and on a tile that is no legal descriptor; "
                "pto-isa's pages take a src1 at its own stride whose valid shape covers the columns")
    if sig.kind == "fault-vs-value" and "spec" in (a, b) and sig.geometry != "spec-legal":
        return ("pto-spec requires src0 to be the destination's tile and src1 one physical column of its valid rows, "
                "and faults on an empty valid region and on a tile that is no legal descriptor; pto-isa's pages take "
                "a source at its own stride, the 32-byte block a row (Mode 2) and src0 as the expanded operand")
    return None


# ---- the instructions --------------------------------------------------------------------------------------

def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The instructions named (all by default), in :data:`NAMES` order."""
    out = []
    for op in (o for o in NAMES if o in names):
        profiles = _profiles(op)
        word = oracles.OPS[op]
        formula = f"{word}(src0, b)" if word in ("max", "min") else f"src0 {ew_oracles.SYMBOL[word]} b"
        row = _axis(op) == "row"
        if row:
            notes = (f"docs/isa/{op}.md: dst = {formula} over dst's valid region, b the expanded operand's value a "
                     "row (Mode 1: one column; Mode 2: a 32-byte block), src0 and src1 swap roles when src1 is full; ")
            spec_notes = "src0 the destination's tile, src1 one physical column of dst's valid rows"
        else:
            notes = (f"docs/isa/{op}.md: dst = {formula} over dst's valid region, b = src1[0, j] (one scalar a "
                     "column), src0 of dst's valid shape; ")
            spec_notes = "src0 the destination's tile, src1 one valid row of dst's valid columns at its columns"
        support = {
            "spec": PlatformSupport(dtypes_of(op, "spec"), oracles.spec, profiles["spec"], bad_dtype="fault",
                                    has_system_test=False,
                                    notes=spec_notes + ", else Fault_TileLegality (trap 5)"),
            "cpu": PlatformSupport(dtypes_of(op, "cpu"), oracles.cpu, profiles["cpu"],
                                   notes=notes + "integer overflow undefined; IEEE on the host"),
            **{p: PlatformSupport(dtypes_of(op, p), oracles.npu, profiles[p],
                                  notes=notes + "integer overflow, float overflow and subnormal effects undefined"
                                  + ("" if p in ("a2a3", "a5") else "; a5's headers"))
               for p in ("a2a3", "a5", "kirin9030", "kirinDev0000")},
        }

        def random_case(source: Source, platform: str, constraints: Mapping[str, Any], *, _op: str = op) -> Case:
            return gen.random_case(source, _op, platform, dtypes_of(_op, platform), constraints)

        def explicit(platform: str, opts: Mapping[str, Any], *, _op: str = op) -> Case:
            return explicit_case(_op, platform, opts)

        def illegal(source: Source, constraints: Mapping[str, Any], *, _op: str = op) -> Case:
            return gen.illegal_spec_case(source, _op, oracles.SPEC_DTYPES, constraints)

        out.append(Instruction(
            name=op, family="reduce-and-expand",
            summary=(f"row-broadcast {word}: dst[i, j] = {formula} over the valid region, b the expanded operand's"
                     if row else f"column-broadcast {word}: dst[i, j] = {formula} over the valid region, "
                                 "b = src1[0, j]"),
            inputs=("src0", "src1"), outputs=("dst",), platforms=support,
            random_case=random_case, explicit_case=explicit, draw_inputs=draw_inputs, draw_many=draw_many,
            options=("dtype", "shape", "dst"), random_options=("dtype", "shape"), replay_flags=replay_flags,
            redraw=redraw, draw_batch=draw_batch, geometry_class=geometry_class, fault_class=fault_class,
            regions=ew.regions, known_difference=known_difference, illegal_case=illegal, bundle=True))
    return out

