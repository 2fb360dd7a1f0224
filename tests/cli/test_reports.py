"""Mismatch reports: recorded text for each error class, pto-isa ResultCmp verdicts, triage buckets, exports."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from ptofuzz.core import dtypes, records
from ptofuzz.core.case import Outcome
from ptofuzz.engine import campaign
from ptofuzz.engine.compare import Mode, compare, result_cmp
from ptofuzz.instructions import registry
from ptofuzz.oracles import ieee
from ptofuzz.oracles import tpart as tpart_oracles
from ptofuzz.report import comparisons as report

RECORDED = Path(__file__).resolve().parents[1] / "data" / "reports"
F16, F32 = dtypes.get("float16"), dtypes.get("float32")


def render(expected, actual, dt, *, valid=None, classes=None, eps=None, mode=Mode(), label="golden.bin"):
    """The report of one comparison on a fixed 100-column console without colour."""
    cmp = compare(np.array(expected, dtype=dt.bits_dtype), classes, np.array(actual, dtype=dt.bits_dtype), dt,
                  valid=valid, eps=eps, mode=mode)
    buf = io.StringIO()
    con = Console(file=buf, width=100, color_system=None, highlight=False, soft_wrap=True)
    shape = np.shape(expected)
    report.comparison_lines(con, cmp, dt, shape, valid or shape, label, reproduce="ptofuzz diff a.bin b.bin")
    return cmp, buf.getvalue()


def assert_recorded(name: str, text: str) -> None:
    path = RECORDED / f"{name}.txt"
    if os.environ.get("PTOFUZZ_RECORD"):  # re-record after an intended change, then review the diff
        path.write_text(text)
    assert text == path.read_text(), f"report {name} changed; see {path}"


def tile(rows, cols, dt, value):
    return np.full((rows, cols), value, dtype=dt.bits_dtype)


def test_one_ulp_float16_rounding():
    exp = tile(4, 8, F16, 0x3C00)  # 1.0
    act = exp.copy()
    act[1, 2] = 0x3C01  # 1 + 2**-10: one ULP, a rounding difference
    cmp, text = render(exp, act, F16)
    assert cmp.counts == {"ulp-1": 1} and cmp.max_ulp == 1
    assert_recorded("ulp1_float16", text)


def test_nan_payload_only():
    exp = tile(4, 8, F32, 0x3F800000)
    act = exp.copy()
    exp[0, 3], act[0, 3] = 0x7FC00000, 0x7FC00001
    cmp, text = render(exp, act, F32)
    assert cmp.counts == {"nan-payload": 1}
    assert_recorded("nan_payload", text)
    assert compare(exp, None, act, F32, mode=Mode(nan="any")).ok  # NaN-equal mode: no difference


def test_signed_zero_and_result_cmp_passes_it():
    exp = tile(4, 8, F32, 0x00000000)
    act = exp.copy()
    act[2, 5] = 0x80000000
    cmp, text = render(exp, act, F32, eps=1e-3)
    assert cmp.counts == {"signed-zero": 1} and cmp.result_cmp.passed
    assert "pto-isa's own test would pass" in text
    assert_recorded("signed_zero", text)
    assert compare(exp, None, act, F32, mode=Mode(zeros="unsigned")).ok


def test_write_outside_the_valid_region():
    exp = tile(8, 16, F32, 0x40000000)
    act = exp.copy()
    act[6, 3] = 0x12345678  # valid region is 4x16: row 6 should be untouched
    cmp, text = render(exp, act, F32, valid=(4, 16))
    assert cmp.counts == {"outside": 1} and cmp.first[0].region == "outside"
    assert_recorded("outside_write", text)


def test_whole_missing_row():
    exp = (np.arange(8 * 16, dtype=np.float32).reshape(8, 16) + 1).view(np.uint32)
    act = exp.copy()
    act[5] = 0  # never written
    cmp, text = render(exp, act, F32)
    assert cmp.counts == {"missing": 16}
    assert_recorded("missing_row", text)


def test_tsort_ordering_difference():
    # TSORT of one row of 8 descending: the platform swapped two groups' elements (same values, other order)
    inst = registry.get("TSORT")
    case = inst.explicit_case("spec", {"dtype": "float32", "shape": (1, 8), "descending": True})
    src = np.array([[0x40400000, 0x3F800000, 0x40000000, 0x40800000, 0x3F000000, 0x40A00000, 0, 0x41000000]],
                   dtype=np.uint32)
    out = inst.evaluate(case, {"src": np.pad(src, ((0, 0), (0, case.tile("src").cols - 8)))})
    exp = out.outputs["dst"][:1, :8]  # the valid row (the tile below it is undefined padding)
    assert exp.view(np.float32).tolist() == [[8.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.5, 0.0]]
    act = exp.copy()
    act[0, [1, 2]] = act[0, [2, 1]]
    cmp, text = render(exp, act, F32, label="golden_val.bin")
    assert cmp.counts == {"ordering": 2}
    assert_recorded("tsort_ordering", text)


def test_signed_zeros_stay_apart_in_ulp_and_tol_modes():
    exp, act = tile(1, 4, F32, 0), tile(1, 4, F32, 0)
    act[0, 0] = 0x80000000
    for mode in (Mode("ulp", ulp=1), Mode("tol")):
        assert compare(exp, None, act, F32, mode=mode).counts == {"signed-zero": 1}
        assert compare(exp, None, act, F32, mode=dataclasses.replace(mode, zeros="unsigned")).ok
    exp[0, 1], act[0, 1] = 0x00000001, 0x80000001  # the two smallest subnormals: 2 ULP apart across zero
    cmp = compare(exp, None, act, F32, mode=Mode(zeros="unsigned"))
    assert cmp.max_ulp == 2 and cmp.counts == {"ulp-2..16": 1}


def test_missing_rows_need_a_written_row_not_one_zero():
    exp = tile(4, 8, F32, 0x3F800000)
    act = exp.copy()
    act[1, :4] = 0  # the valid region is 4x4: its row 1 was never written
    assert compare(exp, None, act, F32, valid=(4, 4)).counts == {"missing": 4}
    one = exp.copy()
    one[2, 1] = 0  # a single zeroed element is just a wrong value
    assert compare(exp, None, one, F32).counts == {"ulp-large": 1}
    col = tile(8, 1, F32, 0x3F800000)
    col2 = col.copy()
    col2[3, 0] = 0
    assert compare(col, None, col2, F32).counts == {"ulp-large": 1}


# ---- pto-isa ResultCmp ------------------------------------------------------------------------------------------

def test_result_cmp_passes_inf_golden_against_finite():
    exp = tile(1, 4, F32, 0x3F800000)
    act = exp.copy()
    exp[0, 0] = 0x7F800000  # +inf golden, finite actual: pto-isa never checks an infinite golden
    act[0, 0] = 0x3F800000
    exp[0, 1] = 0xFF800000  # -inf golden against +inf
    act[0, 1] = 0x7F800000
    cmp = compare(exp, None, act, F32, eps=1e-3)
    assert not cmp.ok and cmp.result_cmp.passed and cmp.result_cmp.errors == 0
    # the other way round is caught: a finite golden against inf
    assert not result_cmp(act[:, :1], exp[:, :1], F32, 1e-3).passed


def test_result_cmp_allows_n_eps_wholly_wrong_elements():
    exp = tile(64, 64, F32, 0x3F800000)
    act = exp.copy()
    act.reshape(-1)[:4] = 0x42C80000  # 100.0: four wholly wrong elements, int(4096 * 1e-3) = 4
    _, text = render(exp, act, F32, eps=1e-3)
    assert "ResultCmp (eps 0.001): PASS: 4 elements fail its test, threshold 4" in text
    assert "pto-isa's own test would pass" in text
    act.reshape(-1)[4] = 0x42C80000
    assert not result_cmp(exp, act, F32, 1e-3).passed


def test_result_cmp_many_small_errors_and_zero_count():
    exp = tile(64, 64, F32, 0x3F800000)
    act = exp.copy()
    act[:, :32] = 0x3F800010  # 16 ULP (2e-6 relative): under eps everywhere
    cmp = compare(exp, None, act, F32, eps=1e-3)
    assert cmp.counts == {"ulp-2..16": 2048} and cmp.result_cmp.passed
    act[:] = 0  # all zero where the golden is 1.0: 4096 > 1000 zeroed elements fail it whatever the threshold
    rc = result_cmp(exp, act, F32, 1.0)
    assert rc.zero_count == 4096 and not rc.passed


def test_result_cmp_npu_half_compares_bits_as_integers():
    exp = tile(1, 1, F16, 0x3C00)
    act = tile(1, 1, F16, 0x3C0F)  # 15 ULP near 1.0: bits differ by 15, relative 15/15360 < 1e-3
    assert result_cmp(exp, act, F16, 1e-3, half_as_bits=True).passed
    assert not result_cmp(exp, act, F16, 1e-3).passed  # by value it is 1.5e-2 off


# ---- diff, check and triage through the CLI -------------------------------------------------------------------

def test_diff_cli_raw_files_and_exports(cli, tmp_path):
    exp = tile(16, 16, F32, 0x3F800000)
    act = exp.copy()
    act[3, 4] = 0x3F800001
    exp.tofile(tmp_path / "g.bin")
    act.tofile(tmp_path / "o.bin")
    res = cli("diff", tmp_path / "g.bin", tmp_path / "o.bin", "--dtype", "f32", "--shape", "16x16", "--html",
              tmp_path / "r.html", "--svg", tmp_path / "r.svg", "--junit", tmp_path / "r.xml")
    assert res.code == 1 and "1 of 256 elements differ" in res.out and "heat map" in res.out
    html = (tmp_path / "r.html").read_text()
    assert html.lstrip().startswith("<!DOCTYPE html>") and "heat map" in html and "┌" in html
    assert "<svg" in (tmp_path / "r.svg").read_text()
    _assert_junit(tmp_path / "r.xml", tests=1, failures=1)
    assert cli("diff", tmp_path / "g.bin", tmp_path / "g.bin", "--dtype", "f32", "--shape", "16x16").code == 0
    data = json.loads(cli("diff", tmp_path / "g.bin", tmp_path / "o.bin", "--dtype", "f32", "--shape", "16x16",
                          "--json").out)
    assert data[0]["classes"] == {"ulp-1": 1} and data[0]["first"][0]["row"] == 3


@pytest.mark.parametrize("args, needle", [
    (["--dtype", "f32"], "need --dtype and --shape"),
    (["--dtype", "f33", "--shape", "4x4"], "unknown dtype 'f33'"),
    (["--dtype", "f32", "--shape", "5x4"], "truncated"),
    (["--dtype", "f32", "--shape", "4x4", "--valid", "5x4"], "larger than --shape"),
    (["--dtype", "f32", "--shape", "4x4", "--mode", "fuzzy"], "--mode 'fuzzy'"),
])
def test_diff_bad_input(cli, tmp_path, args, needle):
    tile(4, 4, F32, 0).tofile(tmp_path / "g.bin")
    res = cli("diff", tmp_path / "g.bin", tmp_path / "g.bin", *args)
    assert res.code == 2 and needle in res.err and "Traceback" not in res.err, res


def _assert_junit(path: Path, tests: int, failures: int) -> None:
    """JUnit XML as CI dashboards read it: testsuites > testsuite > testcase, counts that add up, a message on
    every failure."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    cases = suite.findall("testcase")
    assert int(suite.get("tests")) == len(cases) == tests == int(root.get("tests"))
    failed = [c for c in cases if c.find("failure") is not None]
    assert int(suite.get("failures")) == len(failed) == failures
    for c in cases:
        assert c.get("name") and c.get("classname")
    for c in failed:
        assert c.find("failure").get("message") and "reproduce:" in c.find("failure").text


