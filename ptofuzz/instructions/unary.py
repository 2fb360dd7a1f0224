"""The elementwise unary instructions (TABS, TNEG, TRELU, TNOT): capabilities, layouts and canonical cases per
platform.

Facts from pto-isa 3186c381 (``docs/isa/T{ABS,NEG,RELU,NOT}.md``: the dtypes each implementation checks; the
system tests ``tests/{cpu/st,npu/<plat>/src/st}/testcase/t{abs,neg,relu,not}/``: folder names, files and byte
layouts, as ``../shared/reference/pto-isa-st-catalog.json`` lists them) and pto-spec 0.58
(``asl/tile/elementwise-tile-tile/logical/``). Semantics live in ``oracles/unary.py``; random geometries in
``generators/elementwise.py`` (one source).

Every case has one valid region, shared by both tiles. The system tests name their cases in several forms
(``case_<dt>_<dst>_<src>_<valid>``, a2a3 TNEG's ``case_<dt>_<tile>_<valid>``, cpu TNOT's ``case_0`` ..
``case_7``, ``_inPlace_True``/``_InPlace`` for a destination that is its source), so each test's cases are listed
whole: ``name dtype dst-tile src-tile valid [inplace]``. cpu TNOT's ``case_4`` .. ``case_7`` are the uint32 and
uint16 kernels its main.cpp runs (its gen_data.py draws them as int32/int16: the same bits). Each test's files
hold whole tiles, or the valid region only (``compact``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.layouts import Listed, Profile, spec_physical
from ptofuzz.generators import elementwise as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.instructions import elementwise as ew
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import unary as oracles

NAMES = ("TABS", "TNEG", "TRELU", "TNOT")  # registry.MODULES lists the same, in this order
ROLES = ("dst", "src")
PLAIN = {"float32": "float", "float16": "half", "bfloat16": "bf16"}  # others: numpy names (int16, uint32...)
PLATFORMS = ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")

# ---- dtype capabilities (docs/isa/<OP>.md "Implementation checks"; kirin runs a5's headers) ------------------
_FLOATS = ("float32", "float16", "bfloat16")
_INTS = ("int32", "int16", "int8", "uint32", "uint16", "uint8")
DTYPES: dict[str, dict[str, tuple[str, ...]]] = {
    # cpu: TAbs.hpp's static_assert; TNEG/TRELU/TNOT (ElementOp.h) are templates over the element type (TNOT:
    # the integers, ~ of a float does not compile)
    "TABS": {"spec": oracles.SPEC_DTYPES, "cpu": ("float32", "float16", "bfloat16", "int32", "int16", "int8"),
             "a2a3": ("float32", "float16"), "a5": ("float32", "float16", "int32", "int16", "int8")},
    "TNEG": {"spec": oracles.SPEC_DTYPES, "cpu": _FLOATS + _INTS, "a2a3": ("float32", "float16", "int32", "int16"),
             "a5": ("float32", "float16", "bfloat16", "int32", "int16", "uint32", "uint16")},
    "TRELU": {"spec": oracles.SPEC_DTYPES, "cpu": _FLOATS + _INTS, "a2a3": ("float32", "float16", "int32"),
              "a5": ("float32", "float16", "int32")},
    "TNOT": {"spec": oracles.SPEC_DTYPES_NOT, "cpu": _INTS, "a2a3": _INTS, "a5": _INTS},
}

# (op, platform) -> (suite, compact files, the input file, the cases: name dtype dst src valid [inplace])
_LISTED: dict[tuple[str, str], tuple[str, bool, str, str]] = {
    ("TABS", "cpu"): ("TABSTest", False, "input1.bin", """
        case_float_64x64_64x64_64x64 float32 64x64 64x64 64x64
        case_int32_64x64_64x64_64x64 int32 64x64 64x64 64x64
        case_int16_64x64_64x64_64x64 int16 64x64 64x64 64x64
        case_int8_64x64_64x64_64x64 int8 64x64 64x64 64x64
        case_half_16x256_16x256_16x256 float16 16x256 16x256 16x256
        case_bf16_16x256_16x256_16x256 bfloat16 16x256 16x256 16x256
        """),
    ("TABS", "a2a3"): ("TABSTest", False, "input1.bin", """
        case_float_64x64_64x64_64x64_inPlace_True float32 64x64 64x64 64x64 inplace
        case_float_64x64_64x64_64x64_inPlace_False float32 64x64 64x64 64x64
        case_half_64x64_64x64_64x64_inPlace_True float16 64x64 64x64 64x64 inplace
        case_half_64x64_64x64_64x64_inPlace_False float16 64x64 64x64 64x64
        """),
    ("TABS", "a5"): ("TABSTest", False, "input1.bin", """
        case_float_64x64_64x64_64x64_InPlace float32 64x64 64x64 64x64 inplace
        case_float_64x64_64x64_64x64 float32 64x64 64x64 64x64
        case_half_64x64_64x64_64x64_InPlace float16 64x64 64x64 64x64 inplace
        case_half_64x64_64x64_64x64 float16 64x64 64x64 64x64
        case_int8_64x64_64x64_64x64_InPlace int8 64x64 64x64 64x64 inplace
        case_int8_64x64_64x64_64x64 int8 64x64 64x64 64x64
        case_int16_64x64_64x64_64x64_InPlace int16 64x64 64x64 64x64 inplace
        case_int16_64x64_64x64_64x64 int16 64x64 64x64 64x64
        case_int32_64x64_64x64_64x64_InPlace int32 64x64 64x64 64x64 inplace
        case_int32_64x64_64x64_64x64 int32 64x64 64x64 64x64
        """),
    ("TABS", "kirin9030"): ("TABSTest", False, "input1.bin", """
        case_float_64x64_64x64_64x64_inPlace_True float32 64x64 64x64 64x64 inplace
        case_float_64x64_64x64_64x64_inPlace_False float32 64x64 64x64 64x64
        case_half_64x64_64x64_64x64_inPlace_True float16 64x64 64x64 64x64 inplace
        case_half_64x64_64x64_64x64_inPlace_False float16 64x64 64x64 64x64
        """),
    ("TNEG", "cpu"): ("TNEGTest", False, "input1.bin", """
        case_float_64x64_64x64_64x64 float32 64x64 64x64 64x64
        case_int32_64x64_64x64_64x64 int32 64x64 64x64 64x64
        case_int16_64x64_64x64_64x64 int16 64x64 64x64 64x64
        case_half_16x256_16x256_16x256 float16 16x256 16x256 16x256
        case_bf16_16x256_16x256_16x256 bfloat16 16x256 16x256 16x256
        """),
    ("TNEG", "a2a3"): ("TNEGTest", False, "input1.bin", """
        case_float_64x64_64x64 float32 64x64 64x64 64x64
        case_int32_32x32_32x32 int32 32x32 32x32 32x32
        case_half_32x64_32x64 float16 32x64 32x64 32x64
        case_int16_64x16_64x16 int16 64x16 64x16 64x16
        """),
    ("TNEG", "a5"): ("TNEGTest", False, "input1.bin", """
        case_float_64x64_64x64 float32 64x64 64x64 64x64
        case_int32_32x32_32x32 int32 32x32 32x32 32x32
        case_half_32x64_32x64 float16 32x64 32x64 32x64
        case_int16_64x16_64x16 int16 64x16 64x16 64x16
        case_int16_1x16_1x16 int16 1x16 1x16 1x16
        """),
    ("TNEG", "kirin9030"): ("TNEGTest", False, "input1.bin", """
        case_float_64x64_64x64 float32 64x64 64x64 64x64
        case_int32_32x32_32x32 int32 32x32 32x32 32x32
        case_half_32x64_32x64 float16 32x64 32x64 32x64
        case_int16_64x16_64x16 int16 64x16 64x16 64x16
        case_uint32_32x32_32x32 uint32 32x32 32x32 32x32
        case_float_128x128_128x128 float32 128x128 128x128 128x128
        case_half_128x128_128x128 float16 128x128 128x128 128x128
        case_int32_64x64_64x64 int32 64x64 64x64 64x64
        case_float_16x256_16x256 float32 16x256 16x256 16x256
        case_half_16x256_16x256 float16 16x256 16x256 16x256
        case_int16_128x32_128x32 int16 128x32 128x32 128x32
        case_uint32_64x64_64x64 uint32 64x64 64x64 64x64
        case_int32_128x128_128x128 int32 128x128 128x128 128x128
        """),
    ("TRELU", "cpu"): ("TRELUTest", False, "input1.bin", """
        case_float_64x64_64x64_64x64 float32 64x64 64x64 64x64
        case_int32_64x64_64x64_64x64 int32 64x64 64x64 64x64
        case_int16_64x64_64x64_64x64 int16 64x64 64x64 64x64
        case_half_16x256_16x256_16x256 float16 16x256 16x256 16x256
        case_bf16_16x256_16x256_16x256 bfloat16 16x256 16x256 16x256
        """),
    ("TRELU", "a2a3"): ("TRELUTest", True, "input.bin", """
        case_int32_64x64_64x64_64x64 int32 64x64 64x64 64x64
        case_half_60x60_64x64_60x60 float16 64x64 64x64 60x60
        case_float32_60x60_64x64_60x60 float32 64x64 64x64 60x60
        """),
    ("TRELU", "a5"): ("TRELUTest", True, "input.bin", """
        case_int32_64x64_64x64_64x64 int32 64x64 64x64 64x64
        case_half_60x60_64x64_60x60 float16 64x64 64x64 60x60
        case_float32_60x60_64x64_60x60 float32 64x64 64x64 60x60
        """),
    ("TRELU", "kirin9030"): ("TRELUTest", True, "input.bin", """
        case_int32_64x64_64x64_64x64 int32 64x64 64x64 64x64
        case_half_60x60_64x64_60x60 float16 64x64 64x64 60x60
        case_float32_60x60_64x64_60x60 float32 64x64 64x64 60x60
        """),
    ("TNOT", "cpu"): ("TNOTTest", True, "input1.bin", """
        case_0 int32 64x64 64x64 60x55
        case_1 int16 64x64 64x64 60x55
        case_2 int32 96x96 64x64 64x60
        case_3 int16 96x96 64x64 64x60
        case_4 uint32 64x64 64x64 60x55
        case_5 uint16 64x64 64x64 60x55
        case_6 uint32 96x96 96x96 64x60
        case_7 uint16 64x64 96x96 64x60
        """),
    ("TNOT", "a2a3"): ("TNOTTest", True, "input.bin", """
        case_int16_64x64_64x64_64x64 int16 64x64 64x64 64x64
        case_uint16_60x60_64x64_60x60 uint16 64x64 64x64 60x60
        case_int8_64x64_64x64_64x64 int8 64x64 64x64 64x64
        case_uint8_60x60_64x64_60x60 uint8 64x64 64x64 60x60
        case_int32_64x64_64x64_64x64 int32 64x64 64x64 64x64
        case_uint32_60x60_64x64_60x60 uint32 64x64 64x64 60x60
        """),
    ("TNOT", "a5"): ("TNOTTest", True, "input.bin", """
        case_int8_64x64_64x64_64x64 int8 64x64 64x64 64x64
        case_uint8_60x60_64x64_60x60 uint8 64x64 64x64 60x60
        case_int16_64x64_64x64_64x64 int16 64x64 64x64 64x64
        case_uint16_60x60_64x64_60x60 uint16 64x64 64x64 60x60
        case_int32_64x64_64x64_64x64 int32 64x64 64x64 64x64
        case_uint32_60x60_64x64_60x60 uint32 64x64 64x64 60x60
        """),
    ("TNOT", "kirin9030"): ("TNOTTest", True, "input.bin", """
        case_int8_64x64_64x64_64x64 int8 64x64 64x64 64x64
        case_uint8_60x60_64x64_60x60 uint8 64x64 64x64 60x60
        case_int16_64x64_64x64_64x64 int16 64x64 64x64 64x64
        case_uint16_60x60_64x64_60x60 uint16 64x64 64x64 60x60
        case_int32_64x64_64x64_64x64 int32 64x64 64x64 64x64
        case_uint32_60x60_64x64_60x60 uint32 64x64 64x64 60x60
        """),
}
CANONICAL = {**_LISTED, **{(op, "kirinDev0000"): _LISTED[(op, "kirin9030")] for op in NAMES}}  # kirinDev0000's
# scripts are kirin9030's


def _rxc(token: str) -> tuple[int, int]:
    r, c = token.split("x")
    return int(r), int(c)


def canonical(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    """The cases of ``op``'s system test on ``platform``: (name after the suite's dot, case)."""
    out = []
    for line in CANONICAL[(op, platform)][3].strip().splitlines():
        name, dt, dst, src, valid, *rest = line.split()
        v = _rxc(valid)
        params: tuple[tuple[str, Any], ...] = (("inplace", "src"),) if rest == ["inplace"] else ()
        out.append((name, Case(op, platform, dt, (("dst", Tile(*_rxc(dst), *v)), ("src", Tile(*_rxc(src), *v))),
                               params)))
    return tuple(out)


def _spec_union(op: str, lists: Sequence[Sequence[tuple[str, Case]]]) -> tuple[tuple[str, Case], ...]:
    """spec's canonical list: every platform's valid region and dtype once (those pto-spec takes), both tiles the
    smallest legal descriptor holding it."""
    seen: dict[tuple[str, tuple[int, int]], Case] = {}
    for cases in lists:
        for _, c in cases:
            if c.dtype not in DTYPES[op]["spec"]:
                continue
            valid = c.tile("dst").valid
            phys = spec_physical(*valid, dtypes.get(c.dtype))
            seen.setdefault((c.dtype, valid), Case(op, "spec", c.dtype, tuple((r, Tile(*phys, *valid))
                                                                               for r in ROLES)))
    return tuple((f"case_{c.dtype}_{'_'.join(t.token() for _, t in c.tiles)}", c) for c in seen.values())


def _profiles(op: str) -> dict[str, Profile]:
    golden = (("golden.bin", "dst"),)
    output = (("output.bin", "dst"),)
    out: dict[str, Profile] = {}
    for platform in PLATFORMS:
        suite, compact, infile, _ = CANONICAL[(op, platform)]
        root = platforms.get(platform).test_root
        out[platform] = Profile(
            op, platform, suite, ((infile, "src"),), golden, output, ROLES, compact=compact, spelling=PLAIN,
            canonical=Listed(canonical, op, platform), param_tokens=(),
            note=f"{root}/testcase/{op.lower()}: {'valid-region files' if compact else 'each file its whole tile'}")
    out["spec"] = Profile(op, "spec", f"{op}Spec", (("input1.bin", "src"),), golden, output, ROLES, compact=False,
                          spelling={}, canonical=Listed(_spec_union, op, [p.canonical for p in out.values()]),
                          physical=spec_physical,
                          note="ptofuzz full-tile layout; both tiles one legal pto-spec descriptor")
    return {"spec": out.pop("spec"), **out}


# ---- inputs: the source over its whole tile -------------------------------------------------------------------

def draw_many(items: Sequence[tuple[Source, Case]], mix: values.ValueMix) -> list[dict[str, np.ndarray]]:
    """The source bits of many cases, each from its own source (all over the whole physical tile: an
    implementation must not read outside the valid region); one ``values.draw_mixed`` for element-level kinds."""
    if values.draws_rows(mix):
        return [{"src": values.draw(source, dtypes.get(case.dtype), case.tile("src").shape, mix)}
                for source, case in items]
    drawn = values.draw_mixed([(source, dtypes.get(case.dtype), (case.tile("src").rows * case.tile("src").cols,))
                               for source, case in items], mix)
    return [{"src": bits.reshape(case.tile("src").shape)} for (_, case), bits in zip(items, drawn)]


def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    return draw_many([(source, case)], mix)[0]


def draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    """``n`` cases' source bits at once, stacked on a leading axis (element-level special values only)."""
    r, c = case.tile("src").shape
    return {"src": values.draw(source, dtypes.get(case.dtype), (n * r * c,), mix).reshape(n, r, c)}


