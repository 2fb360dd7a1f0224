"""Known defects of the code under test: each matches its own signatures and no neighbour's (another pair, a
model, another geometry, kind or instruction), and a campaign reports it as that defect, never as a platform
difference or as nothing."""

from __future__ import annotations

import pytest

from ptofuzz.core.signature import Signature
from ptofuzz.engine import campaign
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import defects, registry
from ptofuzz.report import ci

OVERLAP = "TSORT32/float/cpu~cpusim/int-value/-/16-bit,cols>32"


@pytest.mark.parametrize("key", [OVERLAP, "TSORT32/int/a5~cpusim/ordering/-/16-bit,cols>32",
                                 "TSORT32/float/cpusim~target/int-value/-/16-bit,cols>32"])
def test_the_overlap_defect_is_the_simulator_on_16_bit_rows_of_more_than_one_block(key):
    assert defects.matching(Signature.from_key(key)).name == "cpusim-tsort32-16bit-overlap"


@pytest.mark.parametrize("key", [
    "TSORT32/float/a5~cpu/int-value/-/16-bit,cols>32",  # the cpu model follows the page: no defect of a model
    "TSORT32/float/cpu~cpusim/int-value/-/16-bit,cols<=32",  # one block: nothing moves
    "TSORT32/float/cpu~cpusim/int-value/-/32-bit,cols>32",  # 32-bit records are placed right
    "TSORT32/float/cpu~cpusim/fault-vs-value/-/16-bit,cols>32",  # another kind of disagreement
    "TSORT32/float/cpu~cpusim/nan-encoding/-/16-bit,cols>32",
    "TMRGSORT/float/cpu~cpusim/int-value/-/16-bit,cols>32",  # another instruction
    "TPARTADD/int/cpusim/crash/heap-buffer-overflow/-",  # a crash, but not UBSan's signed overflow
    "TPARTMAX/int/cpusim/crash/signed-integer-overflow/-",  # TPARTMAX is no arithmetic
    "TPARTADD/int/cpu~cpusim/int-value/op/-",
    "TMAX/int/cpusim/crash/signed-integer-overflow/-",  # max/min compute nothing that overflows
    "TMAXS/int/cpusim/crash/signed-integer-overflow/-",
    "TADDS/int/cpu~cpusim/int-value/op/-",
    "TADD/int/cpusim/crash/heap-buffer-overflow/-",
    "TADD/int/cpu~cpusim/int-value/op/-",  # a wrong value is no overflow report
    "TADD/float/cpusim/crash/float-cast-overflow/-",
    "TABS/float/cpu~spec/signed-zero/op/-",  # both models follow their documents: no defect of a model
    "TABS/float/cpu~cpusim/signed-zero/outside/-",  # nothing is written outside
    "TABS/float/cpu~cpusim/nan-encoding/op/-",  # a NaN's sign is open on the page
    "TABS/int/cpu~cpusim/signed-zero/op/-",
    "TRELU/float/cpu~cpusim/signed-zero/op/-",  # relu(-0) is some zero; another instruction
    "TNOT/int/cpusim/crash/negation-of-2147483648-cannot-be-represe/-",
    "TABS/int/cpusim/crash/signed-integer-overflow/-",
    "TSHL/int/cpusim/crash/signed-integer-overflow/-",  # a shift overflows nothing the defect names
    "TSHL/int/cpu~cpusim/int-value/op/-",  # a wrong value is no UB report
    "TAND/int/cpusim/crash/shift-exponent-negative/-",  # TAND shifts nothing
    "TSHR/int/cpu~spec/int-value/op/-",
])
def test_no_defect_excuses_its_neighbours(key):
    assert defects.matching(Signature.from_key(key)) is None


def test_the_int32_overflow_defect_is_ubsans_report_of_tpartadd_and_tpartmul():
    for op in ("TPARTADD", "TPARTMUL"):
        sig = Signature.from_key(f"{op}/int/cpusim/crash/signed-integer-overflow/-")
        assert defects.matching(sig).name == "cpusim-int32-overflow-ub"