def test_check_exports_junit_and_html(cli, tmp_path):
    out = tmp_path / "cases"
    assert cli("gen", "tpartadd", "--platform", "a5", "-o", out).code == 0
    golden = out / "TPARTADDTest.case_float_64x64_64x8_64x64" / "golden.bin"
    data = bytearray(golden.read_bytes())
    data[4 * 70:4 * 70 + 4] = bytes(4)  # one element zeroed
    golden.write_bytes(bytes(data))
    res = cli("check", out, "--junit", tmp_path / "c.xml", "--html", tmp_path / "c.html")
    assert res.code == 1 and "heat map" in res.out
    _assert_junit(tmp_path / "c.xml", tests=12, failures=1)
    assert "TPARTADDTest.case_float_64x64_64x8_64x64" in (tmp_path / "c.html").read_text()


def test_diff_of_a_saved_fuzz_case(cli, tmp_path):
    res = cli("fuzz", "tpartargmax", "--dtype", "f32", "--shape", "16x16", "--runs", "3000", "--seed", "2",
              "--out", tmp_path)
    assert res.code == 0
    folder = next(p for p in tmp_path.iterdir() if "a5-vs-cpu_index" in p.name)
    res = cli("diff", folder)
    assert res.code == 1 and "a5 (expected) vs cpu: dst_idx" in res.out and "int-value" in res.out
    assert "region op" in res.out and "PASS  a5 (expected) vs cpu: dst:" in res.out