def redraw(items: list[tuple[Source, Case, dict[str, np.ndarray], Any]]) -> list[Any]:
    """Plain values in the source wherever the data left a valid element undefined (|MIN|, -MIN, the negation of
    an unsigned value, TRELU of a NaN, an NPU's subnormals), then the case again, as the tile-tile family does."""
    return ew.redraw(items, ("src",))


# ---- fuzzing: geometry classes, regions (as the tile-tile family's), documented differences ---------------

def fault_class(case: Case) -> str:
    """For a fault against a value: which pto-spec rule the geometry breaks, or ``spec-legal``."""
    return ew.fault_class(case, ("src",))


# ---- the instructions --------------------------------------------------------------------------------------

def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The instructions named (all by default), in :data:`NAMES` order."""
    out = []
    for op in (o for o in NAMES if o in names):
        profiles = _profiles(op)
        sup = {**DTYPES[op], "kirin9030": DTYPES[op]["a5"], "kirinDev0000": DTYPES[op]["a5"]}
        formula = oracles.FORMULA[oracles.OPS[op]]
        notes = f"docs/isa/{op}.md: dst = {formula} over dst's valid region; "
        support = {
            "spec": PlatformSupport(sup["spec"], oracles.spec, profiles["spec"], bad_dtype="fault",
                                    has_system_test=False,
                                    notes="one physical and valid shape for both tiles, else Fault_TileLegality "
                                          "(trap 5)"),
            "cpu": PlatformSupport(sup["cpu"], oracles.cpu, profiles["cpu"],
                                   notes=notes + "an integer result that does not fit undefined; IEEE on the host"),
            **{p: PlatformSupport(sup[p], oracles.npu, profiles[p],
                                  notes=notes + "an integer result that does not fit and subnormal effects undefined"
                                  + ("" if p in ("a2a3", "a5") else "; a5's headers"))
               for p in ("a2a3", "a5", "kirin9030", "kirinDev0000")},
        }

        def random_case(source: Source, platform: str, constraints: Mapping[str, Any], *, _op: str = op,
                        _sup: dict[str, tuple[str, ...]] = sup) -> Case:
            return gen.random_case(source, _op, platform, _sup[platforms.canonical(platform)], constraints, ROLES)

        def explicit(platform: str, opts: Mapping[str, Any], *, _op: str = op,
                     _sup: dict[str, tuple[str, ...]] = sup) -> Case:
            return ew.explicit_case(_op, _sup, platform, opts, ROLES)

        def illegal(source: Source, constraints: Mapping[str, Any], *, _op: str = op,
                    _sup: dict[str, tuple[str, ...]] = sup) -> Case:
            return gen.illegal_spec_case(source, _op, _sup["spec"], constraints, ROLES)

        out.append(Instruction(
            name=op, family="elementwise-unary",
            summary=f"elementwise unary: dst = {formula} over the valid region",
            inputs=("src",), outputs=("dst",), platforms=support,
            random_case=random_case, explicit_case=explicit, draw_inputs=draw_inputs, draw_many=draw_many,
            options=("dtype", "shape", "dst"), random_options=("dtype", "shape"), replay_flags=ew.replay_flags,
            redraw=redraw, draw_batch=draw_batch, geometry_class=ew.geometry_class, fault_class=fault_class,
            regions=ew.regions, known_difference=ew.spec_geometry_difference, illegal_case=illegal, bundle=True))
    return out
