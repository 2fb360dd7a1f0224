"""pto-isa's own case folders, written by running each system test's ``gen_data.py`` from the pinned snapshot (as
its runners do: in a scratch build folder, ``tests/cpu/st`` on PYTHONPATH, bfloat16 cases on), read back by
``ptofuzz check`` with no manifest: every folder parses, and every golden agrees with the documented semantics
(elements the pages leave open, such as the wrap of pto-isa's unsigned TSUB goldens, are not pinned), or is named
wrong with its reason: a5's and kirin's full-range int32/uint32 TADDS/TSUBS goldens use the scalar their script
drew, but the test's scalar file is a float32, which rounds it (the kernel receives the rounded one); so do the
int32 TEXPANDS goldens of cpu, a2a3 and kirin. The NPU TSHL/TSHR goldens of counts from the element width on
(numpy's zero or sign fill) pass: no page defines those elements. So do kirin9030's and kirinDev0000's TCVT
goldens: the wrap of their default-saturation pairs and the special values of their saturation folders are
elements the page leaves open (kirinDev0000's H8 folders need en_dtypes, which the test extras bring); so do
a2a3's (its fp16/int4 folders packed two a byte) and a5's, but for a5's four bf16 to FP4 goldens of an odd valid
width, which its script writes without the last valid column (named wrong). a6's TQUANT (HiFloat4) folders pass:
their group maxima (golden_max4.bin, golden_max8.bin) are the page's, and every other golden is open. TROWSUM's
folders pass; the float TCOLSUM goldens of a2a3's binary cases and of a5's and kirin's multi-row cases are sums in
another order than the platform's (named wrong with it); so are the float TROWPROD goldens of a2a3's multi-block
rows and of every a5/kirin float case, and a5's/kirin's multi-row float TCOLPROD goldens (products in another
order: float64 rounded once, or numpy's np.prod in float32). TPAIRREDUCESUM's cpu folders and the NPUs' even-width
ones pass; the NPU goldens of an odd valid width sum only the whole pairs (``w_valid // 2``) and leave the last
result 0, where the page pairs the last element with an inactive 0 (named wrong)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ptofuzz import api

PTO_ISA = os.environ.get("PTO_ISA_DIR", "")
DATA = Path(__file__).resolve().parents[1] / "data"
ELEMENTWISE = ("tadd", "tsub", "tmul", "tmax", "tmin", "tadds", "tsubs", "tmuls", "tmaxs", "tmins", "tlrelu", "tabs",
               "tneg", "trelu", "tnot", "tcmp", "tcmps", "tsel", "tsels")
BITWISE = ("tand", "tor", "txor", "tshl", "tshr", "tands", "tors", "txors", "tshls", "tshrs")
GENERATION = ("texpands", "tci", "ttri")
CONVERSION = ("tcvt", "tdequant", "tquant")
EXPAND = ("trowexpand", "tcolexpand", "trowexpandadd", "trowexpandsub", "trowexpandmul", "trowexpandmax",
          "trowexpandmin", "tcolexpandadd", "tcolexpandsub", "tcolexpandmul", "tcolexpandmax", "tcolexpandmin")
REDUCTION = ("trowmax", "trowmin", "tcolmax", "tcolmin")
ORDERED = ("trowsum", "tcolsum", "trowprod", "tcolprod")
ARG_REDUCTION = ("trowargmax", "trowargmin", "tcolargmax", "tcolargmin")
PAIR_SUM = ("tpairreducesum",)
KEYS = sorted(k for k in json.loads((DATA / "pto-isa-st-cases.json").read_text())["tests"]
              if k.split("/")[0] in (*ELEMENTWISE, *BITWISE, *GENERATION, *CONVERSION, *EXPAND, *REDUCTION,
                                     *ORDERED, *ARG_REDUCTION, *PAIR_SUM))
SECOND_TEST = {"tadd/a2a3": ("taddplus",)}  # a platform's other test folder of the same instruction
SECOND_TEST.update({f"texpands/{p}": ("texpands_mat",) for p in ("a2a3", "a5", "kirin9030")})
SECOND_TEST["tquant/a5"] = ("tquant_dn",)
SECOND_TEST.update({f"trowexpand/{p}": ("trowexpandbrcb",) for p in ("a5", "kirin9030")})
#: (key) -> (the test folder, the prefixes of its folders that are the key's): a cpu test of several instructions,
#: whose folder names say which (t{row,col}expandop's T{ROW,COL}EXPANDDIV and -EXPDIF folders are no covered
#: instruction's)
SHARED_TEST = {f"t{axis}expand{w}/cpu": (f"t{axis}expandop", (f"T{axis.upper()}EXPANDOPTest.case_{w}_",))
               for axis in ("row", "col") for w in ("add", "sub", "mul", "max", "min")}
SHARED_TEST.update({f"t{a}arg{w}/cpu": ("targreduceop", (f"TARGREDUCEOPTest.case_{a}_{w}_",
                                                          f"TARGREDUCEOPTest.case_{a}_val_{w}_"))
                    for a in ("row", "col") for w in ("max", "min")})


def _rounded(suite: str, used: int, received: int) -> tuple[str, str]:
    return "fail", (f"golden.bin was computed with the scalar {used}, but the kernel receives {received}: the scalar "
                    f"file is a float32, which holds no {'uint32' if used > 0 and suite.endswith('7') else 'int32'} "
                    f"{used} (integers of 2**24 and more lose their low bits), so the golden is wrong")


_TSUBS_ROUNDED = {"TSUBSTest.case3": _rounded("case3", -578689574, -578689600),
                  "TSUBSTest.case7": _rounded("case7", 100059131, 100059128)}
#: (key) -> {folder: (verdict, message)} of the folders check names wrong (every other folder passes)
WRONG = {
    "tadds/a5": {"TADDSTest.case3": _rounded("case3", 678664624, 678664640),
                 "TADDSTest.case7": _rounded("case7", 1547052186, 1547052160)},
    "tsubs/a5": _TSUBS_ROUNDED, "tsubs/kirin9030": _TSUBS_ROUNDED, "tsubs/kirinDev0000": _TSUBS_ROUNDED,
}


def _texpands(used: int, received: int) -> tuple[str, str]:
    return "fail", (f"golden.bin was computed with the scalar {used}, but the kernel receives {received}: the scalar "
                    f"file is a float32, which holds no int32 {used} (integers of 2**24 and more lose their low "
                    "bits), so the golden is wrong")


# TEXPANDS: the int32 goldens of the tests that carry the scalar in a float32 (cpu and kirin draw the same two)
_TEXPANDS_CPU = {"TEXPANDSTest.case_int32_60x60_64x64_60x60_PAD_VALUE_MAX": _texpands(-576447841, -576447872),
                 "TEXPANDSTest.case_int32_64x64_64x64_64x64_PAD_VALUE_NULL": _texpands(1269542645, 1269542656)}
WRONG.update({
    "texpands/cpu": _TEXPANDS_CPU, "texpands/kirin9030": _TEXPANDS_CPU, "texpands/kirinDev0000": _TEXPANDS_CPU,
    "texpands/a2a3": {"TEXPANDSTest.case_int32_60x60_64x64_60x60_PAD_VALUE_MAX": _texpands(-1791003230, -1791003264),
                      "TEXPANDSTest.case_int32_64x64_64x64_64x64_PAD_VALUE_NULL": _texpands(1122058988, 1122059008)},
})


def _fp4_dropped(rows: int, cols: int) -> tuple[str, str]:
    last = cols - 1
    return "fail", (f"golden.bin leaves out the last valid column ({last}): its script keeps {cols // 2} whole bytes "
                    f"of each packed row and zeroes the byte that holds column {last} in its low nibble, but TCVT "
                    f"converts every element of the valid region ({rows}x{cols}, docs/isa/TCVT.md), so the golden "
                    "is wrong")


# TCVT: a5's bf16 to FP4 goldens of an odd valid width (gen_data.py keeps vC // 2 bytes of each packed row)
WRONG["tcvt/a5"] = {f"TCVTTest.case_bf16_fp4_{fmt}_{shape}": _fp4_dropped(rows, cols)
                    for fmt in ("e1m2x2", "e2m1x2")
                    for shape, (rows, cols) in (("4x128_4x65", (4, 65)), ("1x256_1x129", (1, 129)))}


# TQUANT: every INT8 golden multiplies by the scale operand (inv_scale_fp32.bin) where docs/isa/TQUANT.md divides
_MULTIPLIED = ("{file} is round(x * scale{plus}) for the scale operand the kernel receives (inv_scale_fp32.bin: the "
               "reciprocal of the scale its script chose); docs/isa/TQUANT.md:35 and 90-91 divide by the scale: "
               "q = round(x / scale){plus}, so the golden is wrong (the kernels multiply too: see "
               "ptofuzz.instructions.defects)")


def _tquant_int8(key: str) -> dict[str, tuple[str, str]]:
    """Every INT8 folder of a TQUANT test, named wrong for the multiplication."""
    from ptofuzz.instructions import quant

    return {f"TQUANTTEST.{alias}": ("fail", _MULTIPLIED.format(
                file="golden_u8.bin" if case.param("to") == "uint8" else "golden_s8.bin",
                plus=" + offset" if case.param("to") == "uint8" else ""))
            for alias, case in quant.system_test(key.split("/")[1]) if case.param("to") in ("int8", "uint8")}


WRONG.update({k: _tquant_int8(k) for k in ("tquant/a2a3", "tquant/kirin9030", "tquant/kirinDev0000", "tquant/a5")})



def _summed(platform: str, how: str, form: str) -> tuple[str, str]:
    return "fail", (f"golden.bin is the sum {how}, not in this platform's order (oracles/ordered.py: {platform}'s "
                    f"{form}); the two differ in the last bits where the terms round")


# TROWSUM: every folder passes (the NPUs' float sums are open where vcadd's tree could matter; the cpu's in order).
# TCOLSUM: a2a3's binary float32 goldens are np.sum(axis=0) in float32, a row-by-row fold (its sequential goldens
# pass), not a2a3's tree; a5's and kirin's float goldens are float64 sums rounded once, neither a5's pairwise fold
# nor its tree (one-row cases and int8 pass)
WRONG["tcolsum/a2a3"] = {f"TCOLSUMTest.case{i}": _summed("a2a3", "by numpy's np.sum in float32 (its own pairwise "
                                                                 "order)", "binary tree") for i in (16, 19, 22, 25)}
WRONG.update({f"tcolsum/{p}": {f"TCOLSUMTest.case{i:02d}": _summed(p, "in float64, rounded once to the type",
                                                                   "binary tree" if i % 10 >= 4 else "fold")
                               for i in (2, 3, 4, 5, 12, 13, 14, 15)}
              for p in ("a5", "kirin9030", "kirinDev0000")})


def _multiplied(platform: str, how: str) -> tuple[str, str]:
    return "fail", (f"golden.bin is the product {how}, not in this platform's order (oracles/product.py: "
                    f"{platform}'s order); the two differ in the last bits where the products round")


_F64 = "in float64, rounded once to the type"
_NP32 = "by numpy's np.prod in float32 (its own order)"
# TROWPROD: the cpu's goldens (np.prod in float32 of small integers, exact or overflowing alike) and its integer
# goldens pass (products that do not fit are open: the scripts' int64 products wrap); a2a3's float goldens of more
# than one block a row are float64 products rounded once (case3, 5, 10) or np.prod in float32 (case7, 8), neither
# a2a3's lanes and scalar chain; a5's and kirin's float goldens are sequential float64 products rounded once, not
# a5's lanes and vintlv tree. TCOLPROD: a2a3's pass (np.prod(axis=0) in the element type is its row-by-row fold);
# a5's and kirin's multi-row float32 goldens are np.prod in float32, not a5's pairwise fold
WRONG["trowprod/a2a3"] = {f"TROWPRODTest.case{i}": _multiplied("a2a3", _F64 if i in (3, 5, 10) else _NP32)
                          for i in (3, 5, 7, 8, 10)}
WRONG.update({f"trowprod/{p}": {f"TROWPRODTest.case{i}": _multiplied(p, _F64) for i in range(1, 11)}
              for p in ("a5", "kirin9030", "kirinDev0000")})
WRONG.update({f"tcolprod/{p}": {f"TCOLPRODTest.case0{i}": _multiplied(p, _NP32) for i in (2, 3)}
              for p in ("a5", "kirin9030", "kirinDev0000")})


def _scripts(tree: Path, key: str) -> list[Path]:
    op, platform = key.split("/")
    root = tree / "tests" / ("cpu/st" if platform == "cpu" else f"npu/{platform}/src/st") / "testcase"
    if key in SHARED_TEST:
        return [root / SHARED_TEST[key][0] / "gen_data.py"]
    return [root / name / "gen_data.py" for name in (op, *SECOND_TEST.get(key, ()))]


@pytest.mark.slow
@pytest.mark.parametrize("key", KEYS)
def test_pto_isa_s_own_folders_pass_check(key, st_cases, tmp_path):
    if not PTO_ISA or not (Path(PTO_ISA) / "tests").is_dir():
        pytest.skip("needs PTO_ISA_DIR (a pto-isa tree with its tests/)")
    tree = Path(PTO_ISA)
    # as pto-isa's runners: tests/cpu/st for `utils`, the tree's root for `tests.cpu.st.utils` (cpu TSELS)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(tree / "tests" / "cpu" / "st"), str(tree))),
           "PTO_CPU_SIM_ENABLE_BF16": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    for script in _scripts(tree, key):
        run = tmp_path / script.parent.name
        run.mkdir()
        shutil.copy(script, run / "gen_data.py")  # as the runners do: the copy runs where the folders go
        done = subprocess.run([sys.executable, "gen_data.py"], cwd=run, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        (run / "gen_data.py").unlink()
        shutil.rmtree(run / "testcases", ignore_errors=True)
    folders = sorted(d for run in tmp_path.iterdir() for d in run.iterdir()
                     if key not in SHARED_TEST or d.name.startswith(SHARED_TEST[key][1]))
    assert sorted(d.name for d in folders) == sorted(st_cases[key]["cases"])
    verdicts = api.check(folders, key.split("/")[1])
    assert len(verdicts) == len(folders)
    assert {v.name: (v.verdict.value, v.message) for v in verdicts if v.verdict.value != "pass"} == WRONG.get(key, {})


def _fp4_widened(example: str, count: int) -> tuple[str, str]:
    return "fail", ("golden.bin rounds each FP4 value to an integer (np.rint); FP4 to float32 widens exactly, e.g. "
                    f"{example} ({count} such elements), so the golden is wrong")


# TCVT on the cpu: its gen_data.py rounds every value to an integer (np.rint), so its FP4 goldens are wrong: the
# widened ones (25, 27, 29, 31), and the saturated E1M2 one (30), clamped to [-4, 3.5] and encoded by truncation;
# the unsaturated float32 to FP4 ones (24, 28) overflow everywhere (open: no element compared), 26 agrees
WRONG["tcvt/cpu"] = {
    "TCVTTest.case25": _fp4_widened("element (0, 3): 0x09 (-0.5) -> golden 0x80000000 (-0.0), TCVT gives "
                                    "0xbf000000 (-0.5)", 554),
    "TCVTTest.case27": _fp4_widened("element (0, 0): 0x03 (1.5) -> golden 0x40000000 (2.0), TCVT gives 0x3fc00000 "
                                    "(1.5)", 555),
    "TCVTTest.case29": _fp4_widened("element (0, 0): 0x0a (-0.5) -> golden 0x80000000 (-0.0), TCVT gives "
                                    "0xbf000000 (-0.5)", 2669),
    "TCVTTest.case30": ("fail", "golden.bin rounds each value to an integer (np.rint) and encodes that by truncation "
                                "(the exponent cut to its bits, E1M2 clamped to [-4, 3.5] past its largest 1.75); "
                                "TCVT rounds once to the FP4 value in the mode, e.g. element (0, 0): 0xfda6d1bb "
                                "(-2.771760376929071e+37) -> golden 0x0c (-1.0), TCVT gives 0x0f (-1.75) (4096 such "
                                "elements), so the golden is wrong"),
    "TCVTTest.case31": _fp4_widened("element (0, 0): 0x0f (-1.75) -> golden 0xc0000000 (-2.0), TCVT gives "
                                    "0xbfe00000 (-1.75)", 2655),
}


def _half_pairs(cols: int) -> tuple[str, str]:
    last = (cols - 1) // 2
    return "fail", (f"golden.bin leaves column {last} of each valid row 0: its script sums only the {cols // 2} "
                    f"whole pairs of the {cols} valid columns (w_valid // 2), but docs/isa/TPairReduceSum.md forms "
                    f"ceil({cols} / 2) = {last + 1} results, the last pairing src[i, {cols - 1}] with an inactive "
                    f"element treated as 0 (so dst[i, {last}] = src[i, {cols - 1}]), so the golden is wrong")


# TPAIRREDUCESUM: the NPU scripts' odd widths (the cpu test's widths are even)
WRONG["tpairreducesum/a2a3"] = {f"TPAIRREDUCESUMTest.case_{name}": _half_pairs(cols) for name, cols in (
    ("half_8x64_8x128_8x63", 63), ("float_8x32_8x64_8x31", 31), ("float_8x128_8x128_8x127", 127),
    ("half_8x256_8x256_8x255", 255))}
WRONG["tpairreducesum/a5"] = {f"TPAIRREDUCESUMTest.case_{name}": _half_pairs(cols) for name, cols in (
    ("half_16x64_16x128_16x63", 63), ("float_16x32_16x64_16x31", 31))}