def _plant(name="TPARTADD"):
    """a5 with two bugs: copies of a signalling NaN come out quiet, and every op result of the last valid
    column of an integer tile is off by one."""
    inst = registry.get(name)

    def buggy(case, inputs):
        out = tpart_oracles.a5(case, inputs)
        if out.kind != "ok":
            return out
        dst, dt = out.outputs["dst"].copy(), dtypes.get(case.dtype)
        if dt.is_float:
            dst[ieee.is_snan(dst, dt)] |= np.array(dt.quiet_bit, dst.dtype)
        else:
            d = case.tile("dst").valid
            r, c = min(d[0], case.tile("src0").valid_rows, case.tile("src1").valid_rows), \
                min(d[1], case.tile("src0").valid_cols, case.tile("src1").valid_cols)
            if r and c:
                dst[..., :r, c - 1] += np.array(1, dst.dtype)
        return Outcome("ok", outputs={"dst": dst}, classes=out.classes, flags=out.flags)

    a5 = records.replace(inst.platforms["a5"], oracle=buggy)
    return records.replace(inst, platforms={**inst.platforms, "a5": a5})


def test_triage_gives_one_bucket_per_cause(cli, tmp_path, monkeypatch):
    inst = _plant()
    plan = campaign.make_plan("tpartadd", seed=5, instruction=inst)
    store, stats = campaign.run_random(plan, runs=60_000, out=tmp_path, instruction=inst)
    new = [f for f in store.findings.values() if f.new]
    assert len(new) >= 4 and sum(f.hits for f in new) > 1000  # several signatures, thousands of hits
    monkeypatch.setattr(registry, "_REGISTRY", {**registry.all_instructions(), "TPARTADD": inst})
    res = cli("triage", tmp_path, "--json", "--junit", tmp_path / "t.xml")
    assert res.code == 1
    buckets = json.loads(res.out)["buckets"]
    causes = [b for b in buckets if not b["known"]]
    assert sorted((b["key"]["culprit"], b["key"]["kind"]) for b in causes) == [("a5", "int-value"),
                                                                               ("a5", "nan-encoding")]
    assert all(len(b["signatures"]) >= 2 for b in causes)  # each cause spans several signatures
    _assert_junit(tmp_path / "t.xml", tests=len(buckets), failures=2)
    # splitting by region separates the copy regions again; merging the kind joins both causes
    split = json.loads(cli("triage", tmp_path, "--split", "region", "--json").out)["buckets"]
    assert len([b for b in split if not b["known"]]) > 2
    merged = json.loads(cli("triage", tmp_path, "--merge", "kind", "--json").out)["buckets"]
    assert len([b for b in merged if not b["known"]]) == 1
    text = cli("triage", tmp_path, "--sort", "first")
    assert "replay: ptofuzz replay" in text.out and "smallest example" in text.out


