"""The compare/select family's defects of the simulator: each matches its own signatures and no neighbour's."""

from __future__ import annotations

import pytest

from ptofuzz.core.signature import Signature
from ptofuzz.instructions import defects


@pytest.mark.parametrize(("key", "name"), [
    ("TCMPS/int/cpu~cpusim/int-value/valid/packed<tile", "cpusim-tcmps-row-stride"),
    ("TCMPS/float/cpu~cpusim/int-value/valid/packed<tile", "cpusim-tcmps-row-stride"),
    ("TCMPS/float/a5~cpusim/int-value/valid/packed<tile", "cpusim-tcmps-row-stride"),
    ("TCMPS/float/cpu~cpusim/int-value/valid/packed=tile", "cpusim-tcmps-eq-tolerance"),
    ("TSEL/float/cpu~cpusim/ulp-large/valid/part,pad", "cpusim-tsel-mask-stream"),
    ("TSEL/int/cpu~cpusim/int-value/valid/full,pad", "cpusim-tsel-mask-stream"),
    ("TSEL/float/cpu~cpusim/nan-vs-number/valid/full,pad", "cpusim-tsel-mask-stream"),
])
def test_each_family_defect_matches_its_signatures(key, name):
    assert defects.matching(Signature.from_key(key)).name == name


@pytest.mark.parametrize("key", [
    "TCMPS/int/cpu~cpusim/int-value/valid/packed=tile",  # an integer compare with filled rows: nothing is off
    "TCMPS/float/a5~cpu/int-value/valid/packed<tile",  # two models: no defect of the code under test
    "TCMPS/int/cpu~cpusim/int-value/outside/packed<tile",  # nothing is pinned outside
    "TCMPS/int/cpusim/crash/heap-buffer-overflow/packed<tile",
    "TCMP/int/cpu~cpusim/int-value/valid/part,pad",  # TCMP packs by rows
    "TSEL/float/cpu~cpusim/ulp-large/valid/part",  # whole bytes a row: the stream is row-aligned
    "TSEL/float/cpu~cpusim/ulp-large/outside/part,pad",
    "TSELS/float/cpu~cpusim/ulp-large/valid/part,pad",  # TSelS.hpp reads row by row
])
def test_no_family_defect_excuses_its_neighbours(key):
    assert defects.matching(Signature.from_key(key)) is None
