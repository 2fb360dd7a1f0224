"""The platform table: the facts other modules ask instead of comparing platform names."""

from __future__ import annotations

import pytest

from ptofuzz import platforms, registry
from ptofuzz.compare import pto_isa_eps
from ptofuzz.errors import UsageError


def test_the_registry_platforms_are_the_table():
    assert registry.PLATFORMS == platforms.names() == ("spec", "cpu", "a2a3", "a5")


@pytest.mark.parametrize(("op", "platform", "eps"), [
    ("TPARTADD", "cpu", 0.0), ("TPARTMAX", "a2a3", 1e-3), ("TPARTMIN", "a5", 1e-3), ("TSORT32", "cpu", 1e-3),
    ("TSORT32", "a2a3", 1e-3), ("TSORT32", "a5", 1e-2), ("TMRGSORT", "a5", 1e-3), ("TSORT", "spec", None),
    ("TPARTADD", "nowhere", None),
])
def test_eps_of_each_system_test(op, platform, eps):
    """pto-isa-conventions.md: the eps each platform's gen_data/main.cpp pair compares with."""
    assert pto_isa_eps(op, platform) == eps


def test_kinds_and_comparison_facts():
    assert [p.name for p in platforms.TABLE if p.is_npu] == ["a2a3", "a5"]
    assert [p.name for p in platforms.TABLE if p.half_as_bits] == ["a2a3", "a5"]  # aclFloat16 is uint16_t there
    assert platforms.get("cpu").kind == platforms.CPU and platforms.get("spec").kind == platforms.SPEC
    assert {p.implementation for p in platforms.TABLE} == {"spec", "cpu", "a2a3", "a5"}


def test_unknown_platform_is_a_one_line_error():
    with pytest.raises(UsageError, match=r"unknown platform 'a9'; use one of: spec, cpu, a2a3, a5"):
        platforms.get("a9")