def test_triage_bad_input(cli, tmp_path):
    assert cli("triage", tmp_path / "nope").code == 2
    res = cli("triage", tmp_path, "--split", "colour")
    assert res.code == 2 and "field 'colour' is unknown" in res.err


def _cells_text(exp, act, valid):
    _, text = render(exp, act, F32, valid=valid)
    return text


def test_downsampled_heat_map_keeps_outside_writes_outside_the_frame():
    exp = tile(100, 100, F32, 0x3F800000)
    act = exp.copy()
    act[51, 10] = 0  # row 51 is outside the 50x50 valid region
    text = _cells_text(exp, act, (50, 50))
    lines = text.splitlines()
    bottom = next(k for k, line in enumerate(lines) if "└" in line)
    x_line = next(k for k, line in enumerate(lines) if "X" in line and "legend" not in line)
    assert x_line > bottom  # drawn below the frame
    assert "cells of up to" in text


def test_heat_map_of_an_empty_or_narrow_valid_region():
    exp = tile(4, 4, F32, 0x3F800000)
    act = exp.copy()
    act[1, 1] = 0x3F800001
    empty = _cells_text(exp, act, (0, 4))
    assert "the valid region is empty" in empty and "┌" not in empty and "└" not in empty
    narrow = _cells_text(tile(4, 128, F32, 0x3F800000), tile(4, 128, F32, 0x3F800001), (4, 127))
    top = next(line for line in narrow.splitlines() if "┌" in line)
    row = next(line for line in narrow.splitlines() if line.strip().startswith("0 │"))
    assert row.index("│", row.index("│") + 1) == top.index("┐")  # the right edge sits where the frame ends


