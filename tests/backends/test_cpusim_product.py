"""TROWPROD and TCOLPROD through the real pto-isa CPU simulator: hand-worked products whose order shows in the
bits, and the simulator's defects of this family (each matches its own signature and no neighbour's).

- ``cpusim-tprod-signed-overflow-ub``: an int32 (or, promoted, uint16) product past int's range (UBSan's report).
- ``cpusim-tprod-uint16-counts``: the headers take the valid rows and columns as uint16_t, so a source of 65536
  valid rows reduces none (TCOLPROD: every product is 1; TROWPROD: no row written).
"""

from __future__ import annotations

import numpy as np
import pytest
from backend_helpers import needs_sim, simulator

from ptofuzz.backends.cpusim import product
from ptofuzz.core.case import EXACT, UNDEFINED, Case, OutcomeKind, Tile
from ptofuzz.core.signature import Signature
from ptofuzz.instructions import defects, registry

TROWPROD, TCOLPROD = registry.get("TROWPROD"), registry.get("TCOLPROD")
E = 2.0 ** -23


@pytest.fixture(scope="module")
def sim():
    yield from simulator("TROWPROD", "TCOLPROD")


def _rowprod(dtype: str, rows: np.ndarray, bits: type) -> tuple[Case, dict[str, np.ndarray]]:
    r, n = rows.shape
    cols = max(32, n)
    tile = np.zeros((r, cols), bits)
    tile[:, :n] = rows
    return Case("TROWPROD", "cpu", dtype, (("dst", Tile(r, 32 // np.dtype(bits).itemsize, r, 1)),
                                           ("src", Tile(r, cols, r, n)))), {"src": tile}


@needs_sim
def test_the_simulator_multiplies_a_float32_row_and_column_in_the_loop_s_order(sim):
    """a = 1 + 2988E, b = 1 + 2590E, c = 1 + 2227E: (a * b) * c = 1 + 7807E, a * (b * c) = 1 + 7808E (numpy's
    float32); the simulator folds from 1 in order, as the cpu model; 2^100, 2^100, 2^-100 overflows in that order."""
    f32 = np.float32
    abc = [f32(1.0 + k * E) for k in (2988, 2590, 2227)]
    rows = np.array([abc, [2.0**100, 2.0**100, 2.0**-100]], np.float32).view(np.uint32)
    case, inputs = _rowprod("float32", rows, np.uint32)
    out = product.evaluate(sim, case, inputs)
    assert out.kind is OutcomeKind.OK, out.reason
    got = out.outputs["dst"][:, 0]
    assert got.tolist() == [f32((abc[0] * abc[1]) * abc[2]).view(np.uint32), 0x7F800000]
    assert got[0] == f32(1.0 + 7807 * E).view(np.uint32)
    model = TROWPROD.evaluate(case, inputs)
    assert np.array_equal(model.outputs["dst"][:, 0], got) and (model.classes["dst"][:, 0] == EXACT).all()
    assert (out.classes["dst"][:, 1:] == UNDEFINED).all()  # one valid column of products
    col = np.zeros((3, 8), np.uint32)
    col[:, 0] = rows[0]
    colcase = Case("TCOLPROD", "cpu", "float32", (("dst", Tile(1, 8, 1, 1)), ("src", Tile(3, 8, 3, 1))))
    assert product.evaluate(sim, colcase, {"src": col}).outputs["dst"][0, 0] == got[0]


@needs_sim
def test_a_half_row_rounds_every_product_to_half(sim):
    """half 1 + 162u, 1 + 130u, 1 + 182u (u = 2^-10): rounding each product to half gives 1 + 551u, one float
    product rounded once 1 + 550u; the simulator casts every step (TRowProd.hpp:23), as the cpu model."""
    h = np.float16
    abc = [h(1.0 + k * 2.0**-10) for k in (162, 130, 182)]
    row = np.array([abc], np.float16).view(np.uint16)
    case, inputs = _rowprod("float16", row, np.uint16)
    got = product.evaluate(sim, case, inputs).outputs["dst"][0, 0]
    assert got == h((abc[0] * abc[1]) * abc[2]).view(np.uint16) == 0x3C00 + 551
    assert h(np.float32(abc[0]) * np.float32(abc[1]) * np.float32(abc[2])).view(np.uint16) == 0x3C00 + 550
    assert TROWPROD.evaluate(case, inputs).outputs["dst"][0, 0] == got


@needs_sim
def test_int16_products_wrap_in_the_simulator_and_are_open_in_the_cpu_model(sim):
    row = np.array([[300, 300, -1]], np.int16).view(np.uint16)
    case, inputs = _rowprod("int16", row, np.uint16)
    out = product.evaluate(sim, case, inputs)
    assert int(out.outputs["dst"][0, 0].view(np.int16)) == -24464  # -90000 modulo 2^16
    assert TROWPROD.evaluate(case, inputs).classes["dst"][0, 0] == UNDEFINED


@needs_sim
def test_a_column_of_65536_rows_multiplies_none(sim):
    """TColProd.hpp:18 takes the rows as uint16_t: 65536 becomes 0 and the column's product stays 1 (defect
    cpusim-tprod-uint16-counts); the model multiplies them all: 2 * 3 * 1 ... = 6."""
    src = np.ones((65536, 1), np.int16)
    src[0, 0], src[-1, 0] = 2, 3
    case = Case("TCOLPROD", "cpu", "int16", (("dst", Tile(1, 1, 1, 1)), ("src", Tile(65536, 1, 65536, 1))))
    inputs = {"src": src.view(np.uint16)}
    assert product.evaluate(sim, case, inputs).outputs["dst"][0, 0] == 1
    model = TCOLPROD.evaluate(case, inputs)
    assert model.outputs["dst"][0, 0] == 6 and model.classes["dst"][0, 0] == EXACT
    assert TCOLPROD.geometry_class(case) == "rows>65535"


# ---- the defects' signatures ----------------------------------------------------------------------------------

@pytest.mark.parametrize("key, name", [
    ("TROWPROD/int/cpusim/crash/signed-integer-overflow/-", "cpusim-tprod-signed-overflow-ub"),
    ("TCOLPROD/int/cpusim-clang/crash/signed-integer-overflow/-", "cpusim-tprod-signed-overflow-ub"),
    ("TCOLPROD/int/cpu~cpusim/int-value/-/rows>65535", "cpusim-tprod-uint16-counts"),
    ("TROWPROD/float/cpusim~spec/ulp-1/-/rows>65535", "cpusim-tprod-uint16-counts"),
    ("TROWPROD/int/a5~cpusim-clang/int-value/-/cols>65535", "cpusim-tprod-uint16-counts"),
])
def test_the_product_defects_match_their_signatures(key, name):
    assert defects.matching(Signature.from_key(key)).name == name


@pytest.mark.parametrize("key", [
    "TROWPROD/int/cpusim/crash/heap-buffer-overflow/-",  # another sanitizer report
    "TROWPROD/int/cpu~cpusim/int-value/-/>repeat",  # a wrapped value is no UB report
    "TROWSUM/int/cpusim/crash/shift-exponent/-",
    "TCOLPROD/int/cpu~cpusim/int-value/-/k*repeat",  # the counts fit: no truncation
    "TCOLPROD/int/cpu~spec/int-value/-/rows>65535",  # two models: no code under test
    "TCOLMIN/int/cpu~cpusim/int-value/-/rows>65535",  # another instruction
    "TCOLPROD/float/cpu~cpusim/fault-vs-value/-/rows>65535",
    "TCOLPROD/float/cpu~cpusim/ulp-1/-/<=repeat",
])
def test_the_product_defects_excuse_no_neighbour(key):
    found = defects.matching(Signature.from_key(key))
    assert found is None or not found.name.startswith("cpusim-tprod"), (key, found)


@pytest.mark.parametrize("key, known", [
    ("TROWPROD/float/cpu~spec/fault-vs-value/-/dst-cols>1", True),
    ("TROWPROD/float/cpusim~spec/fault-vs-value/-/dst-cols>1", False),  # the engine names the simulator cpu first
    ("TROWPROD/float/cpu~spec/fault-vs-value/-/dst-valid", False),
    ("TROWPROD/float/cpu~spec/ulp-1/-/>repeat", False),  # the cpu folds as pto-spec does
    ("TCOLPROD/float/cpu~spec/fault-vs-value/-/dst-cols>1", False),
])
def test_the_documented_differences_with_pto_spec(key, known):
    sig = Signature.from_key(key)
    assert (registry.get(sig.op).known_difference(sig) is not None) is known
