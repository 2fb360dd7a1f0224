"""The simulator built with clang++ as an oracle of its own (``cpusim-clang``): the compiler is code under test, so
bits that change with it are a finding (the pair ``cpusim~cpusim-clang``), named only by a defect that says it
shows between the builds.

The example is real: TCVT int64 -> float32 with saturation on clamps to 2^63 and converts that back to int64
(undefined behaviour, include/pto/cpu/TCvt.hpp:203-206 with :149-155), and g++ 12 and clang 19 give results of
opposite sign for every source from 2^63 - 512 up.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from backend_helpers import PTO_ISA, needs_sim

from ptofuzz.backends.cpusim import build, conversion
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.core.case import Case, OutcomeKind, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.signature import Signature
from ptofuzz.instructions import defects

RINT, ON = 1, 0
TOP = 2**63 - 1
#: int64 sources: the three from 2^63 - 512 up round to 2^63 in double (the undefined conversion), the rest not
SOURCES = np.array([TOP, TOP - 1, TOP - 511, TOP - 512 - 511, 1, -1, -(2**63), 2**40 + 1], dtype=np.int64)
DEFINED = 0x5F000000  # f32 2^63: INT64_MAX rounded to nearest (TCVT.md:16-18)


def _clang_or_skip() -> None:
    try:
        build.find_clang()
    except UsageError as e:
        pytest.skip(str(e))


def _convert(settings: build.Settings) -> np.ndarray:
    tile = Tile(1, 8, 1, SOURCES.size)
    case = Case("TCVT", "cpu", "int64", (("dst", tile), ("src", tile)),
                (("to", "float32"), ("rmode", RINT), ("sat", ON)))
    sim = Simulator(settings)
    try:
        out = conversion.evaluate(sim, case, {"src": SOURCES.view(np.uint64).reshape(1, 8)})
    finally:
        sim.close()
    assert out.kind is OutcomeKind.OK, out.reason
    return out.outputs["dst"][0, :SOURCES.size]


@needs_sim
@pytest.mark.slow
def test_the_two_builds_disagree_exactly_where_the_clamp_is_undefined():
    _clang_or_skip()
    settings = build.Settings(pto_isa=Path(str(PTO_ISA)), ops=("TCVT",))
    gxx, clang = _convert(settings), _convert(settings.with_clang())
    undefined = SOURCES >= 2**63 - 512
    assert list(undefined) == [True, True, True, False, False, False, False, False]
    assert (gxx[~undefined] == clang[~undefined]).all()  # everywhere else the compilers agree
    assert list(clang[~undefined][:3]) == [DEFINED, 0x3F800000, 0xBF800000]  # 2^63 - 1024 (to nearest), 1, -1
    assert (gxx[undefined] == DEFINED).all()  # g++ 12 happens to give the documented value
    assert (clang[undefined] == 0xDF000000).all()  # clang 19: INT64_MIN, a negative result of a positive source


@needs_sim
@pytest.mark.slow
def test_a_campaign_of_the_two_builds_names_the_compiler_defect(cli, tmp_path):
    _clang_or_skip()
    r = cli("fuzz", "tcvt", "--oracles", "cpusim,cpusim-clang", "--dtype", "int64", "--to", "float32", "--runs",
            "3000", "--seed", "1", "--out", tmp_path, "--json")
    assert r.code == 0, r
    sigs = {(s["signature"], s["defect"]) for s in json.loads(r.out)["signatures"]}
    assert sigs and all(d == "cpusim-tcvt-s64-sat-bound-by-compiler" for _, d in sigs), sigs
    assert all(",sat" in s for s, _ in sigs)  # the forms without saturation agree
    rec = json.loads(next(tmp_path.glob("*/record.json")).read_text())
    compilers = {name: t["compiler"] for name, t in rec["finding"]["targets"].items()}
    assert set(compilers) == {"cpusim", "cpusim-clang"} and "clang" in compilers["cpusim-clang"]
    assert "clang" not in compilers["cpusim"]


@pytest.mark.parametrize("geometry", ["int64>float32,sat", "int64>float32,odd,sat"])
def test_the_compiler_defect_is_int64_to_float32_saturated_between_the_builds(geometry):
    sig = Signature("TCVT", "int64", "cpusim~cpusim-clang", "ulp-large", "convert", geometry)
    assert defects.matching(sig).name == "cpusim-tcvt-s64-sat-bound-by-compiler"  # type: ignore[union-attr]


@pytest.mark.parametrize("pair, geometry", [
    ("cpusim~cpusim-clang", "int64>float32"),  # saturation off: no clamp, no undefined conversion
    ("cpusim~cpusim-clang", "int32>float32,sat"),  # INT32_MAX is a double: the clamp is defined
    ("cpusim~cpusim-clang", "int64>float16,sat"),
    ("cpu~cpusim-clang", "int64>float32,sat"),  # against a model: the simulator's own defects, not this one
])
def test_the_compiler_defect_matches_nothing_else(pair, geometry):
    found = defects.matching(Signature("TCVT", "int64", pair, "ulp-large", "convert", geometry))
    assert found is None or found.name != "cpusim-tcvt-s64-sat-bound-by-compiler"
