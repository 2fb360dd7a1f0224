"""TQUANT: capabilities, layouts and the system tests' cases; semantics in ``oracles/quant.py``.

Facts from pto-isa 3186c381: ``docs/isa/TQUANT.md`` (INT8 symmetric to int8 and asymmetric to uint8 from FP32 on
every target, 118-129 and 161-163; the MX formats on A5 only) and the system tests
``tests/npu/<plat>/src/st/testcase/tquant``. The INT8 folders (a2a3, a5, kirin9030, kirinDev0000) hold
``input.bin`` (the FP32 source), ``inv_scale_fp32.bin`` and ``offset_fp32.bin`` (R x 1 FP32: the kernel's scale
and offset tiles; a symmetric case's offset file holds zeros and is not read) and ``golden_s8.bin`` or
``golden_u8.bin``, each its valid region. A case's dtype is the source's; param ``to`` the destination's (int8:
INT8_SYM, uint8: INT8_ASYM). There is no cpu system test. pto-spec's TQUANT takes one scalar multiplier and one
zero point (B.IOR) for the whole tile; pto-isa's tests give every row its own: no tile form to compare (no
``spec`` model).

Every INT8 golden of pto-isa multiplies the source by the scale operand (the test passes the reciprocal of its
scale, ``inv_scale_fp32.bin``); TQUANT.md:35 divides by it. ``check`` names those goldens (:func:`explain`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Profile
from ptofuzz.generators import values
from ptofuzz.generators.elementwise import valid_region
from ptofuzz.generators.source import Source
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import quant as oracles
from ptofuzz.oracles.quant import TO

NAMES = ("TQUANT",)
PLATFORMS = ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")
SPELLING = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}
QUANT_WORD = {"int8": "int8_sym", "uint8": "int8_asym"}  # the tests' words for the INT8 destinations

# the INT8 system tests' folders in the order each gen_data.py writes them: <quant word> <RxC>...; (valid = tile)
_KIRIN = "int8_sym 64x128 128x128 192x128; int8_asym 64x128 128x128 192x128 32x72"
INT8_TESTS = {
    "a2a3": "int8_sym 64x128 128x128 256x128; int8_asym 64x128 128x128 256x128 32x72; "
            "int8_sym 2x129; int8_asym 2x129; int8_sym 2x122; int8_asym 2x122; int8_sym 16x127; int8_asym 16x127; "
            "int8_sym 8x130; int8_asym 8x130; int8_sym 64x65; int8_asym 64x65",
    "kirin9030": _KIRIN, "kirinDev0000": _KIRIN,
}
#: the platforms whose whole test ptofuzz writes (``gen`` without flags)
COMPLETE = ("a2a3", "kirin9030", "kirinDev0000")


def int8_case(platform: str, to: str, valid: tuple[int, int], shape: tuple[int, int] | None = None) -> Case:
    """An INT8 case: source and destination one tile, parameter tiles (rows x 1, valid rows x 1)."""
    rows, cols = shape or valid
    ptile = Tile(rows, 1, valid[0], 1)
    tile = Tile(rows, cols, *valid)
    return Case("TQUANT", platform, "float32", (("dst", tile), ("src", tile), ("scale", ptile), ("offset", ptile)),
                ((TO, to),))


def _int8_list(text: str, platform: str) -> list[tuple[str, Case]]:
    out = []
    for entry in text.split(";"):
        word, *shapes = entry.split()
        to = next(t for t, w in QUANT_WORD.items() if w == word)
        for shape in shapes:
            r, c = (int(n) for n in shape.split("x"))
            out.append((f"case_{word}_fp32_{r}x{c}_nd", int8_case(platform, to, (r, c))))
    return out


def system_test(platform: str) -> tuple[tuple[str, Case], ...]:
    """The folders of ``platform``'s TQUANT system test that ptofuzz covers, in its gen_data.py's order."""
    return tuple(_int8_list(INT8_TESTS[platform], platform)) if platform in INT8_TESTS else ()


def canonical(platform: str) -> tuple[tuple[str, Case], ...]:
    return system_test(platform) if platform in COMPLETE else ()


def golden_files(case: Case) -> tuple[tuple[str, str], ...]:
    return ((f"golden_{'s8' if case.param(TO) == 'int8' else 'u8'}.bin", "dst"),)


def derive(named: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
    """A general-grammar name's tiles: the source as the destination, parameters (rows x 1, valid rows x 1)."""
    d = named["dst"]
    ptile = Tile(d.rows, 1, d.valid_rows, 1)
    return (("dst", d), ("src", d), ("scale", ptile), ("offset", ptile))


