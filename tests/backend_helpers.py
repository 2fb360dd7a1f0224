"""Evaluating a case on the oracle its platform names, for tests that compare the pto-spec model with the bundle
executor case by case (a campaign does this through its backends); skipping where pto-isa's CPU system tests
cannot be built; the real simulator for the tests of one instruction's harness."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ptofuzz.backends.bundle import BundleBackend


def evaluate(inst, case, inputs):
    """``case`` on its oracle: the bundle executor for a ``bundle`` case, else the instruction's platform model."""
    if case.platform == "bundle":
        return BundleBackend().evaluate(inst, case, inputs)
    return inst.evaluate(case, inputs)


def st_toolchain_or_skip() -> None:
    """Skip unless PTO_ISA_DIR names a tree and cmake, GTest and a new enough compiler are here."""
    from ptofuzz.backends import systest
    from ptofuzz.core.errors import UsageError

    if not os.environ.get("PTO_ISA_DIR"):
        pytest.skip("needs PTO_ISA_DIR (a pto-isa tree with tests/cpu/st)")
    try:
        systest.toolchain()
    except UsageError as e:
        pytest.skip(str(e))


PTO_ISA = os.environ.get("PTO_ISA_DIR")
#: a test of the real simulator: marked ``cpusim``, skipped with the reason where PTO_ISA_DIR is unset
CPUSIM = [pytest.mark.cpusim, pytest.mark.skipif(not PTO_ISA, reason="PTO_ISA_DIR is unset: set it to a pto-isa "
                                                                        "tree to run the real simulator")]


def needs_sim(test: Any) -> Any:
    """:data:`CPUSIM` on one test."""
    for mark in reversed(CPUSIM):
        test = mark(test)
    return test


def simulator(*ops: str) -> Iterator[Any]:
    """The body of a module fixture: the real simulator's harness built for ``ops``, closed afterwards."""
    from ptofuzz.backends.cpusim import build
    from ptofuzz.backends.cpusim.simulator import Simulator

    assert PTO_ISA
    s = Simulator(build.Settings(pto_isa=Path(PTO_ISA), ops=ops))
    yield s
    s.close()