def test_the_elementwise_overflow_defect_is_ubsans_report_of_add_sub_mul_and_lrelu():
    for op in ("TADD", "TSUB", "TMUL", "TADDS", "TSUBS", "TMULS", "TLRELU"):
        sig = Signature.from_key(f"{op}/int/cpusim/crash/signed-integer-overflow/-")
        assert defects.matching(sig).name == "cpusim-elementwise-signed-overflow-ub"
    assert [d.name for d in defects.of("TMUL")] == ["cpusim-elementwise-signed-overflow-ub", "cpusim-bf16-placeholder"]


def test_the_row_expand_overflow_defect_is_ubsans_report_of_add_sub_mul_only():
    """Both sides: UBSan's signed overflow in TROWEXPAND{ADD,SUB,MUL} (either build) is the defect; MAX/MIN (which
    cannot overflow), another crash kind, or a value mismatch are not."""
    for op in ("TROWEXPANDADD", "TROWEXPANDSUB", "TROWEXPANDMUL"):
        for build in ("cpusim", "cpusim-clang"):
            sig = Signature.from_key(f"{op}/int/{build}/crash/signed-integer-overflow/-")
            assert defects.matching(sig).name == "cpusim-rowexpand-signed-overflow-ub", (op, build)
    for key in ("TROWEXPANDMAX/int/cpusim/crash/signed-integer-overflow/-",
                "TROWEXPANDADD/int/cpusim/crash/heap-buffer-overflow/-",
                "TROWEXPANDADD/int/cpu~cpusim/int-value/op/mode1,full"):
        found = defects.matching(Signature.from_key(key))
        assert found is None or found.name != "cpusim-rowexpand-signed-overflow-ub", key


def test_the_col_expand_overflow_defect_is_ubsans_report_of_add_sub_mul_only():
    """Both sides: UBSan's signed overflow in TCOLEXPAND{ADD,SUB,MUL} (either build) is the column defect, never the
    row one; MAX/MIN, the row forms, another crash kind, or a value mismatch are not."""
    for op in ("TCOLEXPANDADD", "TCOLEXPANDSUB", "TCOLEXPANDMUL"):
        for build in ("cpusim", "cpusim-clang"):
            sig = Signature.from_key(f"{op}/int/{build}/crash/signed-integer-overflow/-")
            assert defects.matching(sig).name == "cpusim-colexpand-signed-overflow-ub", (op, build)
    for key in ("TCOLEXPANDMAX/int/cpusim/crash/signed-integer-overflow/-",
                "TCOLEXPANDMIN/int/cpusim-clang/crash/signed-integer-overflow/-",
                "TROWEXPANDADD/int/cpusim/crash/signed-integer-overflow/-",
                "TCOLEXPANDADD/int/cpusim/crash/heap-buffer-overflow/-",
                "TCOLEXPANDADD/int/cpu~cpusim/int-value/op/row1,full"):
        found = defects.matching(Signature.from_key(key))
        assert found is None or found.name != "cpusim-colexpand-signed-overflow-ub", key


@pytest.mark.parametrize("key", ["TABS/float/cpu~cpusim/signed-zero/op/-", "TABS/float/cpusim~spec/signed-zero/op/-"])
def test_the_tabs_zero_defect_is_the_simulator_s_signed_zero_in_the_operation(key):
    assert defects.matching(Signature.from_key(key)).name == "cpusim-tabs-negative-zero"


@pytest.mark.parametrize("op", ["TABS", "TNEG"])
def test_the_int_min_defect_is_ubsans_negation_report_of_tabs_and_tneg(op):
    sig = Signature.from_key(f"{op}/int/cpusim/crash/negation-of-2147483648-cannot-be-represe/-")
    assert defects.matching(sig).name == "cpusim-int-min-negation-ub"


@pytest.mark.parametrize("op", ["TSHL", "TSHR", "TSHLS", "TSHRS"])
def test_the_shift_count_defect_is_ubsans_shift_exponent_report_of_the_shifts(op):
    for cause in ("shift-exponent-negative", "shift-exponent-too-large"):
        sig = Signature.from_key(f"{op}/int/cpusim/crash/{cause}/-")
        assert defects.matching(sig).name == "cpusim-shift-count-ub"


