"""The registry: ``MODULES`` names what each instruction module builds, and looking one instruction up builds
only that one (so ``gen tsort32`` does not import or build the TPART* family)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from ptofuzz.core.errors import UsageError
from ptofuzz.instructions import registry


@pytest.mark.parametrize("module", list(registry.MODULES))
def test_each_module_builds_exactly_the_mnemonics_listed_for_it_in_that_order(module):
    built = importlib.import_module(module).instructions()
    assert [i.name for i in built] == list(registry.MODULES[module])


@pytest.mark.parametrize("name", [n for names in registry.MODULES.values() for n in names])
def test_one_mnemonic_builds_only_itself_and_equals_the_full_build(name):
    module = next(m for m, names in registry.MODULES.items() if name in names)
    alone = importlib.import_module(module).instructions((name,))
    assert [i.name for i in alone] == [name]
    full = registry.all_instructions()[name]
    assert alone[0].platforms.keys() == full.platforms.keys()
    assert {p: s.profile.canonical for p, s in alone[0].platforms.items()} == \
        {p: s.profile.canonical for p, s in full.platforms.items()}


def test_all_instructions_keeps_the_module_order_whatever_was_looked_up_first():
    names = [n for names in registry.MODULES.values() for n in names]
    assert list(registry.all_instructions()) == names
    assert registry.get(" tmrgsort ").name == "TMRGSORT"


def test_an_unknown_mnemonic_lists_every_instruction():
    with pytest.raises(UsageError, match=r"unknown instruction 'tpartsub'; use one of: tpartadd, .*, tmrgsort, "
                                         r"tadd, tsub, tmul, tmax, tmin, tadds, tsubs, tmuls, tmaxs, tmins, tlrelu, "
                                         r"tabs, tneg, trelu, tnot, tand, tor, txor, tshl, tshr, tands, tors, "
                                         r"txors, tshls, tshrs, texpands, tci, ttri, tcmp, tcmps, tsel, tsels, "
                                         r"tcvt, tdequant, tquant, trowexpand, tcolexpand, trowmax, trowmin, "
                                         r"tcolmax, tcolmin, trowexpandadd, trowexpandsub, trowexpandmul, "
                                         r"trowexpandmax, trowexpandmin, tcolexpandadd, tcolexpandsub, "
                                         r"tcolexpandmul, tcolexpandmax, tcolexpandmin, trowsum, tcolsum, trowprod, "
                                         r"tcolprod, trowargmax, trowargmin, tcolargmax, tcolargmin, tpairreducesum$"):
        registry.get("tpartsub")


def test_looking_up_an_instruction_imports_its_own_modules_only():
    code = ("import sys; from ptofuzz.instructions import registry; registry.get('tsort32'); "
            "print(sorted(m for m in sys.modules if m.startswith('ptofuzz.instructions.') "
            "and not m.endswith('.registry')), "
            "sorted(registry._REGISTRY))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["['ptofuzz.instructions.sort_inputs',", "'ptofuzz.instructions.tsort32']", "['TSORT32']"]
