"""TDEQUANT: capabilities, layouts and the system tests' cases; semantics in ``oracles/dequant.py``.

Facts from pto-isa 3186c381: ``docs/isa/TDEQUANT.md`` (S8 or S16 to FP32, FP32 per-row ``scale`` and ``offset``
tiles; every target) and the system tests ``tests/{cpu/st,npu/<plat>/src/st}/testcase/tdequant``: cpu, a5 and
kirin9030 write ``input.bin`` (the source tile), ``scale.bin`` and ``offset.bin`` (R x 1 float32) and
``golden.bin`` (the destination tile), each the whole tile; a2a3 writes ``srcInput.bin``, ``scaleInput.bin``,
``offsetInput.bin`` (its parameter tiles are wider: the parameters in column 0 of the valid rows) and
``golden.bin``, and its source tile may have fewer rows than the destination's. Every kernel's parameter tiles have
the valid region (valid rows, 1), so every element reads column 0. pto-spec's TDEQUANT takes scalar parameters
(a multiplier and a zero point) and S8/U8 sources: no tile form to compare (no ``spec`` model).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Listed, Profile
from ptofuzz.generators import values
from ptofuzz.generators.elementwise import valid_region
from ptofuzz.generators.source import Source
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import dequant as oracles

NAMES = ("TDEQUANT",)
PLATFORMS = ("cpu", "a2a3", "a5", "kirin9030")
ROLES = ("dst", "src", "scale", "offset")
SPELLING = {"int8": "int8", "int16": "int16"}

# the system tests as data: name dtype rows cols valid_rows valid_cols (cpu, a5, kirin9030: src = dst tile,
# parameters rows x 1)
_A5 = """
    case1 int16 64 64 64 64
    case2 int16 128 128 64 64
    case3 int16 128 128 63 63
    case4 int8 64 64 64 64
    case5 int8 128 128 64 64
    case6 int8 128 128 63 63
    case7 int16 51 112 51 112"""
LISTED = {
    "cpu": """
    case1 int16 64 64 64 64
    case2 int8 64 64 64 64""",
    "a5": _A5,
    "kirin9030": "\n".join(_A5.splitlines()[:7]),
}
# a2a3: name dtype dst-tile src-tile valid parameter-tile
A2A3 = """
    case1 int8 32x32 32x32 32x32 32x32
    case2 int16 32x32 32x32 32x32 32x32
    case3 int8 64x64 32x64 31x31 48x32
    case4 int16 32x32 16x32 15x15 24x16
    case5 int8 64x128 32x128 31x62 48x32
    case6 int16 4x256 4x256 4x255 4x16
    case7 int8 2x128 2x128 2x128 2x128
    case8 int8 2x128 2x128 2x127 2x128
    case9 int8 2x512 2x512 2x511 2x512
    case10 int8 1x12288 1x12288 1x12288 1x12288
    case11 int16 1x12288 1x12288 1x12288 1x12288"""


def _rxc(token: str) -> tuple[int, int]:
    r, c = token.split("x")
    return int(r), int(c)


def make_case(platform: str, dtype: str, dst: tuple[int, int], src: tuple[int, int], valid: tuple[int, int],
              para: tuple[int, int]) -> Case:
    """A case: the destination and source tiles (one valid region), parameter tiles valid (valid rows, 1)."""
    ptile = Tile(*para, valid[0], 1)
    return Case("TDEQUANT", platform, dtype, (("dst", Tile(*dst, *valid)), ("src", Tile(*src, *valid)),
                                              ("scale", ptile), ("offset", ptile)))


def canonical(platform: str) -> tuple[tuple[str, Case], ...]:
    out = []
    if platform == "a2a3":
        for line in A2A3.strip().splitlines():
            name, dt, dst, src, valid, para = line.split()
            out.append((name, make_case(platform, dt, _rxc(dst), _rxc(src), _rxc(valid), _rxc(para))))
        return tuple(out)
    for line in LISTED[platform].strip().splitlines():
        name, dt, rows, cols, vr, vc = line.split()
        r, c = int(rows), int(cols)
        out.append((name, make_case(platform, dt, (r, c), (r, c), (int(vr), int(vc)), (r, 1))))
    return tuple(out)


def derive(named: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
    """A general-grammar name's tiles: the source as the destination, parameters (rows x 1, valid rows x 1)."""
    d = named["dst"]
    ptile = Tile(d.rows, 1, d.valid_rows, 1)
    return (("dst", d), ("src", d), ("scale", ptile), ("offset", ptile))


