"""TROWEXPAND{ADD,SUB,MUL,MAX,MIN} and TCOLEXPAND{ADD,SUB,MUL,MAX,MIN} through the real pto-isa CPU simulator (a
harness of these instructions only): hand-worked results of both row modes, the role swap and the column
broadcast, and random cases agreeing with the cpu model. Skips with the reason when PTO_ISA_DIR is unset."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.backend import CpusimBackend
from ptofuzz.core.case import Case, OutcomeKind, Tile
from ptofuzz.engine.differential import compare_batch
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry

PTO_ISA = os.environ.get("PTO_ISA_DIR")
OPS = ("TROWEXPANDADD", "TROWEXPANDSUB", "TROWEXPANDMUL", "TROWEXPANDMAX", "TROWEXPANDMIN", "TCOLEXPANDADD",
       "TCOLEXPANDSUB", "TCOLEXPANDMUL", "TCOLEXPANDMAX", "TCOLEXPANDMIN")
pytestmark = [pytest.mark.cpusim,
              pytest.mark.skipif(not PTO_ISA, reason="PTO_ISA_DIR is unset: set it to a pto-isa tree to run the "
                                                     "real simulator")]


@pytest.fixture(scope="module")
def real() -> CpusimBackend:
    return CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA or "."), ops=OPS))


def _run(real, op, dtype, tiles, src0, src1):
    case = Case(op, "cpusim", dtype, tiles)
    out = real.evaluate(registry.get(op), case, {"src0": src0, "src1": src1})
    assert out.kind is OutcomeKind.OK, out
    return out.outputs["dst"]


def test_hand_worked_modes_and_swap_in_the_real_simulator(real):
    """int32 2x3: TROWEXPANDSUB of [[10, 20, 30], [40, 50, 60]] minus the column [1, 2] (Mode 1) is
    [[9, 19, 29], [38, 48, 58]]; with the column as src0 (the swap) it is [1, 2] minus the tile:
    [[-9, -19, -29], [-38, -48, -58]]; float32 TROWEXPANDADD 2x10 with a block of 8 a row (Mode 2) adds
    block[j mod 8]."""
    full = np.array([[10, 20, 30, 0, 0, 0, 0, 0], [40, 50, 60, 0, 0, 0, 0, 0]], np.int32).view(np.uint32)
    col = np.array([[1], [2]], np.int32).view(np.uint32)
    dst = Tile(2, 8, 2, 3)
    got = _run(real, "TROWEXPANDSUB", "int32", (("dst", dst), ("src0", Tile(2, 8, 2, 3)), ("src1", Tile(2, 1, 2, 1))),
               full, col)
    assert got[:, :3].view(np.int32).tolist() == [[9, 19, 29], [38, 48, 58]]
    got = _run(real, "TROWEXPANDSUB", "int32", (("dst", dst), ("src0", Tile(2, 1, 2, 1)), ("src1", Tile(2, 8, 2, 3))),
               col, full)
    assert got[:, :3].view(np.int32).tolist() == [[-9, -19, -29], [-38, -48, -58]]
    tile = np.arange(32, dtype=np.float32).reshape(2, 16)
    block = np.array([[100 * (j + 1) for j in range(8)], [1000 * (j + 1) for j in range(8)]], np.float32)
    got = _run(real, "TROWEXPANDADD", "float32", (("dst", Tile(2, 16, 2, 10)), ("src0", Tile(2, 16, 2, 10)),
                                                  ("src1", Tile(2, 8, 2, 8))),
               tile.view(np.uint32), block.view(np.uint32))
    want = tile[:, :10] + block[:, np.arange(10) % 8]
    assert got[:, :10].view(np.float32).tolist() == want.tolist()


def test_hand_worked_column_broadcast_in_the_real_simulator(real):
    """int32 2x3 of a 2x8 tile: TCOLEXPANDSUB of [[10, 20, 30], [40, 50, 60]] minus the row [1, 2, 3] is
    [[9, 18, 27], [39, 48, 57]]; float16 TCOLEXPANDMAX of [[1, -5], [7, 0.5]] and the row [2, 2] (src1 a 2x16 tile
    of which only row 0 is read) is [[2, 2], [7, 2]]; uint8 TCOLEXPANDMUL 1x3 of [3, 4, 5] by [2, 0, 50]
    is [6, 0, 250]."""
    full = np.array([[10, 20, 30, 0, 0, 0, 0, 0], [40, 50, 60, 0, 0, 0, 0, 0]], np.int32).view(np.uint32)
    row = np.array([[1, 2, 3, 0, 0, 0, 0, 0]], np.int32).view(np.uint32)
    t = Tile(2, 8, 2, 3)
    got = _run(real, "TCOLEXPANDSUB", "int32", (("dst", t), ("src0", t), ("src1", Tile(1, 8, 1, 3))), full, row)
    assert got[:, :3].view(np.int32).tolist() == [[9, 18, 27], [39, 48, 57]]
    half = np.zeros((2, 16), np.float16)
    half[:, :2] = [[1, -5], [7, 0.5]]
    two = np.zeros((2, 16), np.float16)
    two[0, :2] = 2
    two[1, :2] = 100  # a second row the instruction never reads
    t = Tile(2, 16, 2, 2)
    got = _run(real, "TCOLEXPANDMAX", "float16", (("dst", t), ("src0", t), ("src1", Tile(2, 16, 2, 2))),
               half.view(np.uint16), two.view(np.uint16))
    assert got[:, :2].view(np.float16).tolist() == [[2, 2], [7, 2]]
    a = np.zeros((1, 32), np.uint8)
    a[0, :3] = [3, 4, 5]
    b = np.zeros((1, 32), np.uint8)
    b[0, :3] = [2, 0, 50]
    t = Tile(1, 32, 1, 3)
    got = _run(real, "TCOLEXPANDMUL", "uint8", (("dst", t), ("src0", t), ("src1", t)), a, b)
    assert got[0, :3].tolist() == [6, 0, 250]


@pytest.mark.parametrize("op", OPS)
def test_random_cpu_cases_agree_with_the_cpu_model(real, op):
    """Random cpu cases (special values, both row modes, the swap, the column broadcast, sources wider and taller
    than what is read, empty regions): the simulator and the cpu model show no disagreement."""
    inst = registry.get(op)
    mix = values.ValueMix(rate=0.3)
    seen = 0
    dts = inst.support("cpu").dtypes
    for k in range(60):
        src = seeded(k, op, "cpusim-test")
        case = inst.random_case(src, "cpu", {"dtype": dts[k % len(dts)]})
        inputs = inst.draw_inputs(src, case, mix)
        model = inst.evaluate(case, inputs)
        sim = real.evaluate(inst, case.on("cpusim"), inputs)
        if model.kind is not OutcomeKind.OK or sim.kind is not OutcomeKind.OK:
            continue
        seen += 1
        assert not compare_batch(inst, case.on("cpusim"), {"cpu": model, "cpusim": sim}, None).counts, case
    assert seen >= 40
