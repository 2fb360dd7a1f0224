"""TROWEXPAND and TCOLEXPAND through the real pto-isa CPU simulator (a harness of these two instructions only):
hand-worked bit copies, and random cases agreeing with the cpu model. Skips with the reason when PTO_ISA_DIR is
unset."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.backend import CpusimBackend
from ptofuzz.core.case import EXACT, UNDEFINED, Case, OutcomeKind, Tile
from ptofuzz.engine.differential import compare_batch
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry

PTO_ISA = os.environ.get("PTO_ISA_DIR")
pytestmark = [pytest.mark.cpusim,
              pytest.mark.skipif(not PTO_ISA, reason="PTO_ISA_DIR is unset: set it to a pto-isa tree to run the "
                                                     "real simulator")]


@pytest.fixture(scope="module")
def real() -> CpusimBackend:
    return CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA or "."), ops=("TROWEXPAND", "TCOLEXPAND")))


def test_hand_worked_copies_in_the_real_simulator(real):
    """TROWEXPAND of a float32 column [sNaN with payload, -0, -inf] over 3x5 of a 3x32 tile, TCOLEXPAND of int8
    [-128, -1, 127] over 4x3: the simulator's bits are the source's, nothing written outside the valid region."""
    col = np.array([0x7FA00001, 0x80000000, 0xFF800000], np.uint32)
    src = np.zeros((3, 8), np.uint32)
    src[:, 0] = col
    case = Case("TROWEXPAND", "cpusim", "float32", (("dst", Tile(3, 32, 3, 5)), ("src", Tile(3, 8, 3, 1))))
    out = real.evaluate(registry.get("TROWEXPAND"), case, {"src": src})
    assert out.kind is OutcomeKind.OK, out
    assert out.outputs["dst"][:, :5].tolist() == [[int(v)] * 5 for v in col]
    assert (out.classes["dst"][:, 5:] == UNDEFINED).all() and (out.classes["dst"][:, :5] == EXACT).all()
    row = np.zeros((1, 32), np.int8)
    row[0, :3] = [-128, -1, 127]
    case = Case("TCOLEXPAND", "cpusim", "int8", (("dst", Tile(4, 32, 4, 3)), ("src", Tile(1, 32, 1, 3))))
    out = real.evaluate(registry.get("TCOLEXPAND"), case, {"src": row.view(np.uint8)})
    assert out.outputs["dst"][:, :3].view(np.int8).tolist() == [[-128, -1, 127]] * 4


@pytest.mark.parametrize("op", ("TROWEXPAND", "TCOLEXPAND"))
def test_random_cpu_cases_agree_with_the_cpu_model(real, op):
    """Random cpu cases (special values, sources wider and taller than what is read, empty regions): the
    simulator and the cpu model show no disagreement (the simulator follows docs/isa/<OP>.md)."""
    inst = registry.get(op)
    mix = values.ValueMix(rate=0.3)
    seen = 0
    for k in range(60):
        src = seeded(k, op, "cpusim-test")
        case = inst.random_case(src, "cpu", {"dtype": ("float32", "int8", "uint16")[k % 3]})
        inputs = inst.draw_inputs(src, case, mix)
        model = inst.evaluate(case, inputs)
        sim = real.evaluate(inst, case.on("cpusim"), inputs)
        if model.kind is not OutcomeKind.OK or sim.kind is not OutcomeKind.OK:
            continue
        seen += 1
        assert not compare_batch(inst, case.on("cpusim"), {"cpu": model, "cpusim": sim}, None).counts, case
    assert seen >= 40
