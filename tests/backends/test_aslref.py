"""The ``aslref`` oracle: pto-spec's own ASL model run by ASLRef on spec cases (ptofuzz/backends/aslref.py).

The rules (what is judged, fault points, parsing, carriers, which differences may be excused) are tested without
the interpreter; one run of the real model (skipped when ASLRef and pto-spec.asl are absent: set PTO_ASLREF and
PTO_SPEC_ASL, or keep the snapshot beside the checkout) checks hand-worked cases of every kind of result."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from ptofuzz.backends import aslref
from ptofuzz.backends.base import Backends
from ptofuzz.backends.choose import choose
from ptofuzz.backends.model import ModelBackend
from ptofuzz.core import dtypes
from ptofuzz.core.case import COMMIT, EXACT, UNDEFINED, Case, OutcomeKind, Tile, at_word
from ptofuzz.core.errors import UsageError
from ptofuzz.core.signature import Signature
from ptofuzz.engine import differential
from ptofuzz.generators import bundle as gb
from ptofuzz.instructions import registry

T = Tile
SNAPSHOT = Path(__file__).resolve().parents[2].parent / "shared" / "third_party" / "aslref"


def _settings() -> aslref.AslrefSettings | None:
    interp = os.environ.get(aslref.INTERPRETER_ENV) or str(SNAPSHOT / "aslref")
    model = os.environ.get(aslref.MODEL_ENV) or str(SNAPSHOT / "pto-spec" / "pto-spec.asl")
    return aslref.AslrefSettings(interp, model) if Path(interp).is_file() and Path(model).is_file() else None


def _case(op: str, dtype: str, shape: Tile, roles: tuple[str, ...] = ("dst", "src0", "src1"), **params) -> Case:
    return Case(op, "spec", dtype, tuple((r, shape) for r in roles), tuple(params.items()))


def _grid(dtype: str, shape: Tile, values: dict[tuple[int, int], int]) -> np.ndarray:
    a = np.zeros((shape.rows, shape.cols), dtype=dtypes.get(dtype).bits_dtype)
    for (r, c), v in values.items():
        a[r, c] = v
    return a


# ---- without the interpreter ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("op", "dtype", "params", "judged"), [
    ("TADD", "float32", {}, False), ("TADD", "int16", {}, True), ("TMUL", "float16", {}, False),
    ("TMAX", "float32", {}, True), ("TPARTADD", "bfloat16", {}, False), ("TPARTMAX", "float32", {}, True),
    ("TROWSUM", "float32", {}, False), ("TROWMAX", "float32", {}, True), ("TCOLEXPANDMUL", "float32", {}, False),
    ("TCOLEXPANDMAX", "float32", {}, True), ("TCVT", "int32", {"to": "int8"}, True),
    ("TCVT", "float32", {"to": "int8"}, False), ("TCVT", "int32", {"to": "float16"}, False),
])
def test_only_floating_point_arithmetic_and_conversion_are_left_unjudged(op, dtype, params, judged):
    case = _case(op, dtype, T(4, 16, 1, 8), **params)
    why = aslref.not_judged(case)
    assert (why is None) is judged
    if not judged:
        assert "placeholder" in why


def test_a_signed_element_goes_in_sign_extended_and_an_unsigned_one_as_it_is():
    assert aslref._carrier(0x8000, dtypes.get("int16")) == "Zeros{64} + 0xffffffffffff8000"
    assert aslref._carrier(0x7FFF, dtypes.get("int16")) == "Zeros{64} + 0x7fff"
    assert aslref._carrier(0x8000, dtypes.get("uint16")) == "Zeros{64} + 0x8000"
    assert aslref._carrier(0xBF800000, dtypes.get("float32")) == "Zeros{64} + 0xbf800000"


def test_printed_results_parse_into_faults_flags_and_tiles():
    text = "\n".join(["C 0", "F 2 Fault_TileLegality 5", "C 1", "OK 1", "D 0 2 3 1 2 TileStorage_Numeric",
                      "R 5 - 7", "R - - -", "C 2", "OK 0", "D 0 1 16 1 16 TileStorage_Predicate", "P 224 3", "C 3"])
    got = aslref.parse(text)
    assert got[0].fault == (2, "Fault_TileLegality", 5) and got[0].done
    assert got[1].flags == 1 and got[1].tiles[0].elements == [[5, None, 7], [None, None, None]]
    assert got[2].tiles[0].predicate and got[2].tiles[0].packed == [224, 3]
    assert not got[3].done  # its process died before it printed its end


def test_a_fault_is_the_commits_when_a_bstop_closes_an_open_block_else_the_words():
    case = _case("TAND", "int16", T(4, 16, 2, 16))
    inputs = {"src0": np.zeros((4, 16), np.uint16), "src1": np.zeros((4, 16), np.uint16)}
    words = gb.bundle_for(case, inputs).words  # BSTART, B.IOT, BSTOP
    assert aslref._fault(words, len(words) - 1, "Fault_TileLegality", 5).point == COMMIT
    assert aslref._fault(words, 1, "Fault_BundleControl", 5).point == at_word(1)
    assert aslref._fault(words, len(words) - 1, "Fault_IllegalInstruction", 4).point == at_word(len(words) - 1)
    assert aslref._fault(words, 0, "Fault_TileLegality", 5).point == at_word(0)  # no block was open


def test_without_the_interpreter_the_oracle_says_what_to_set_in_one_line(monkeypatch, tmp_path):
    monkeypatch.delenv(aslref.INTERPRETER_ENV, raising=False)
    monkeypatch.delenv(aslref.MODEL_ENV, raising=False)
    with pytest.raises(UsageError) as e:
        choose(registry.get("TADD"), ["spec", "aslref"])
    assert aslref.INTERPRETER_ENV in str(e.value) and aslref.MODEL_ENV in str(e.value) and "\n" not in str(e.value)
    monkeypatch.setenv(aslref.INTERPRETER_ENV, str(tmp_path / "nothing"))
    monkeypatch.setenv(aslref.MODEL_ENV, str(tmp_path / "nothing.asl"))
    with pytest.raises(UsageError, match=r"PTO_ASLREF=.*nothing: no aslref executable there"):
        choose(registry.get("TADD"), ["spec", "aslref"])
    with pytest.raises(UsageError, match="no bundle spelling"):
        aslref.AslrefBackend().cannot_answer(registry.get("TQUANT")) and choose(registry.get("TQUANT"), ["aslref"])


@pytest.mark.parametrize("pair", ["aslref~spec", "bundle~spec", "aslref~bundle"])
def test_no_documented_difference_excuses_two_pto_spec_models(pair):
    """TAND's documented difference (pto-spec faults on an empty region that pto-isa's pages accept) excuses a
    pto-isa platform against spec, never pto-spec's models against each other."""
    inst = registry.get("TAND")
    backends = Backends((ModelBackend("spec"), ModelBackend("cpu")))
    for other, excused in (("cpu~spec", True), (pair, False)):
        sig = Signature(op="TAND", dtype_class="int", pair=other, kind="fault-vs-value", region="-",
                        geometry="empty")
        assert (differential.known_difference(inst, sig, backends) is not None) is excused, other