def test_every_defect_names_its_evidence_in_a_header_and_how_to_show_it():
    for d in defects.DEFECTS:
        where = "include/pto/" if d.code == "cpusim" else "pto-spec.asl:"  # the simulator's headers, pto-spec's ASL
        assert d.code in ("cpusim", "aslref") and where in d.evidence, d.name
        assert d.documented and d.reproduce.startswith("ptofuzz "), d.name
        assert all(op == "*" or op in registry.all_instructions() for op in d.ops)
    assert [d.name for d in defects.of("TSORT32")] == ["cpusim-tsort32-16bit-overlap", "cpusim-bf16-placeholder"]


def test_a_campaign_reports_a_defect_as_such_and_not_as_new_or_known(tmp_path):
    """The store labels the finding (record and summary), leaves it out of the new ones, and CI reports it as a
    failure of the code under test."""
    plan = campaign.make_plan("tsort32", ["cpu", "a5"], seed=1)
    store = campaign.FindingStore(registry.get("TSORT32"), plan, tmp_path)
    inst = registry.get("TSORT32")
    case = inst.explicit_case("cpu", {"dtype": "float16", "shape": (1, 64)})
    inputs = inst.draw_inputs(seeded(1, "defect"), case, values.ValueMix(0.0))
    found = store.add(OVERLAP, 3, "batch 0 item 0", case, inputs)
    other = store.add("TSORT32/float/a5~cpu/int-value/-/16-bit,cols>32", 1, "batch 0 item 1", case, inputs)
    assert (found.defect, found.new, found.known) == ("cpusim-tsort32-16bit-overlap", False, None)
    assert (other.defect, other.new) == (None, True)
    rec = found.path.read_text()  # the record file
    assert '"defect": "cpusim-tsort32-16bit-overlap"' in rec
    summary = campaign.summary_json(store, campaign.Stats(cases=10, elapsed=1.0))
    by_key = {s["signature"]: s for s in summary["signatures"]}
    assert by_key[OVERLAP]["defect"] == "cpusim-tsort32-16bit-overlap" and summary["new"] == 1
    entries = {e.name: e for e in ci.campaign_entries(summary)}
    assert entries[OVERLAP].status == ci.FAIL and "defect of the code under test" in entries[OVERLAP].message


@pytest.mark.parametrize(("key", "name"), [
    ("TCI/int/cpusim/crash/signed-integer-overflow/-", "cpusim-tci-signed-overflow-ub"),
    ("TTRI/int/cpusim/crash/signed-integer-overflow/-", "cpusim-ttri-diagonal-overflow"),
    ("TTRI/float/cpu~cpusim/ulp-large/int-edge/part,far", "cpusim-ttri-diagonal-overflow"),
    ("TTRI/int/cpusim~spec/int-value/int-edge/nodesc", "cpusim-ttri-diagonal-overflow"),
])
def test_the_generation_defects_match_their_signatures(key, name):
    assert defects.matching(Signature.from_key(key)).name == name


@pytest.mark.parametrize("key", [
    "TCI/int/cpu~cpusim/int-value/op/-",  # a wrong value is no overflow report
    "TCI/int/cpusim/crash/heap-buffer-overflow/-",
    "TTRI/float/cpu~cpusim/ulp-large/op/-",  # away from int's end: no instance of the diagonal overflow
    "TTRI/float/cpu~spec/ulp-large/int-edge/part,far",  # two models: no defect of the code under test
    "TTRI/float/cpusim~spec/fault-vs-value/-/diagonal",  # pto-spec's bound: a documented difference
    "TEXPANDS/int/cpusim/crash/signed-integer-overflow/-",  # TEXPANDS computes nothing
    "TEXPANDS/float/cpu~cpusim/ulp-large/op/-",
])
def test_the_generation_defects_excuse_no_neighbour(key):
    assert defects.matching(Signature.from_key(key)) is None


@pytest.mark.parametrize("key, seen_as", [
    ("TSORT32/float/cpu~cpusim-clang/int-value/-/16-bit,cols>32",
     "TSORT32/float/cpu~cpusim/int-value/-/16-bit,cols>32"),
    ("TSORT32/int/a5~cpusim-clang/ordering/-/16-bit,cols>32", "TSORT32/int/a5~cpusim/ordering/-/16-bit,cols>32"),
    ("TPARTADD/int/cpusim-clang/crash/signed-integer-overflow/-",
     "TPARTADD/int/cpusim/crash/signed-integer-overflow/-"),
])
def test_the_clang_build_shows_the_simulators_defects_as_the_g_build_does(key, seen_as):
    sig = Signature.from_key(key)
    assert defects.as_simulator(sig).key == seen_as
    assert defects.matching(sig) is not None and defects.matching(sig) == defects.matching(Signature.from_key(seen_as))


