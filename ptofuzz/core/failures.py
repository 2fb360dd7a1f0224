"""What a real target (the cpusim harness, an external command) says about a batch of cases it could not all
answer: :class:`Failure` entries, and the :class:`~ptofuzz.core.case.Outcome` that carries them."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import UNDEFINED, Outcome, OutcomeKind

CRASH, HANG, SKIPPED = "crash", "hang", "skipped"


@dataclasses.dataclass(frozen=True)
class Failure:
    item: int  # index in the batch
    kind: str  # crash / hang / skipped
    cause: str  # short class: the sanitizer's bug type, the signal, "timeout"
    first_line: str  # the sanitizer's first report line, or what happened


def stacked(*inputs: np.ndarray) -> tuple[list[np.ndarray], bool]:
    """The inputs with a leading batch axis (added when they have none) and whether they had one."""
    arrays = [np.asarray(x) for x in inputs]
    batched = bool(arrays) and arrays[0].ndim == 3  # no inputs at all (TCI, TTRI): one case
    return (arrays if batched else [x[None] for x in arrays]), batched


def outcome(role: str, out: np.ndarray, one: np.ndarray, failures: list[Failure], batched: bool) -> Outcome:
    """The outcome of ``out`` (with a leading batch axis) whose elements have ``one``'s classes (one tile's, or
    per case with the batch axis), except for the cases that crashed, hung or were skipped: for one case its
    crash or hang, in a batch undefined elements and the failures in ``extra["failures"]`` (each becomes a
    finding)."""
    return outcome_of({role: (out, one)}, failures, batched)


def outcome_of(parts: Mapping[str, tuple[np.ndarray, np.ndarray]], failures: list[Failure], batched: bool
               ) -> Outcome:
    """:func:`outcome` of several output roles (``role -> (out, one)``), the failed cases failing all of them."""
    if not batched:
        if failures:
            f = failures[0]
            return Outcome(OutcomeKind(f.kind), reason=f.first_line, extra={"cause": f.cause})
        return Outcome(OutcomeKind.OK, outputs={r: out[0] for r, (out, _) in parts.items()},
                       classes={r: one[0] if one.ndim == out.ndim else one for r, (out, one) in parts.items()})
    outputs, classes = {}, {}
    for r, (out, one) in parts.items():
        cls = np.broadcast_to(one, out.shape)
        if failures:
            cls = cls.copy()
            cls[[f.item for f in failures]] = UNDEFINED
        outputs[r], classes[r] = out, cls
    extra: dict[str, object] = {"failures": failures} if failures else {}
    return Outcome(OutcomeKind.OK, outputs=outputs, classes=classes, extra=extra)
