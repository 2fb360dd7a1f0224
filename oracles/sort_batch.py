"""The sort oracles over a batch: :func:`shared_work`, under which the TSORT32 and TMRGSORT cases about to be
evaluated get their outcomes from one vectorised call each, and the NPU platforms share one outcome a case."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from ptofuzz.core import platforms
from ptofuzz.core.case import Case
from ptofuzz.oracles import mrgsort, sort
from ptofuzz.oracles.sort_memo import SHARED, memo_key


@contextlib.contextmanager
def shared_work(batch: Sequence[tuple[Case, Mapping[str, np.ndarray]]] = (), *,
                merges: Callable[[Case], bool] | None = None) -> Iterator[None]:
    """Within this context the sort oracles of the NPU platforms (a2a3, a5 and the kirin platforms run the same
    ``vbitsort`` and ``vmrgsort4`` models) compute one case's outcome once for all of them. Inputs must not change
    inside the context.

    ``batch`` lists (case, inputs) pairs about to be evaluated: the outcomes of its TSORT32 cases (2-D inputs)
    are computed up front by one :func:`tsort32_many` call and those of its TMRGSORT cases that ``merges``
    selects (the instruction says which its pto-isa models would be asked) by one ``mrgsort.tmrgsort_many`` call,
    so that each oracle call afterwards only looks its outcome up.
    """
    token = SHARED.set({})
    try:
        if batch:
            _prime(batch, merges)
        yield
    finally:
        SHARED.reset(token)


def _prime(batch: Sequence[tuple[Case, Mapping[str, np.ndarray]]], merges: Callable[[Case], bool] | None) -> None:
    memo = SHARED.get()
    assert memo is not None
    todo: dict[tuple[Any, ...], tuple[Case, Mapping[str, np.ndarray]]] = {}
    for case, inputs in batch:
        if case.op == "TSORT32" and case.platform in platforms.names() and inputs["src"].ndim == 2:
            todo.setdefault(memo_key(case, inputs, sort.tsort32_model_name(case.platform)), (case, inputs))
    merge_todo: dict[tuple[Any, ...], tuple[Case, Mapping[str, np.ndarray]]] = {}
    for case, inputs in batch:
        if case.op == "TMRGSORT" and merges is not None and merges(case) and inputs["src0"].ndim == 2:
            merge_todo.setdefault(memo_key(case, inputs, mrgsort.model_name(case.platform)), (case, inputs))
    for found, many in ((todo, sort.tsort32_many), (merge_todo, mrgsort.tmrgsort_many)):
        for key, outcome in zip(found, many(list(found.values()))):
            memo[key] = (outcome, dict(found[key][1]))  # the inputs stay alive, so their ids name them