# ---- the real model ---------------------------------------------------------------------------------------------

SETTINGS = _settings()
needs_model = pytest.mark.skipif(SETTINGS is None, reason="ASLRef and pto-spec.asl not found: set PTO_ASLREF and "
                                                          "PTO_SPEC_ASL (or keep the snapshot beside the checkout)")
F32_1, F32_2, F32_3 = 0x3F800000, 0x40000000, 0x40400000
SNAN = 0x7F800001
S16 = T(4, 16, 1, 3)
F32 = T(4, 8, 1, 3)

HAND = {  # name -> (case, inputs)
    "tadd-wraps": (_case("TADD", "int16", S16), {
        "src0": _grid("int16", S16, {(0, 0): 0x7FFF, (0, 1): 0xFFFF, (0, 2): 5}),
        "src1": _grid("int16", S16, {(0, 0): 1, (0, 1): 1, (0, 2): 0xFFFE})}),
    "tmax-snan": (_case("TMAX", "float32", F32), {
        "src0": _grid("float32", F32, {(0, 0): F32_1, (0, 1): 0x80000000, (0, 2): SNAN}),
        "src1": _grid("float32", F32, {(0, 0): F32_2, (0, 1): 0, (0, 2): F32_1})}),
    "tadd-float": (_case("TADD", "float32", F32), {
        "src0": _grid("float32", F32, {(0, 0): F32_1}), "src1": _grid("float32", F32, {(0, 0): F32_2})}),
    "tadd-shapes-differ": (Case("TADD", "spec", "int16", (("dst", S16), ("src0", S16), ("src1", T(4, 16, 2, 3)))), {
        "src0": np.zeros((4, 16), np.uint16), "src1": np.zeros((4, 16), np.uint16)}),
    "tand-no-rows": (_case("TAND", "int16", T(16, 16, 0, 5)), {
        "src0": np.zeros((16, 16), np.uint16), "src1": np.zeros((16, 16), np.uint16)}),
    "tsort": (Case("TSORT", "spec", "float32", (("src", T(4, 8, 1, 4)), ("dst", T(4, 8, 1, 4)),
                                                 ("idx", T(4, 8, 1, 4))), (("descending", 0),)), {
        "src": _grid("float32", T(4, 8, 1, 4), {(0, 0): F32_3, (0, 1): F32_1, (0, 2): F32_2, (0, 3): 0})}),
    "tcmps-ge": (Case("TCMPS", "spec", "uint8", (("dst", T(4, 4, 1, 2)), ("src0", T(4, 32, 1, 10)),
                                                 ("scalar", T(1, 1, 1, 1))), (("cmp", 5),)), {
        "src0": _grid("uint8", T(4, 32, 1, 10), {(0, c): c for c in range(10)}), "scalar": np.array([[5]], np.uint8)}),
    "tcvt-saturates": (Case("TCVT", "spec", "int32", (("dst", T(8, 16, 1, 3)), ("src", T(8, 16, 1, 3))),
                            (("sat", 0), ("to", "int8"))), {
        "src": _grid("int32", T(8, 16, 1, 3), {(0, 0): 300, (0, 1): (-300) & 0xFFFFFFFF, (0, 2): 5})}),
}


