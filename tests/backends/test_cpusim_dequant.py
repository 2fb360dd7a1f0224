"""TDEQUANT through the real pto-isa CPU simulator (include/pto/cpu/TDeQuant.hpp): hand-worked values, a batch,
the parameter column rule, and the limits of the harness's parameter tiles."""

from __future__ import annotations

import numpy as np
import pytest
from backend_helpers import CPUSIM, simulator

from ptofuzz.backends.cpusim import dequant
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Tile
from ptofuzz.engine.differential import compare_batch
from ptofuzz.instructions import registry
from ptofuzz.instructions.dequant import make_case

pytestmark = CPUSIM
TDEQUANT = registry.get("TDEQUANT")


@pytest.fixture(scope="module")
def sim():
    yield from simulator("TDEQUANT")


def f32(rows) -> np.ndarray:
    return np.array(rows, dtype=np.float32).view(np.uint32)


def test_hand_worked_rows_in_the_simulator(sim):
    """Row 0: (q - 3) * 0.5; row 1: (q + 1) * 2; outside the 2x5 region nothing is looked at."""
    case = make_case("cpusim", "int8", (2, 32), (2, 32), (2, 5), (2, 1))
    src = np.zeros((2, 32), dtype=np.int8)
    src[0, :5], src[1, :5] = [-128, 0, 5, 127, 1], [1, 2, 3, 4, 5]
    inputs = {"src": src.view(np.uint8), "scale": f32([[0.5], [2.0]]), "offset": f32([[3.0], [-1.0]])}
    out = dequant.evaluate(sim, case, inputs)
    assert out.outputs["dst"][:, :5].view(np.float32).tolist() == [[-65.5, -1.5, 1.0, 62.0, -1.0],
                                                                   [4.0, 6.0, 8.0, 10.0, 12.0]]
    assert (out.classes["dst"][:, :5] == EXACT).all() and (out.classes["dst"][:, 5:] == UNDEFINED).all()


def test_a_batch_and_the_parameter_column_rule_agree_with_the_cpu_model(sim):
    """int16, a 3-column parameter tile (each element reads column min(j, 2)), random parameters, 16 cases at once:
    the simulator's values are the cpu model's, element for element."""
    ptile = Tile(4, 8, 4, 3)
    case = Case("TDEQUANT", "cpusim", "int16", (("dst", Tile(4, 32, 4, 20)), ("src", Tile(4, 32, 4, 20)),
                                                 ("scale", ptile), ("offset", ptile)))
    rng = np.random.default_rng(1)
    inputs = {"src": rng.integers(0, 1 << 16, (16, 4, 32)).astype(np.uint16),
              "scale": np.array(rng.uniform(-4, 4, (16, 4, 8)), dtype=np.float32).view(np.uint32),
              "offset": np.array(rng.uniform(-300, 300, (16, 4, 8)), dtype=np.float32).view(np.uint32)}
    out = dequant.evaluate(sim, case, inputs)
    model = TDEQUANT.evaluate(case.on("cpu"), inputs)
    assert not compare_batch(TDEQUANT, case, {"cpu": model, "cpusim": out}, 16).counts
    col5 = inputs["scale"].view(np.float32)[0, 0, 2]  # column 5 reads parameter column 2
    q = np.float32(inputs["src"].view(np.int16)[0, 0, 5])
    want = (q - inputs["offset"].view(np.float32)[0, 0, 2]) * col5
    assert out.outputs["dst"][0, 0, 5].view(np.float32) == np.float32(want)


def test_wider_parameter_tiles_are_unsupported_not_wrong(sim):
    ptile = Tile(2, 16, 2, 9)
    case = Case("TDEQUANT", "cpusim", "int8", (("dst", Tile(2, 32, 2, 10)), ("src", Tile(2, 32, 2, 10)),
                                                ("scale", ptile), ("offset", ptile)))
    out = dequant.evaluate(sim, case, {"src": np.zeros((2, 32), np.uint8), "scale": np.zeros((2, 16), np.uint32),
                                       "offset": np.zeros((2, 16), np.uint32)})
    assert out.kind == "unsupported" and "8 valid columns" in out.reason
