"""The sort oracles' shared work: within one evaluation the platforms that run one model (the NPUs' ``vbitsort``
and ``vmrgsort4``) compute a case's outcome once, and a batch's outcomes can be computed up front
(:func:`ptofuzz.oracles.sort_batch.shared_work` opens the context)."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from ptofuzz.core.case import Case, Outcome

T = TypeVar("T")

SHARED: contextvars.ContextVar[dict[Any, Any] | None] = contextvars.ContextVar("sort_shared", default=None)


def memo_key(case: Case, inputs: Mapping[str, np.ndarray], model: str) -> tuple[Any, ...]:
    return (model, case.op, case.dtype, case.tiles, case.params, *((r, id(v)) for r, v in sorted(inputs.items())))


def shared_outcome(case: Case, inputs: Mapping[str, np.ndarray], model: str, compute: Callable[[], Outcome]
                   ) -> Outcome:
    """``compute()``, or inside ``sort_batch.shared_work`` the outcome already computed for the same ``model`` on
    the same case and inputs (a copy of its dicts; the arrays are shared and read only)."""
    memo = SHARED.get()
    if memo is None:
        return compute()
    key = memo_key(case, inputs, model)
    if key not in memo:
        memo[key] = (compute(), dict(inputs))  # the inputs stay alive, so their ids name them for the memo's life
    return memo[key][0].copy()




def filled(slots: Sequence[T | None]) -> list[T]:
    """``slots``, every one of which a batch function has filled (a None left is a bug, not a value)."""
    if any(s is None for s in slots):
        raise AssertionError("a batch left a case without its outcome")
    return [s for s in slots if s is not None]