@pytest.fixture(scope="module")
def ran():
    assert SETTINGS is not None
    names = list(HAND)
    outs = aslref.evaluate_many([HAND[n] for n in names], SETTINGS)
    return dict(zip(names, outs))


@needs_model
def test_hand_worked_values_come_back_from_the_model(ran):
    assert list(ran["tadd-wraps"].outputs["dst"][0, :3]) == [0x8000, 0x0000, 0x0003]
    assert (ran["tadd-wraps"].classes["dst"][0, :3] == EXACT).all()
    assert (ran["tadd-wraps"].classes["dst"][1:] == UNDEFINED).all()  # outside the valid region: not defined
    tsort = ran["tsort"]
    assert list(tsort.outputs["dst"][0, :4]) == [0, F32_1, F32_2, F32_3] and list(tsort.outputs["idx"][0, :4]) == [
        3, 1, 2, 0]
    assert list(ran["tcmps-ge"].outputs["dst"][0, :2]) == [0xE0, 0x03]  # 5..9 >= 5: bits 5-7, then 8-9
    assert list(ran["tcvt-saturates"].outputs["dst"][0, :3]) == [0x7F, 0x80, 5]
    for name, out in ran.items():  # the same values as ptofuzz's spec model wherever both are exact
        case, inputs = HAND[name]
        spec = registry.get(case.op).evaluate(case, inputs)
        if out.kind is OutcomeKind.OK and spec.kind is OutcomeKind.OK:
            for role, got in out.outputs.items():
                both = (out.classes[role] == EXACT) & (spec.classes[role] == EXACT)
                assert (got[both] == spec.outputs[role][both]).all(), (name, role)


@needs_model
def test_faults_come_back_named_and_placed(ran):
    out = ran["tadd-shapes-differ"]
    assert out.kind is OutcomeKind.FAULT and out.fault.name == "Fault_TileLegality" and out.fault.trap == 5
    assert out.fault.point == COMMIT


@needs_model
def test_floating_point_addition_is_marked_not_judged_and_its_neighbour_max_is_judged(ran):
    add = ran["tadd-float"]
    assert add.kind is OutcomeKind.OK and (add.classes["dst"] == UNDEFINED).all() and add.flags is None
    assert "not judged by aslref" in add.extra["aslref"]
    mx = ran["tmax-snan"]
    assert (mx.classes["dst"][0, :3] == EXACT).all() and "aslref" not in mx.extra
    assert list(mx.outputs["dst"][0, :3]) == [F32_2, 0, F32_1]


