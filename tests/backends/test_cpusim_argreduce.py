"""TROWARGMAX, TROWARGMIN, TCOLARGMAX and TCOLARGMIN through the real pto-isa CPU simulator, built with clang++
(GCC 12 rejects cpu/TReduceIdx.hpp): hand-worked indices and values, random cases agreeing with the cpu model,
and what a g++ 12 build says. Skips with the reason when PTO_ISA_DIR is unset or no clang++ is installed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.backend import CpusimBackend
from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, OutcomeKind, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.engine.differential import compare_batch
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import argreduce as arg
from ptofuzz.instructions import registry

PTO_ISA = os.environ.get("PTO_ISA_DIR")


pytestmark = [pytest.mark.cpusim,
              pytest.mark.skipif(not PTO_ISA, reason="PTO_ISA_DIR is unset: set it to a pto-isa tree to run the "
                                                     "real simulator"),
              pytest.mark.skipif(build.clang_path() is None, reason="no clang++: the arg reductions' header needs it")]
OPS = arg.NAMES


@pytest.fixture(scope="module")
def real() -> CpusimBackend:
    return CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA or "."), cxx=build.clang_path(), ops=OPS))


def _run(real, op, x, valid, *, val, idx="uint32"):
    case = arg._build(op, "cpu", dtypes.get("float32"), idx, Tile(*x.shape, *valid), val)
    return real.evaluate(registry.get(op), case.on("cpusim"), {"src": x.view(np.uint32)})


def test_hand_worked_row_indices_and_values(real):
    """float32 rows [3, 7, -2, 1] and [-5, 0.5, 4, 4.5] over the valid 2x4 of a 2x8 tile (9 beyond): argmax 1
    and 3 (values 7, 4.5), argmin 2 and 0 (values -2, -5); the index form leaves the values unwritten."""
    x = np.full((2, 8), 9.0, np.float32)
    x[:, :4] = [[3, 7, -2, 1], [-5, 0.5, 4, 4.5]]
    for op, idx, vals in (("TROWARGMAX", [1, 3], [7.0, 4.5]), ("TROWARGMIN", [2, 0], [-2.0, -5.0])):
        out = _run(real, op, x, (2, 4), val=True)
        assert out.kind is OutcomeKind.OK, out
        assert out.outputs["dst_idx"][:, 0].tolist() == idx and (out.classes["dst_idx"] == EXACT).all()
        assert out.outputs["dst"].view(np.float32)[:, 0].tolist() == vals
        out = _run(real, op, x, (2, 4), val=False, idx="int32")
        assert out.outputs["dst_idx"][:, 0].tolist() == idx and (out.classes["dst"] == UNDEFINED).all()


def test_hand_worked_column_indices_and_values(real):
    """float32 columns of a 3x8 tile, valid 3x3: [1, 8, 0], [9, 3, 9.5], [2, -2, 5]: argmax rows 1, 2, 2 (values
    8, 9.5, 5), argmin rows 2, 1, 1 (values 0, 3, -2)."""
    x = np.zeros((3, 8), np.float32)
    x[:, :3] = [[1, 9, 2], [8, 3, -2], [0, 9.5, 5]]
    for op, idx, vals in (("TCOLARGMAX", [1, 2, 2], [8.0, 9.5, 5.0]), ("TCOLARGMIN", [2, 1, 1], [0.0, 3.0, -2.0])):
        out = _run(real, op, x, (3, 3), val=True)
        assert out.outputs["dst_idx"][0, :3].tolist() == idx
        assert out.outputs["dst"].view(np.float32)[0, :3].tolist() == vals


@pytest.mark.parametrize("op", OPS)
def test_random_cpu_cases_agree_with_the_cpu_model(real, op):
    """Random cpu cases of every compiled type, both forms, planted ties and NaNs: no disagreement."""
    inst = registry.get(op)
    mix = values.ValueMix(rate=0.3)
    dts = ("float32", "float16", "int8", "uint8", "int16", "uint16", "int32", "uint32")
    seen = 0
    for k in range(60):
        src = seeded(k, op, "cpusim-arg")
        case = inst.random_case(src, "cpu", {"dtype": dts[k % len(dts)]})
        inputs = inst.draw_inputs(src, case, mix)
        model = inst.evaluate(case, inputs)
        sim = real.evaluate(inst, case.on("cpusim"), inputs)
        if model.kind is not OutcomeKind.OK or sim.kind is not OutcomeKind.OK:
            continue
        seen += 1
        assert not compare_batch(inst, case.on("cpusim"), {"cpu": model, "cpusim": sim}, None).counts, case
    assert seen >= 50


@pytest.mark.skipif(not shutil.which("g++"), reason="no g++")
def test_a_gcc_12_build_names_the_header_and_clang(tmp_path):
    """g++ 12 rejects TReduceIdx.hpp (static_assert(false) in a primary template): the build skips the header and
    says that clang++ builds the arg reductions."""
    import subprocess

    version = subprocess.run(["g++", "-dumpversion"], capture_output=True, text=True, check=False).stdout
    if not version.strip().startswith("12"):
        pytest.skip(f"g++ {version.strip()} is not GCC 12")
    from ptofuzz.backends.cpusim.simulator import Simulator

    sim = Simulator(build.Settings(pto_isa=Path(PTO_ISA or "."), cxx="g++", ops=("TROWARGMAX",),
                                   cache_dir=tmp_path))
    with pytest.raises(UsageError, match=r"TReduceIdx\.hpp.*clang"):
        sim.build()