@pytest.mark.parametrize("key", [
    # the two builds against each other: bits that change with the compiler are a finding of their own
    "TSORT32/float/cpusim~cpusim-clang/int-value/-/16-bit,cols>32",
    "TPARTADD/int/cpusim~cpusim-clang/int-value/op/-",
    # the clang build's neighbours of a defect stay unmatched, as the g++ build's do
    "TSORT32/float/cpu~cpusim-clang/int-value/-/16-bit,cols<=32",
    "TPARTMAX/int/cpusim-clang/crash/signed-integer-overflow/-",
])
def test_the_builds_against_each_other_match_no_simulator_defect(key):
    sig = Signature.from_key(key)
    assert defects.matching(sig) is None
    if "cpusim~cpusim-clang" in key:
        assert defects.as_simulator(sig) == sig


@pytest.mark.parametrize("key", ["TCOLMAX/int/cpu~cpusim/int-value/-/rows>65535",
                                 "TCOLMAX/float/cpusim~spec/ulp-large/-/rows>65535",
                                 "TCOLMAX/int/cpu~cpusim-clang/int-value/-/rows>65535"])
def test_the_tcolmax_row_count_defect_is_the_simulator_past_65535_rows(key):
    assert defects.matching(Signature.from_key(key)).name == "cpusim-tcolmax-uint16-rows"


@pytest.mark.parametrize("key", [
    "TCOLMAX/int/cpu~cpusim/int-value/-/full,many",  # fewer rows: counted right
    "TCOLMAX/int/cpu~spec/int-value/-/rows>65535",  # two models
    "TCOLMIN/int/cpu~cpusim/int-value/-/rows>65535",  # TColMin.hpp counts in unsigned
    "TCOLMAX/int/cpusim/crash/heap-buffer-overflow/rows>65535",
    "TCOLMAX/int/cpusim~spec/fault-vs-value/-/rows>65535",
])
def test_the_tcolmax_row_count_defect_excuses_nothing_else(key):
    assert defects.matching(Signature.from_key(key)) is None


@pytest.mark.parametrize(("key", "name"), [
    ("TAND/int/aslref~spec/fault-vs-value/-/empty", "aslref-generic-bitwise-no-lb0"),
    ("TSHR/int/aslref~bundle/fault-vs-value/-/empty", "aslref-generic-bitwise-no-lb0"),
    ("TCMP/float/aslref~spec/fault-vs-value/-/spec-legal", "aslref-predicate-capacity-per-element"),
    ("TCMPS/int/aslref~spec/fault-vs-value/-/spec-legal", "aslref-predicate-capacity-per-element"),
])
def test_pto_specs_model_has_defects_of_its_own(key, name):
    assert defects.matching(Signature.from_key(key)).name == name


@pytest.mark.parametrize("key", [
    "TAND/int/cpu~spec/fault-vs-value/-/empty",  # a pto-isa platform: a documented difference, not the ASL's
    "TAND/int/bundle~spec/fault-vs-value/-/empty",  # ptofuzz's own two models
    "TAND/int/aslref~spec/fault-vs-value/-/valid",  # another rule
    "TAND/int/aslref~spec/int-value/op/-",  # a value
    "TNOT/int/aslref~spec/fault-vs-value/-/empty",  # a closed schema: the model faults as its prose says
    "TANDS/int/aslref~spec/fault-vs-value/-/empty",
    "TADD/int/aslref~spec/fault-vs-value/-/empty",
    "TCMP/float/aslref~spec/fault-vs-value/-/shape",  # a rule spec breaks too
    "TCMP/float/cpu~spec/fault-vs-value/-/spec-legal",
    "TCMP/float/aslref~spec/int-value/op/-",
    "TSEL/int/aslref~spec/fault-vs-value/-/spec-legal",  # the oracle gives TSEL's mask a capacity of both rules
    "TMAX/float/aslref~spec/nan-vs-number/op/-",  # the flag defect names no value
])
def test_pto_specs_model_defects_excuse_no_neighbour(key):
    assert defects.matching(Signature.from_key(key)) is None
