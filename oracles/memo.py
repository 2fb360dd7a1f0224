"""Work the platforms of one case share: inside a scope (an instruction's ``shared`` context, opened by the engine
around a batch) a result computed from some input arrays is computed once and handed to every oracle that asks
for it with the same arrays and parameters. Arrays are named by their memory (address, shape, strides); the memo
keeps them alive for its life, so an address cannot be reused for other data inside the scope. Results are read
only."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")
LIMIT = 256  # entries a scope keeps (a batch's pieces); past it results are computed again, not kept


class Memo:
    """One instruction's shared results (:meth:`scope` opens it, :meth:`get` uses it)."""

    def __init__(self, name: str) -> None:
        self._var: contextvars.ContextVar[dict[Any, Any] | None] = contextvars.ContextVar(name, default=None)

    @contextlib.contextmanager
    def scope(self, batch: Sequence[Any] = ()) -> Iterator[None]:
        """Results shared until the context ends (``batch``: the engine's cases about to run, unused here)."""
        token = self._var.set({})
        try:
            yield
        finally:
            self._var.reset(token)

    def get(self, arrays: Sequence[np.ndarray], params: tuple[Hashable, ...], compute: Callable[[], T]) -> T:
        """``compute()``, or inside a scope the result already computed for the same arrays and ``params``."""
        memo = self._var.get()
        if memo is None:
            return compute()
        key = tuple((a.__array_interface__["data"][0], a.shape, a.strides, a.dtype.str) for a in arrays) + params
        if key in memo:
            shared: T = memo[key][1]
            return shared
        out = compute()
        if len(memo) < LIMIT:
            memo[key] = (tuple(arrays), out)
        return out