def test_json_is_strict_and_exports_still_written_with_json(cli, tmp_path):
    tile(2, 2, F32, 0).tofile(tmp_path / "g.bin")
    o = tile(2, 2, F32, 0)
    o[0, 0] = 0x3F800000  # relative error against 0: infinite
    o.tofile(tmp_path / "o.bin")
    res = cli("diff", tmp_path / "g.bin", tmp_path / "o.bin", "--dtype", "f32", "--shape", "2x2", "--json",
              "--html", tmp_path / "r.html", "--svg", tmp_path / "r.svg")
    data = json.loads(res.out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    assert res.code == 1 and data[0]["max_rel"] is None and (tmp_path / "r.html").is_file()
    svg = (tmp_path / "r.svg").read_text()
    assert "reproduce:" in svg and "googleapis" not in svg and "cdnjs" not in svg  # whole lines, offline


@pytest.mark.parametrize("flag", ["--html", "--svg", "--junit"])
def test_export_paths_are_checked_first(cli, tmp_path, flag):
    tile(2, 2, F32, 0).tofile(tmp_path / "g.bin")
    for bad in ("", str(tmp_path)):
        res = cli("diff", tmp_path / "g.bin", tmp_path / "g.bin", "--dtype", "f32", "--shape", "2x2", flag, bad)
        assert res.code == 2 and flag in res.err and "Traceback" not in res.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.bin"]  # no stray temporary files


def test_markup_in_file_names_is_text(cli, tmp_path):
    d = tmp_path / "d["
    d.mkdir()
    g = d / "g[red].bin"
    tile(2, 2, F32, 0).tofile(g)
    res = cli("diff", g, g, "--dtype", "f32", "--shape", "2x2")
    assert res.code == 0 and "g[red].bin" in res.out


def test_triage_of_a_clean_run_minimized_copies_and_overlaps(cli, tmp_path):
    clean = tmp_path / "clean"
    assert cli("fuzz", "tmrgsort", "--runs", "200", "--seed", "3", "--out", clean).code == 0
    res = cli("triage", clean, "--junit", tmp_path / "j.xml")
    assert res.code == 0 and "0 disagreement signature(s)" in res.out
    _assert_junit(tmp_path / "j.xml", tests=0, failures=0)
    run = tmp_path / "run"
    assert cli("fuzz", "tpartargmax", "--runs", "3000", "--seed", "2", "--out", run).code == 0
    once = json.loads(cli("triage", run, "--json").out)
    folder = next(p for p in run.iterdir() if "a5-vs-cpu_index" in p.name)
    assert cli("minimize", folder).code == 0
    twice = json.loads(cli("triage", run, run, "--json").out)  # and the .min copy
    assert [b["hits"] for b in twice["buckets"]] == [b["hits"] for b in once["buckets"]]
    bad = json.loads((folder / "record.json").read_text())
    bad["finding"]["hits"] = "many"
    (folder / "record.json").write_text(json.dumps(bad))
    res = cli("triage", run, "--json")
    assert res.code == 2 and len(json.loads(res.out)["skipped"]) == 1  # reported, and bad input


def test_big_diff_report_renders_quickly(tmp_path):
    rng = np.random.default_rng(0)
    exp = rng.integers(0, 1 << 32, (1024, 1024), dtype=np.uint64).astype(np.uint32)
    act = exp.copy()
    act[rng.integers(0, 1024, 5000), rng.integers(0, 1024, 5000)] ^= 1
    t0 = time.perf_counter()
    cmp = compare(exp, None, act, F32, valid=(1000, 1000), eps=1e-3)
    con = Console(file=io.StringIO(), width=120, color_system=None)
    report.comparison_lines(con, cmp, F32, (1024, 1024), (1000, 1000), "big")
    assert cmp.mismatches > 4000
    assert time.perf_counter() - t0 < 10  # generous here; benchmarks/bench_report.py measures the 2 s target


def test_diff_lists_the_valid_regions_differences_before_writes_outside_it():
    """Writes outside the valid region came first in flat-index order and pushed the real errors into "... and
    N more"; the valid region's differences are listed first now."""
    from ptofuzz.core.dtypes import get
    from ptofuzz.engine.compare import MAX_REPORTED, compare

    dt = get("float32")
    expected = np.zeros((8, 64), np.uint32)
    actual = expected.copy()
    actual[0:4, 8:] = 0x3F800000  # writes outside a 4x8 valid region, in the first rows
    actual[3, 7] = 0x40000000  # the one error inside, late in flat order
    cmp = compare(expected, None, actual, dt, valid=(4, 8))
    assert cmp.mismatches == 4 * 56 + 1 > MAX_REPORTED
    assert (cmp.first[0].row, cmp.first[0].col, cmp.first[0].region) == (3, 7, "valid")
    assert all(e.region == "outside" for e in cmp.first[1:])
    assert [e.index for e in cmp.first[1:]] == sorted(e.index for e in cmp.first[1:])  # then in order


def test_a_nan_against_a_number_has_no_size_and_says_so(capsys):
    from ptofuzz.core.dtypes import get
    from ptofuzz.engine.compare import compare
    from ptofuzz.engine.verdicts import DiffResult
    from ptofuzz.report import comparisons

    dt = get("float32")
    expected = np.array([[0x3F800000, 0x7FC00000]], np.uint32)
    actual = np.array([[0x3F800000, 0x3F800000]], np.uint32)
    cmp = compare(expected, None, actual, dt)
    assert cmp.mismatches == 1 and cmp.max_abs is None and cmp.max_rel is None
    comparisons.diffs([DiffResult("a vs b", "float32", (1, 2), (1, 2), cmp, "ptofuzz diff a b")])
    out = capsys.readouterr().out
    assert "1 of 2 elements differ (50.00%); no two finite values differ" in out and "max abs 0" not in out
    finite = compare(np.array([[0x3F800000]], np.uint32), None, np.array([[0x40000000]], np.uint32), dt)
    assert (finite.max_abs, finite.max_rel) == (1.0, 1.0)