@needs_model
def test_finding_the_model_loses_tmaxs_invalid_flag(ran):
    """Defect aslref-tmax-tmin-no-invalid: pto-spec's ExecuteTileBinary (pto-spec.asl, 0.58.3) computes TMAX
    through TileProfileBinary, which drops the
    flags TileProfileBinaryWithFlags returns: an sNaN source raises no NV in the model, where ptofuzz's spec model
    (and pto-spec's text on signalling NaNs) raise it. Pinned both ways: the same case without the sNaN agrees."""
    case, inputs = HAND["tmax-snan"]
    assert ran["tmax-snan"].flags == () and registry.get("TMAX").evaluate(case, inputs).flags == ("NV",)
    quiet = {**inputs, "src0": _grid("float32", F32, {(0, 0): F32_1, (0, 1): 0x80000000, (0, 2): F32_3})}
    assert registry.get("TMAX").evaluate(case, quiet).flags == ()


@needs_model
def test_a_source_no_command_can_make_is_not_run_and_its_neighbours_are(ran):
    """TAND with a source of no valid rows: pto-spec's model stops on an assert there (a state no command makes),
    so the oracle leaves it unanswered; a TAND source of valid rows, TADD's empty region, run."""
    assert ran["tand-no-rows"].kind is OutcomeKind.UNSUPPORTED and "no valid rows" in ran["tand-no-rows"].reason
    assert aslref.unreachable(_case("TAND", "int16", T(16, 16, 3, 0))) == ""  # no columns: run (and a defect)
    assert aslref.unreachable(_case("TADD", "int16", T(16, 16, 0, 5))) == ""  # closed schema: faults as it should
    assert aslref.unreachable(_case("TAND", "int16", T(16, 16, 3, 5))) == ""


@needs_model
def test_a_case_the_model_asserts_on_is_a_crash_and_the_next_case_still_runs(monkeypatch):
    monkeypatch.setattr(aslref, "unreachable", lambda case: "")  # the assert the oracle otherwise avoids
    crash, after = aslref.evaluate_many([HAND["tand-no-rows"], HAND["tsort"]], SETTINGS)
    assert crash.kind is OutcomeKind.CRASH and "Assertion failed" in crash.reason and "pto-spec.asl" in crash.reason
    assert after.kind is OutcomeKind.OK  # it came after, in a second process


@needs_model
@pytest.mark.slow
def test_a_campaign_with_aslref_takes_small_batches_and_labels_pto_specs_defect(tmp_path):
    """``fuzz --oracles spec,aslref`` without --batch draws batches of 8 (seed 1's first 16 cases agree: exit 0).
    Seed 1 with --batch 1 draws TAND on an empty region in its first 64 cases, which ptofuzz's spec model faults
    (as pto-spec's prose says) and pto-spec's ASL executes: labelled with the model's defect, neither new nor
    excused by TAND's documented pto-isa difference; ``replay`` shows it again."""
    import json
    import subprocess
    import sys

    assert SETTINGS is not None
    env = {**os.environ, aslref.INTERPRETER_ENV: str(SETTINGS.interpreter), aslref.MODEL_ENV: str(SETTINGS.model)}

    def fuzz(out, *args):
        cmd = [sys.executable, "-m", "ptofuzz", "fuzz", "tand", "--oracles", "spec,aslref", "--seed", "1", "--out",
               str(out), *args]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)

    small = fuzz(tmp_path / "s", "--runs", "16")
    assert small.returncode == 0 and "16 cases" in small.stdout, small.stdout + small.stderr
    assert json.loads((tmp_path / "s" / "campaign.json").read_text())["command"].endswith("--batch 8")
    found = fuzz(tmp_path / "f", "--runs", "64", "--batch", "1")
    assert found.returncode == 0, found.stdout + found.stderr
    summary = json.loads((tmp_path / "f" / "campaign.json").read_text())
    assert [(s["signature"], s["defect"], s["new"], s["known"]) for s in summary["signatures"]] == [
        ("TAND/int/aslref~spec/fault-vs-value/-/empty", "aslref-generic-bitwise-no-lb0", False, None)]
    again = subprocess.run([sys.executable, "-m", "ptofuzz", "replay", str(tmp_path / "f")], capture_output=True,
                           text=True, env=env, check=False)
    assert "1 of 1 record(s) unchanged" in again.stdout, again.stdout + again.stderr