def _profiles() -> dict[str, Profile]:
    out = {}
    for p in PLATFORMS:
        root = platforms.get(p).test_root
        out[p] = Profile("TQUANT", p, "TQUANTTEST",
                         (("input.bin", "src"), ("inv_scale_fp32.bin", "scale"), ("offset_fp32.bin", "offset")),
                         (("golden_s8.bin", "dst"),), (("output_s8.bin", "dst"), ("output_u8.bin", "dst")), ("dst",),
                         compact=True, spelling=SPELLING, dtype_param=TO, derive=derive, canonical=canonical(p),
                         golden_for=golden_files,
                         note=f"{root}/testcase/tquant's INT8 files (input.bin, inv_scale_fp32.bin, "
                              "offset_fp32.bin, golden_s8.bin or golden_u8.bin): valid regions")
    return out


# ---- cases -------------------------------------------------------------------------------------------------------

def random_case(source: Source, platform: str, constraints: Mapping[str, Any]) -> Case:
    to = constraints.get("to") or source.choice(oracles.INT8)
    vr, vc = valid_region(source, dtypes.get("int8"), allow_zero=False, shape=constraints.get("shape"))
    return int8_case(platform, to, (vr, vc))


def explicit_case(platform: str, opts: Mapping[str, Any]) -> Case:
    if opts.get("dtype") and dtypes.get(opts["dtype"]).name != "float32":
        raise UsageError(f"--dtype {opts['dtype']}: TQUANT's INT8 forms quantize float32 (TQUANT.md:37)")
    to = dtypes.get(opts["to"]).name if opts.get("to") else "int8"
    if to not in oracles.INT8:
        raise UsageError(f"--to {opts['to']}: TQUANT's INT8 forms write int8 (symmetric) or uint8 (asymmetric)")
    valid: tuple[int, int] = opts.get("dst") or opts.get("shape") or (16, 32)
    shape: tuple[int, int] = opts.get("shape") or valid
    if valid[0] > shape[0] or valid[1] > shape[1]:
        raise UsageError(f"--dst {valid[0]}x{valid[1]} is larger than the tile {shape[0]}x{shape[1]}; pass a bigger "
                         "--shape or a smaller --dst")
    return int8_case(platform, to, valid, shape)


def replay_flags(case: Case) -> str:
    d = case.tile("dst")
    return f" --to {case.param(TO)} --shape {d.rows}x{d.cols} --dst {d.valid_rows}x{d.valid_cols}"


def _parameters(source: Source, case: Case, src: np.ndarray, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """Scales and offsets that put most quotients in range, as a quantizer would choose them (the row's largest
    magnitude over 127, or its span over 255 with the zero point that maps its minimum to 0), times a factor in
    [1/2, 2); now and then any float32 (a tenth of the rows) or a non-integral offset."""
    f32 = dtypes.get("float32")
    lead, rows = src.shape[:-2], case.tile("scale").rows
    with np.errstate(invalid="ignore"):  # a signaling NaN widened
        x = src.view(np.float32).astype(np.float64)
    x = np.where(np.isfinite(x) & (np.abs(x) < 1e30), x, 0.0)
    hi, lo = x.max(axis=-1, keepdims=True), x.min(axis=-1, keepdims=True)
    n = int(np.prod(lead, dtype=np.int64)) * rows
    factor = (0.5 * 4.0 ** source.random(n)).reshape(*lead, rows, 1)
    if case.param(TO) == "int8":
        scale = np.maximum(np.abs(hi), np.abs(lo)) / 127.0 * factor
        offset = np.zeros_like(scale)
    else:
        scale = (hi - lo) / 255.0 * factor
        with np.errstate(all="ignore"):
            offset = np.clip(np.rint(np.where(scale > 0, -lo / np.where(scale > 0, scale, 1.0), 0.0)), 0, 255)
        odd = (source.random(n) < 0.05).reshape(*lead, rows, 1)
        offset = np.where(odd, offset + 0.5, offset)
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32).view(np.uint32)
    wild = (source.random(n) < 0.1).reshape(*lead, rows, 1)
    scale = np.where(wild, values.draw(source, f32, (*lead, rows, 1), mix), scale)
    return {"scale": scale, "offset": offset.astype(np.float32).view(np.uint32)}


