"""Evaluating a case on the oracle its platform names, for tests that compare the pto-spec model with the bundle
executor case by case (a campaign does this through its backends); skipping where pto-isa's CPU system tests
cannot be built."""

from __future__ import annotations

import os

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