def test_a_stacked_batch_splits_into_its_items_tile_inputs_and_batch_parameters_alike():
    tci = registry.get("TCI")
    case = Case("TCI", "spec", "int16", (("dst", T(1, 16, 1, 8)),), (("descending", 0), ("start", 0)))
    n, items = aslref._items(tci, case, {"start": np.array([3, -2, 7]).reshape(3, 1, 1)})
    assert n == 3 and [c.param("start") for c, _ in items] == [3, -2, 7]
    tadd = registry.get("TADD")
    stacked = {"src0": np.arange(2 * 4 * 16, dtype=np.uint16).reshape(2, 4, 16),
               "src1": np.zeros((2, 4, 16), np.uint16)}
    n, items = aslref._items(tadd, _case("TADD", "int16", T(4, 16, 4, 16)), stacked)
    assert n == 2 and (items[1][1]["src0"] == stacked["src0"][1]).all()
    n, items = aslref._items(tadd, _case("TADD", "int16", T(4, 16, 4, 16)), {k: v[0] for k, v in stacked.items()})
    assert n is None and len(items) == 1


def test_an_arg_reductions_outcome_has_the_index_tile_and_an_unwritten_value_tile():
    case = Case("TROWARGMAX", "spec", "int16", (("dst_idx", T(8, 1, 2, 1)), ("src", T(8, 16, 2, 4)),
                                                ("dst", T(8, 1, 2, 1))), (("idx", "int32"),))
    printed = aslref.parse("\n".join(["C 0", "OK 0", "D 0 8 1 2 1 TileStorage_Numeric", "R 3", "R 1",
                                      *["R -"] * 6, "END"]))[0]
    out = aslref.outcome(case, gb.BundleCase("argmax", "TROWARGMAX", [], {}, {}, "ok"), printed)
    assert set(out.outputs) == {"dst_idx", "dst"} and (out.classes["dst"] == UNDEFINED).all()
    assert list(out.outputs["dst_idx"][:2, 0]) == [3, 1] and (out.classes["dst_idx"][:2] == EXACT).all()
    assert (out.classes["dst_idx"][2:] == UNDEFINED).all() and out.flags == ()


@needs_model
def test_check_recomputes_spec_folders_with_the_model(cli, tmp_path):
    """`check --oracle aslref`: an integer TADD folder passes (values judged), a float one is skipped with the
    placeholder named, a TMAX folder with signaling NaNs fails on the model's missing NV (defect
    aslref-tmax-tmin-no-invalid) and the same folder without them passes; a cpu folder is not the model's."""
    asl = ("--aslref", SETTINGS.interpreter, "--spec-asl", SETTINGS.model)
    for name, args in (("int", ("tadd", "--dtype", "int16")), ("float", ("tadd", "--dtype", "float32")),
                       ("snan", ("tmax", "--dtype", "float32", "--special", "snan", "--special-rate", "0.5")),
                       ("quiet", ("tmax", "--dtype", "float32", "--special", "none"))):
        shape = "8x8" if name == "int" else "4x8"  # 128-byte tiles: a bundle's smallest
        assert cli("gen", *args, "--platform", "spec", "--shape", shape, "--out", tmp_path / name).code == 0
    res = cli("check", tmp_path / "int", tmp_path / "float", tmp_path / "quiet", "--oracle", "aslref", *asl, "--json")
    assert res.code == 0, res
    got = sorted(c["verdict"] for c in json.loads(res.out)["cases"])
    assert got == ["pass", "pass", "skip"], got
    skip = next(c for c in json.loads(res.out)["cases"] if c["verdict"] == "skip")
    assert "float32" in skip["name"] and "placeholder" in skip["message"]
    snan = cli("check", tmp_path / "snan", "--oracle", "aslref", *asl)
    assert snan.code == 1 and "manifest flags ['NV'] differ from recomputed []" in snan.out, snan
    assert cli("gen", "tadd", "--platform", "cpu", "--dtype", "int16", "--shape", "4x16", "--out",
               tmp_path / "cpu").code == 0
    other = cli("check", tmp_path / "cpu", "--oracle", "aslref", *asl)
    assert other.code == 2 and "recomputes spec case folders" in other.out, other