def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    src = values.draw(source, dtypes.get("float32"), case.tile("src").shape, mix)
    return {"src": src, **_parameters(source, case, src, mix)}


def draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    r, c = case.tile("src").shape
    src = values.draw(source, dtypes.get("float32"), (n * r * c,), mix).reshape(n, r, c)
    return {"src": src, **_parameters(source, case, src, mix)}


# ---- fuzzing and check -------------------------------------------------------------------------------------------

def geometry_class(case: Case) -> str:
    return f"{QUANT_WORD.get(case.param(TO), case.param(TO))}"


def regions(case: Case, role: str) -> tuple[tuple[str, ...], np.ndarray]:
    d = case.tile(role)
    inside = (np.arange(d.rows)[:, None] < d.valid_rows) & (np.arange(d.cols)[None, :] < d.valid_cols)
    return ("op", "outside"), np.where(inside, 0, 1).astype(np.uint8)


MULTIPLIED = ("{file} is round(x * scale{plus}) for the scale operand the kernel receives ({why}); "
              "docs/isa/TQUANT.md:35 and 90-91 divide by the scale: q = round(x / scale){plus}, so the golden is "
              "wrong (the kernels multiply too: see ptofuzz.instructions.defects)")


def explain(case: Case, inputs: Mapping[str, np.ndarray], files: Mapping[str, np.ndarray]) -> str:
    """An INT8 golden that multiplies by the scale operand (what pto-isa's gen_data.py scripts compute) where
    the page divides: named when every valid element of the golden is the product's."""
    if case.param(TO) not in oracles.INT8 or "dst" not in files:
        return ""
    rows, cols = case.tile("dst").valid
    if not np.array_equal(np.asarray(files["dst"])[:rows, :cols].astype(np.uint8), oracles.multiplied(case, inputs)):
        return ""
    asym = case.param(TO) == "uint8"
    return MULTIPLIED.format(file=golden_files(case)[0][0], plus=" + offset" if asym else "",
                             why="inv_scale_fp32.bin: the reciprocal of the scale its script chose")


def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    if "TQUANT" not in names:
        return []
    profiles = _profiles()
    notes = "docs/isa/TQUANT.md: INT8 q = round(x / scale) (+ offset), ties to even; beyond the range undefined"
    support = {"cpu": PlatformSupport(("float32",), oracles.cpu, profiles["cpu"], has_system_test=False,
                                      notes=notes),
               **{p: PlatformSupport(("float32",), oracles.npu, profiles[p], has_system_test=p in COMPLETE,
                                     notes=notes + "; subnormal effects undefined")
                  for p in ("a2a3", "a5", "kirin9030", "kirinDev0000")}}
    return [Instruction(
        name="TQUANT", family="conversion", summary="quantization: INT8 dst = round(src / scale) (+ offset), per row",
        inputs=("src", "scale", "offset"), outputs=("dst",), platforms=support, random_case=random_case,
        explicit_case=explicit_case, draw_inputs=draw_inputs,
        role_dtypes={"scale": "float32", "offset": "float32"}, role_dtype_params={"dst": (TO, "int8")},
        options=("dtype", "to", "shape", "dst"), random_options=("to", "shape"), replay_flags=replay_flags,
        draw_batch=draw_batch, geometry_class=geometry_class, regions=regions, explain=explain,
        unmodelled={"spec": "pto-spec's TQUANT takes one scalar multiplier and zero point for the whole tile; "
                            "pto-isa's tests give each row its own (no tile form to compare)"})]
