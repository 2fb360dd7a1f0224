"""The platform table: the facts other modules ask instead of comparing platform names."""

from __future__ import annotations

import pytest

from ptofuzz.backends import choose
from ptofuzz.core import platforms
from ptofuzz.core.errors import UsageError
from ptofuzz.engine.compare import pto_isa_eps
from ptofuzz.instructions import registry


def test_the_registry_platforms_are_the_table():
    assert registry.PLATFORMS == platforms.names() == ("spec", "cpu", "a2a3", "a5", "kirin9030", "kirinDev0000",
                                                             "a6")


@pytest.mark.parametrize(("op", "platform", "eps"), [
    ("TPARTADD", "cpu", 0.0), ("TPARTMAX", "a2a3", 1e-3), ("TPARTMIN", "a5", 1e-3), ("TSORT32", "cpu", 1e-3),
    ("TSORT32", "a2a3", 1e-3), ("TSORT32", "a5", 1e-2), ("TMRGSORT", "a5", 1e-3), ("TSORT", "spec", None),
    ("TPARTADD", "nowhere", None),
    # kirin: tpartadd/main.cpp and tmrgsort/main.cpp 0.001f, tsort32/main.cpp ResultCmp(..., 0.01f)
    ("TPARTADD", "kirin9030", 1e-3), ("TSORT32", "kirin9030", 1e-2), ("TSORT32", "kirinX90", 1e-2),
    ("TMRGSORT", "kirinDev0000", 1e-3),
    ("TADD", "a6", 1e-3), ("TPARTADD", "a6", None),  # a6/src/st/testcase/tadd/main.cpp 0.001f; no tpartadd there
])
def test_eps_of_each_system_test(op, platform, eps):
    """The eps each platform's pto-isa system test (``testcase/<op>/main.cpp``) passes to ResultCmp."""
    assert pto_isa_eps(op, platform) == eps


def test_kinds_and_comparison_facts():
    npus = ["a2a3", "a5", "kirin9030", "kirinDev0000", "a6"]
    assert [p.name for p in platforms.TABLE if p.is_npu] == npus
    assert [p.name for p in platforms.TABLE if p.half_as_bits] == npus  # aclFloat16 is uint16_t there
    assert platforms.get("cpu").kind == platforms.CPU and platforms.get("spec").kind == platforms.SPEC
    assert {p.implementation for p in platforms.TABLE} == {"spec", "cpu", "a2a3", "a5"}
    # the kirin kernels include a5's TPart*/TSort32/TMrgSort headers (include/pto/npu/kirin9030/header.hpp)
    assert platforms.get("kirin9030").implementation == platforms.get("kirinDev0000").implementation == "a5"
    assert platforms.get("kirin9030").test_root == "tests/npu/kirin9030/src/st"
    # a6's vector instructions are a5's headers too (include/pto/npu/a6/header.hpp includes pto/npu/a5/TAdd.hpp)
    assert platforms.get("a6").implementation == "a5" and platforms.get("a6").test_root == "tests/npu/a6/src/st"


def test_kirinX90_is_kirin9030():
    """kirinX90's test folders are links to kirin9030's: the same platform under another name."""
    assert platforms.get("kirinX90") is platforms.get("kirin9030")
    assert platforms.canonical("kirinX90") == "kirin9030"
    assert choose.oracle_name("kirinX90") == "kirin9030" and choose.oracle_name("cpusim") == "cpusim"


def test_a_default_campaign_compares_each_implementation_once():
    assert platforms.distinct(platforms.names()) == ("spec", "cpu", "a2a3", "a5")
    assert platforms.distinct(["kirin9030", "a5", "cpu"]) == ("kirin9030", "cpu")


def test_unknown_platform_is_a_one_line_error():
    with pytest.raises(UsageError, match=r"unknown platform 'a9'; use one of: spec, cpu, a2a3, a5, kirin9030, "
                                        r"kirinDev0000, a6 \(kirinX90 = kirin9030\)$"):
        platforms.get("a9")
