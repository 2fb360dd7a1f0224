"""Evaluating a case on the oracle its platform names, for tests that compare the pto-spec model with the bundle
executor case by case (a campaign does this through its backends)."""

from __future__ import annotations

from ptofuzz.backends.bundle import BundleBackend


def evaluate(inst, case, inputs):
    """``case`` on its oracle: the bundle executor for a ``bundle`` case, else the instruction's platform model."""
    if case.platform == "bundle":
        return BundleBackend().evaluate(inst, case, inputs)
    return inst.evaluate(case, inputs)
