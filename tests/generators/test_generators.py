"""Random TPART* geometries: legal on their platform, and they reach the edges."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry


def _cases(op: str, platform: str, n: int = 400, **constraints):
    inst = registry.get(op)
    src = seeded(21, op, platform)
    return inst, [inst.random_case(src, platform, constraints) for _ in range(n)]


@pytest.mark.parametrize("platform", ["spec", "cpu", "a2a3", "a5"])
@pytest.mark.parametrize("op", ["TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN"])
def test_random_cases_are_supported_on_their_platform(op, platform):
    inst, cases = _cases(op, platform, 150)
    sup = inst.support(platform)
    for case in cases:
        assert case.dtype in sup.dtypes
        for _, t in case.tiles:
            assert t.valid_rows <= t.rows and t.valid_cols <= t.cols
        inputs = {r: np.zeros(case.tile(r).shape, dtypes.get(case.dtype).bits_dtype) for r in ("src0", "src1")}
        assert inst.evaluate(case, inputs).kind == "ok", case
        if case.param("inplace"):
            assert case.tile(case.param("inplace")) == case.tile("dst")


@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5"])
def test_random_geometries_reach_the_edges(platform):
    _, cases = _cases("TPARTADD", platform, 600)
    valids = [[case.tile(r).valid for r in ("dst", "src0", "src1")] for case in cases]
    assert any(0 in v for vs in valids for v in vs[1:]), "an empty source"
    assert any(case.param("inplace") for case in cases), "an in-place case"
    assert any(vs[0] == (1, 1) or (1, 1) in vs[1:] for vs in valids) or any(
        v[0] == 1 for vs in valids for v in vs), "a single row"
    assert any(vs[0] == vs[1] == vs[2] for vs in valids), "all full"
    assert any(v[1] in (7, 8, 9, 15, 16, 17) for vs in valids for v in vs), "a 32-byte alignment edge"
    assert len({case.dtype for case in cases}) == len(registry.get("TPARTADD").support(platform).dtypes)


def test_cpu_random_cases_include_uncovered_and_overhanging_patterns():
    _, cases = _cases("TPARTMAX", "cpu", 600)
    neither = 0
    for case in cases:
        d, s0, s1 = (case.tile(r).valid for r in ("dst", "src0", "src1"))
        neither += not (s0[0] >= d[0] and s0[1] >= d[1]) and not (s1[0] >= d[0] and s1[1] >= d[1])
    assert neither > 20


def test_shape_and_dtype_constraints_are_honoured():
    _, cases = _cases("TPARTMIN", "a5", 50, dtype="int8", shape=(64, 64))
    assert {c.dtype for c in cases} == {"int8"}
    assert {c.tile("dst").valid for c in cases} == {(64, 64)}
