"""TCMP, TCMPS, TSEL and TSELS in the real pto-isa CPU simulator: hand-worked cases, each against the cpu model,
and the simulator's three defects of the family shown on minimal cases (and only there)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.backend import CpusimBackend
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Tile
from ptofuzz.engine import campaign
from ptofuzz.engine.differential import compare_batch
from ptofuzz.instructions import defects, registry
from ptofuzz.oracles import cmpsel

PTO_ISA = os.environ.get("PTO_ISA_DIR")
needs_sim = pytest.mark.cpusim(pytest.mark.skipif(not PTO_ISA, reason="PTO_ISA_DIR is unset: set it to a pto-isa "
                                                                     "tree to run the real simulator"))
SCALAR = Tile(1, 1, 1, 1)


@pytest.fixture(scope="module")
def real() -> CpusimBackend:
    if not PTO_ISA:
        pytest.skip("PTO_ISA_DIR is unset")
    return CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA), ops=("TCMP", "TCMPS", "TSEL", "TSELS")))


def both(real: CpusimBackend, case: Case, inputs):
    """(cpu model, simulator) outcomes of a cpu case, and the signature keys between them."""
    inst = registry.get(case.op)
    model, got = inst.evaluate(case, inputs), real.evaluate(inst, case.on("cpusim"), inputs)
    sigs = compare_batch(inst, case.on("cpusim"), {"cpu": model, "cpusim": got}, None).counts
    return model, got, sorted(s.key for s in sigs)


def mode(name: str) -> tuple[str, int]:
    return ("cmp", cmpsel.MODES.index(name))


@needs_sim
@pytest.mark.parametrize("mask", ["uint8", "uint32"])
def test_hand_worked_tcmp(real, mask):
    """float32 1x40 row: src0 = 0..39, src1 = 20 everywhere but +0 vs -0 at column 0; LE: columns 0..20."""
    t = Tile(2, 64, 1, 40)
    width = 8 if mask == "uint8" else 32
    case = Case("TCMP", "cpu", "float32", (("dst", Tile(2, 64, 1, -(-40 // width))), ("src0", t), ("src1", t)),
                (mode("LE"), ("mask", mask)))
    a = np.zeros((2, 64), np.float32)
    a[0, :40] = np.arange(40)
    b = np.full((2, 64), 20, np.float32)
    b[0, 0] = -0.0
    model, got, sigs = both(real, case, {"src0": a.view(np.uint32), "src1": b.view(np.uint32)})
    bits = (1 << 21) - 1  # columns 0..20
    if mask == "uint8":
        want = [bits & 0xFF, (bits >> 8) & 0xFF, (bits >> 16) & 0xFF, 0, 0]
        assert got.outputs["dst"][0, :5].tolist() == want
    else:
        assert got.outputs["dst"][0, :2].tolist() == [bits, 0]
    assert sigs == []
    last = model.classes["dst"][0, -(-40 // width) - 1]
    assert last == (EXACT if mask == "uint8" else UNDEFINED)  # a uint32 word of 8 valid bits holds padding


@needs_sim
def test_hand_worked_tcmps_and_its_row_stride_defect(real):
    """int16 rows of 16 valid columns: in a 16-column tile cpusim agrees; in a 32-column tile its second row
    holds the first row's padding bytes (cpusim-tcmps-row-stride)."""
    a = np.zeros((2, 32), np.uint16)
    a[0, :16] = np.arange(16)
    a[1, :16] = np.arange(16) + 10
    inputs = {"src0": a, "scalar": np.array([[12]], np.uint16)}
    for cols, want_sigs in ((32, []), (64, ["TCMPS/int/cpu~cpusim/int-value/valid/packed<tile"])):
        src = Tile(2, cols, 2, 32 if cols == 32 else 16)
        case = Case("TCMPS", "cpu", "int16", (("dst", Tile(2, cols // 8, 2, src.valid_cols // 8)), ("src0", src),
                                             ("scalar", SCALAR)), (mode("GE"),))
        grid = np.zeros((2, cols), np.uint16)
        grid[:, :32] = a
        model, got, sigs = both(real, case, {**inputs, "src0": grid})
        assert sigs == want_sigs
        assert model.outputs["dst"][0, :2].tolist() == [0x00, 0xF0]  # 12..15 >= 12
        assert model.outputs["dst"][1, :2].tolist() == [0xFC, 0xFF]  # 12..25 >= 12
        if cols == 64:
            assert got.outputs["dst"][1, :2].tolist() == [0, 0]  # row 0's bytes 2 and 3: past its valid columns
            assert defects.matching(_sig(want_sigs[0])).name == "cpusim-tcmps-row-stride"


def _sig(key: str):
    from ptofuzz.core.signature import Signature

    return Signature.from_key(key)


@needs_sim
def test_tcmps_equal_within_1e_9_is_the_tolerance_defect(real):
    """float32 1e-30 against the scalar 0 (a 32-column row that fills its tile): EQ is false, the simulator's
    |a - b| < 1e-9 says true (cpusim-tcmps-eq-tolerance)."""
    src = Tile(1, 32, 1, 32)
    case = Case("TCMPS", "cpu", "float32", (("dst", Tile(1, 4, 1, 4)), ("src0", src), ("scalar", SCALAR)),
                (mode("EQ"),))
    a = np.zeros((1, 32), np.float32)
    a[0, 1] = 1e-30
    model, got, sigs = both(real, case, {"src0": a.view(np.uint32), "scalar": np.zeros((1, 1), np.uint32)})
    assert int(model.outputs["dst"][0, 0]) == 0xFD and int(got.outputs["dst"][0, 0]) == 0xFF
    assert sigs == ["TCMPS/float/cpu~cpusim/int-value/valid/packed=tile"]
    assert defects.matching(_sig(sigs[0])).name == "cpusim-tcmps-eq-tolerance"


@needs_sim
def test_hand_worked_tsel_and_its_mask_stream_defect(real):
    """float32 2 rows, mask rows 0x0F and 0xF0: with 8 valid columns cpusim agrees; with 6 the second row reads
    the first row's two bits left over (cpusim-tsel-mask-stream)."""
    a = np.full((2, 32), 1.0, np.float32).view(np.uint32)
    b = np.full((2, 32), 2.0, np.float32).view(np.uint32)
    mask = np.zeros((2, 32), np.uint8)
    mask[0, 0], mask[1, 0] = 0x0F, 0xF0
    for vc, want in ((8, []), (6, ["TSEL/float/cpu~cpusim/ulp-large/valid/part,pad"])):
        t = Tile(2, 32, 2, vc)
        case = Case("TSEL", "cpu", "float32", (("dst", t), ("mask", Tile(2, 32, 2, 1)), ("src0", t), ("src1", t)))
        model, got, sigs = both(real, case, {"src0": a, "src1": b, "mask": mask})
        assert sigs == want
        assert model.outputs["dst"][1, :vc].view(np.float32).tolist() == [2.0] * 4 + [1.0] * (vc - 4)
        if vc == 6:  # row 1 starts at bit 6 of row 0's byte: 0, 0, then byte (1, 0)'s bits 0..3
            assert got.outputs["dst"][1, :6].view(np.float32).tolist() == [2.0] * 6
            assert defects.matching(_sig(want[0])).name == "cpusim-tsel-mask-stream"


@needs_sim
def test_hand_worked_tsels_with_uint16_mask_words(real):
    """uint8 data, 20 valid columns: mask words 0x8001 and 0x000F select columns 0, 15, 16..19."""
    t = Tile(1, 32, 1, 20)
    case = Case("TSELS", "cpu", "uint8", (("dst", t), ("mask", Tile(1, 16, 1, 2)), ("src0", t),
                                          ("scalar", SCALAR)), (("mask", "uint16"),))
    mask = np.zeros((1, 16), np.uint16)
    mask[0, :2] = [0x8001, 0x000F]
    model, got, sigs = both(real, case, {"src0": np.arange(32, dtype=np.uint8).reshape(1, 32),
                                         "scalar": np.array([[99]], np.uint8), "mask": mask})
    want = [c if c in (0, 15, 16, 17, 18, 19) else 99 for c in range(20)]
    assert got.outputs["dst"][0, :20].tolist() == want and sigs == []
    assert (got.classes["dst"][0, :20] == EXACT).all()


@pytest.mark.slow
@needs_sim
@pytest.mark.parametrize("op", ["TCMP", "TCMPS", "TSEL", "TSELS"])
def test_random_cpu_cases_agree_but_for_the_named_defects(real, op):
    """Two thousand random cases per instruction: every disagreement is one of the family's named defects."""
    plan = campaign.make_plan(op, ["cpu", "cpusim"], seed=5, batch=128, rate=0.2, sim=real.settings)
    store, stats = campaign.run_random(plan, runs=2000)
    assert stats.cases == 2000
    named = {k: defects.matching(_sig(k)) for k in store.findings}
    assert all(d is not None for d in named.values()), named