def _profiles() -> dict[str, Profile]:
    out = {}
    for p in PLATFORMS:
        files = ("srcInput.bin", "scaleInput.bin", "offsetInput.bin") if p == "a2a3" else \
            ("input.bin", "scale.bin", "offset.bin")
        out[p] = Profile("TDEQUANT", p, "TDEQUANTTest", tuple(zip(files, ("src", "scale", "offset"))),
                         (("golden.bin", "dst"),), (("output.bin", "dst"),), ("dst",), compact=False,
                         spelling=SPELLING, canonical=Listed(canonical, p), derive=derive,
                         note=f"{platforms.get(p).test_root}/testcase/tdequant: each file its whole tile")
    return out


# ---- cases -------------------------------------------------------------------------------------------------------

def random_case(source: Source, platform: str, constraints: Mapping[str, Any]) -> Case:
    dt = dtypes.get(constraints.get("dtype") or source.choice(oracles.SOURCES))
    vr, vc = valid_region(source, dtypes.get("int8"), allow_zero=True, shape=constraints.get("shape"))
    rows = vr + int(source.integers(0, 2)) * int(source.integers(1, 8))
    cols = -(-max(vc, 1) // 32) * 32 + int(source.integers(0, 1)) * 32
    return make_case(platform, dt.name, (rows, cols), (rows, cols), (vr, vc), (rows, 1))


def explicit_case(platform: str, opts: Mapping[str, Any]) -> Case:
    dt = dtypes.get(opts.get("dtype") or "int8")
    valid: tuple[int, int] = opts.get("dst") or opts.get("shape") or (16, 32)
    shape: tuple[int, int] = opts.get("shape") or (valid[0], -(-valid[1] // 32) * 32)
    if valid[0] > shape[0] or valid[1] > shape[1]:
        raise UsageError(f"--dst {valid[0]}x{valid[1]} is larger than the tile {shape[0]}x{shape[1]}; pass a bigger "
                         "--shape or a smaller --dst")
    return make_case(platform, dt.name, shape, shape, valid, (shape[0], 1))


def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    f32 = dtypes.get("float32")
    return {"src": values.draw(source, dtypes.get(case.dtype), case.tile("src").shape, mix),
            "scale": values.draw(source, f32, case.tile("scale").shape, mix),
            "offset": values.draw(source, f32, case.tile("offset").shape, mix)}


def draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    f32 = dtypes.get("float32")
    out = {}
    for role, dt in (("src", dtypes.get(case.dtype)), ("scale", f32), ("offset", f32)):
        r, c = case.tile(role).shape
        out[role] = values.draw(source, dt, (n * r * c,), mix).reshape(n, r, c)
    return out


def geometry_class(case: Case) -> str:
    d = case.tile("dst")
    return "empty" if 0 in d.valid else "full" if d.valid == d.shape else "part"


def regions(case: Case, role: str) -> tuple[tuple[str, ...], np.ndarray]:
    d = case.tile(role)
    inside = (np.arange(d.rows)[:, None] < d.valid_rows) & (np.arange(d.cols)[None, :] < d.valid_cols)
    return ("op", "outside"), np.where(inside, 0, 1).astype(np.uint8)


def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    if "TDEQUANT" not in names:
        return []
    profiles = _profiles()
    notes = "docs/isa/TDEQUANT.md: (src - offset) * scale in FP32 (vsub, vmul: round to nearest even each)"
    support = {"cpu": PlatformSupport(oracles.SOURCES, oracles.cpu, profiles["cpu"], notes=notes),
               **{p: PlatformSupport(oracles.SOURCES, oracles.npu, profiles[p],
                                     notes=notes + "; subnormal effects undefined")
                  for p in ("a2a3", "a5", "kirin9030")}}
    return [Instruction(
        name="TDEQUANT", family="conversion", summary="dequantization: dst = (src - offset) * scale, per row",
        inputs=("src", "scale", "offset"), outputs=("dst",), platforms=support, random_case=random_case,
        explicit_case=explicit_case, draw_inputs=draw_inputs,
        role_dtypes={"dst": "float32", "scale": "float32", "offset": "float32"},
        options=("dtype", "shape", "dst"), draw_batch=draw_batch, geometry_class=geometry_class, regions=regions,
        unmodelled={"spec": "pto-spec's TDEQUANT takes a scalar multiplier and zero point and S8/U8 sources; no "
                            "tile form to compare"})]
