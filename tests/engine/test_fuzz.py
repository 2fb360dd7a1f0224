"""The differential fuzzing engine: a planted bug is found, saved, replayed and minimized; results do not depend
on --jobs; documented platform differences show up once each; comparisons classify mismatches correctly."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ptofuzz.backends import choose
from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, NAN, UNDEFINED, Case, Outcome, Tile
from ptofuzz.core.records import replace
from ptofuzz.engine import campaign, differential
from ptofuzz.engine.minimize import minimize_path
from ptofuzz.engine.replay import replay
from ptofuzz.instructions import registry
from ptofuzz.io import records
from ptofuzz.oracles import ieee
from ptofuzz.oracles import tpart as tpart_oracles

F32 = dtypes.get("float32")


def quieting_a5(case, inputs):
    """A wrong a5 model: copies of a signalling NaN come out quiet (the quiet bit set)."""
    out = tpart_oracles.a5(case, inputs)
    if out.kind != "ok" or not F32.is_float or case.dtype != "float32":
        return out
    dst = out.outputs["dst"].copy()
    snan = ieee.is_snan(dst, F32)
    dst[snan] |= np.uint32(F32.quiet_bit)
    return Outcome("ok", outputs={"dst": dst}, classes=out.classes, flags=out.flags)


def buggy(name="TPARTADD"):
    inst = registry.get(name)
    a5 = replace(inst.platforms["a5"], oracle=quieting_a5)
    return replace(inst, platforms={**inst.platforms, "a5": a5})


def test_planted_bug_is_found_saved_replayed_and_minimized(tmp_path):
    inst = buggy()
    plan = campaign.make_plan("tpartadd", ["cpu", "a5"], seed=7, dtype="float32", instruction=inst)
    store, stats = campaign.run_random(plan, runs=20_000, out=tmp_path, instruction=inst)
    found = [f for f in store.findings.values() if f.new]
    assert found, f"planted bug not found in {stats.cases} cases"
    f = found[0]
    assert f.signature.pair == "a5~cpu" and f.signature.kind == "nan-encoding"
    assert f.signature.region in ("src0-only", "src1-only")  # sNaNs are only copied there; the op quiets them
    assert f.path is not None and f.path.is_file()
    saved = json.loads(f.path.read_text())
    assert saved["finding"]["signature"] == f.signature.key and saved["finding"]["hits"] == f.hits > 0
    assert saved["replay"] == f"ptofuzz replay {f.path.parent.name}"  # relative to the campaign folder

    # replayed with the same (buggy) model: unchanged; with the real a5 model the disagreement is gone
    (same,) = replay([f.path.parent], {"TPARTADD": inst})
    assert same.verdict == "same" and f.signature.key in same.signatures
    (fixed,) = replay([f.path.parent])
    assert fixed.verdict == "changed" and any("no longer shows" in c for c in fixed.changes)

    # the --runs command in the record reproduces the first hit
    first_runs = f.case_number
    again, _ = campaign.run_random(plan, runs=first_runs, instruction=inst)
    assert f.signature.key in again.findings

    small = minimize_path(f.path.parent, instruction=inst)
    assert small.path == f.path.parent.with_name(f.path.parent.name + ".min")
    assert all(t.rows <= 4 and t.cols <= 4 for _, t in small.record.case.tiles), small.after
    assert small.nonzero_after <= 2
    (still,) = replay([small.path], {"TPARTADD": inst})
    assert still.verdict == "same" and f.signature.key in still.signatures


def _summary(store, stats):
    data = campaign.summary_json(store, stats)
    return data["cases"], [(s["signature"], s["hits"], s["first_seen"]) for s in data["signatures"]]


@pytest.mark.slow
@pytest.mark.parametrize("op,oracles,fixed", [
    ("tpartmax", None, {}), ("tsort32", None, {}), ("tsort32", None, {"dtype": "float16", "shape": (2, 70)}),
    ("tmrgsort", None, {}), ("tsort", ["spec", "bundle"], {})])
def test_jobs_do_not_change_the_results(op, oracles, fixed):
    """Batches of many cases (the sorts too): the same findings, hits and first examples on 1 or 2 jobs."""
    plan = campaign.make_plan(op, oracles, seed=11, special="sort" if op != "tpartmax" else None, **fixed)
    one = _summary(*campaign.run_random(plan, runs=9000, jobs=1))
    two = _summary(*campaign.run_random(plan, runs=9000, jobs=2))
    assert one == two and one[0] == 9000
    assert one[1] or op in ("tmrgsort", "tsort", "tsort32")  # (their models agree on these seeds: nothing to find)
    assert campaign.batch_geometry(registry.get(op), plan, 0)[1] > 1  # batched


def test_cli_jobs_json_identical(cli, tmp_path):
    outs = []
    for jobs in (1, 2):
        res = cli("fuzz", "tpartmin", "--runs", "4000", "--seed", "5", "--jobs", jobs, "--json")
        assert res.code == 0, res
        data = json.loads(res.out)
        outs.append((data["cases"], data["signatures"]))
    assert outs[0] == outs[1]


def test_documented_differences_are_single_known_signatures(cli, tmp_path):
    res = cli("fuzz", "tpartmax", "--runs", "30000", "--seed", "2", "--json")
    assert res.code == 0, res  # nothing new: every difference is a documented one
    faults = [s for s in json.loads(res.out)["signatures"] if "cpu~spec/fault-vs-value" in s["signature"]]
    assert faults and all(s["known"] for s in faults)
    res = cli("fuzz", "tpartargmax", "--runs", "30000", "--seed", "2", "--out", tmp_path, "--json")
    assert res.code == 0, res
    sigs = {s["signature"]: s for s in json.loads(res.out)["signatures"]}
    tie_rule = sigs["TPARTARGMAX/float/a5~cpu/index/op/-"]
    assert tie_rule["hits"] > 100 and "tie" in tie_rule["known"]  # many hits, one signature, one folder
    folders = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert len(folders) == len(sigs)
    # a second campaign into the same --out adds hits, saves nothing new
    again = json.loads(cli("fuzz", "tpartargmax", "--runs", "2000", "--seed", "3", "--out", tmp_path,
                           "--json").out)
    assert again["new"] == 0
    rec = json.loads((tmp_path / differential.Signature.from_key(tie_rule["signature"]).slug
                      / "record.json").read_text())
    assert rec["finding"]["hits"] > tie_rule["hits"]


def test_new_signature_exits_1_and_prints_replay(cli, tmp_path, monkeypatch):
    inst = buggy()
    monkeypatch.setattr(registry, "_REGISTRY", {**registry.all_instructions(), "TPARTADD": inst})
    res = cli("fuzz", "tpartadd", "--oracles", "cpu,a5", "--dtype", "f32", "--runs", "20000", "--seed", "7",
              "--out", tmp_path)
    assert res.code == 1, res
    assert "NEW" in res.out and f"ptofuzz replay {tmp_path}" in res.out


def test_a_spec_only_instruction_fuzzes_its_model_against_its_bundle_form_by_default(cli, tmp_path):
    import json

    res = cli("fuzz", "tsort", "--runs", "3000", "--seed", "2", "--out", tmp_path)
    assert res.code == 0, res
    assert "TSORT: spec, bundle" in res.out
    assert json.loads((tmp_path / "campaign.json").read_text())["oracles"] == ["spec", "bundle"]


@pytest.mark.parametrize("args, needle", [
    (["--oracles", "spec,a9", "--runs", "5"], "unknown platform 'a9'"),
    (["--oracles", "spec,a6", "--runs", "5"], "TPARTADD has no a6 model"),
    (["--oracles", "cpu", "--runs", "5"], "needs two oracles"),
    (["--oracles", "cpu,cpu", "--runs", "5"], "names an oracle twice"),
    ([], "--time SECONDS or --runs N"),
    (["--runs", "0"], "--runs 0"),
    (["--runs", "5", "--engine", "afl"], "--engine 'afl'"),
    (["--engine", "afl"], "--engine 'afl'"),  # the bad value is named first, before the missing --runs
    (["--runs", "5", "--dtype", "int64", "--oracles", "spec,cpu"], "no chosen oracle"),
    (["--runs", "5", "--shape", "4by4"], "--shape"),
])
def test_bad_fuzz_requests_are_one_line_errors(cli, args, needle):
    res = cli("fuzz", "tpartadd", *args)
    assert res.code == 2 and needle in res.err and len(res.err.strip().splitlines()) == 1, res


def test_one_oracle_is_no_campaign(cli):  # TSORT's one platform alone (by default bundle joins it)
    res = cli("fuzz", "tsort", "--oracles", "spec", "--runs", "5")
    assert res.code == 2 and "two oracles" in res.err


# ---- comparisons ------------------------------------------------------------------------------------------------

def _ok(dst, cls=None):
    dst = np.array(dst, dtype=np.uint32)
    return Outcome("ok", outputs={"dst": dst}, classes={"dst": np.zeros(dst.shape, np.uint8) if cls is None
                                                       else np.array(cls, np.uint8)})


CASE = Case("TPARTADD", "cpu", "float32", (("dst", Tile(1, 4, 1, 4)), ("src0", Tile(1, 4, 1, 4)),
                                           ("src1", Tile(1, 4, 1, 2))))


@pytest.mark.parametrize("x, y, kind, region", [
    (0x7FC00000, 0x7FC00001, "nan-encoding", "op"),
    (0x7FC00000, 0x3F800000, "nan-vs-number", "op"),
    (0x00000000, 0x80000000, "signed-zero", "op"),
    (0x7F800000, 0x7F7FFFFF, "inf-vs-finite", "op"),
    (0x3F800000, 0x3F800001, "ulp-1", "op"),
    (0x3F800000, 0x3F800010, "ulp-2..16", "op"),
    (0x3F800000, 0x40000000, "ulp-large", "op"),
])
def test_element_mismatch_classes(x, y, kind, region):
    inst = registry.get("TPARTADD")
    hits = differential.compare_batch(inst, CASE, {"cpu": _ok([[x, 0, 0, 0]]), "spec": _ok([[y, 0, 0, 0]])}, None)
    assert [(s.kind, s.region, s.pair, s.geometry) for s in hits.counts] == [(kind, region, "cpu~spec", "-")]


def test_regions_name_where_a_mismatch_lies():
    inst = registry.get("TPARTADD")
    legal = Case("TPARTADD", "cpu", "float32", (("dst", Tile(1, 32, 1, 32)), ("src0", Tile(1, 32, 1, 32)),
                                                ("src1", Tile(1, 32, 1, 2))))
    a, b = np.zeros((1, 32), np.uint32), np.zeros((1, 32), np.uint32)
    b[0, 3] = 1  # column 3: only src0 is valid there
    (sig,) = differential.compare_batch(inst, legal, {"a5": _ok(a), "cpu": _ok(b)}, None).counts
    assert (sig.region, sig.geometry) == ("src0-only", "src0=eq,src1=cols")
    b[0, 3], b[0, 1] = 0, 1  # column 1: both valid, the operation's region, whatever the geometry
    (sig,) = differential.compare_batch(inst, legal, {"a5": _ok(a), "cpu": _ok(b)}, None).counts
    assert (sig.region, sig.geometry) == ("op", "-")
    (sig,) = differential.compare_batch(inst, CASE, {"a5": _ok([[0, 0, 0, 1]]), "cpu": _ok([[0, 0, 0, 2]])},
                                        None).counts
    assert (sig.region, sig.geometry) == ("src0-only", "nodesc")  # a 1x4 float32 tile is no legal descriptor


def test_loose_classes_and_undefined_elements_are_not_mismatches():
    inst = registry.get("TPARTADD")
    a = _ok([[0x7FC00000, 0x80000000, 5, 0]], [[NAN, 2, UNDEFINED, EXACT]])
    b = _ok([[0xFFC12345, 0x00000000, 6, 0]])
    assert not differential.compare_batch(inst, CASE, {"a5": a, "spec": b}, None).counts


def test_unsupported_is_never_a_mismatch_but_fault_against_value_is():
    inst = registry.get("TPARTADD")
    un = Outcome.unsupported("no")
    fault = Outcome.faulted("Fault_TileLegality", 5, "x")
    assert not differential.compare_batch(inst, CASE, {"a5": un, "spec": fault}, None).counts
    (sig,) = differential.compare_batch(inst, CASE, {"cpu": _ok([[1, 2, 3, 4]]), "spec": fault}, None).counts
    assert sig.kind == "fault-vs-value" and sig.region == "-"


def test_batched_comparison_counts_items_and_first_hit():
    inst = registry.get("TPARTADD")
    x = np.zeros((5, 1, 4), np.uint32)
    y = x.copy()
    y[2, 0, 0] = 1
    y[4, 0, 0] = 1
    hits = differential.compare_batch(inst, CASE, {"cpu": _ok(x), "spec": _ok(y)}, 5)
    (sig,) = hits.counts
    assert hits.counts[sig] == 2 and hits.first[sig] == 2 and sig.kind == "ulp-1"


def test_signature_folders_never_collide():
    keys = ["TSORT32/float/a5~cpu/int-value/-/16-bit,cols>32", "TSORT32/float/a5~cpu/int-value/-/16-bit,cols<=32",
            "TPARTADD/float/a5~spec/fault-vs-value/-/src0=eq,src1=in",
            "TPARTADD/float/a5~spec/fault-vs-value/-/src0=eq+src1=in"]
    slugs = [differential.Signature.from_key(k).slug for k in keys]
    assert len(set(slugs)) == len(slugs)
    assert all(differential.Signature.from_key(k).key == k for k in keys)


def test_record_round_trip(tmp_path):
    inst = registry.get("TPARTADD")
    inputs = {"src0": np.arange(4, dtype=np.uint32).reshape(1, 4), "src1": np.full((1, 4), 0x7F800001, np.uint32)}
    outcomes, sigs = differential.signatures_of(inst, CASE, inputs, choose.choose(inst, ("cpu", "spec")))
    rec = records.Record(CASE, inputs, ("cpu", "spec"), {o: records.describe(v) for o, v in outcomes.items()},
                         tuple(s.key for s in sigs))
    path = records.write(rec, inst, tmp_path / "r", outcomes=outcomes)
    back = records.read(path.parent)
    assert back.case == CASE and back.oracles == ("cpu", "spec") and back.expect == rec.expect
    assert all(np.array_equal(back.inputs[r], inputs[r]) for r in inputs)
    assert (tmp_path / "r" / "cpu.dst.bin").read_bytes() == outcomes["cpu"].outputs["dst"].tobytes()
    (res,) = replay([tmp_path / "r"])
    assert res.verdict == "same"


def test_a_planted_tsort32_fault_is_not_hidden_by_the_overlap_defect_s_rule():
    """The defect cpusim-tsort32-16bit-overlap labels the simulator's 16-bit rows of more than one block; a fault
    of a model on the same geometry is new."""
    inst = registry.get("TSORT32")
    cpu = inst.platforms["cpu"]

    def wrong_cpu(case, inputs):  # the cpu model faults on every 16-bit case instead of sorting
        if case.dtype == "float16":
            return Outcome.faulted("Fault_Planted", 5, "planted")
        return cpu.oracle(case, inputs)

    bug = replace(inst, platforms={**inst.platforms, "cpu": replace(cpu, oracle=wrong_cpu)})
    # batches of one geometry: 16-bit rows longer than one block, where the defect's rule could hide the fault
    plan = campaign.make_plan("tsort32", seed=1, instruction=bug, dtype="float16", shape=(3, 70))
    store, _ = campaign.run_random(plan, runs=3000, instruction=bug)
    faults = [f for f in store.findings.values() if f.signature.kind == "fault-vs-value"]
    assert faults and all(f.new for f in faults)
    assert any("cols>32" in f.signature.geometry for f in faults)


def test_an_oracle_exception_is_reported_with_a_reproduce_command_and_output_is_finished(tmp_path, monkeypatch):
    inst = registry.get("TPARTADD")
    def crashing(case, inputs):  # the first batch of float16 cases crashes the cpu model
        if case.dtype == "float16" and inputs["src0"].ndim == 3:
            raise ZeroDivisionError("planted")
        return tpart_oracles.cpu(case, inputs)

    bug = replace(inst, platforms={**inst.platforms, "cpu": replace(inst.platforms["cpu"],
                                                                                         oracle=crashing)})
    plan = campaign.make_plan("tpartadd", seed=4, instruction=bug)
    with pytest.raises(campaign.OracleCrash, match=r"batch \d+ .* raised ZeroDivisionError: planted; reproduce: "
                                                   r"ptofuzz fuzz tpartadd .* --runs \d+") as e:
        campaign.run_random(plan, runs=100_000, out=tmp_path, instruction=bug)
    runs = int(str(e.value).rsplit("--runs ", 1)[1])
    with pytest.raises(campaign.OracleCrash):  # the printed --runs reaches the failing batch again
        campaign.run_random(plan, runs=runs, instruction=bug)
    summary = json.loads((tmp_path / "campaign.json").read_text())  # written although the campaign died
    assert summary["cases"] > 0 and all(s["hits"] > 0 for s in summary["signatures"])


@pytest.mark.slow
@pytest.mark.skipif(__import__("sys").version_info < (3, 11), reason="atheris is a dependency on Python >= 3.11")
def test_the_atheris_engine_reports_a_crash(cli, tmp_path, monkeypatch):
    inject = tmp_path / "inject"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(
        "import os\n"
        "if os.environ.get('PTOFUZZ_TEST_CRASH'):\n"
        "    import ptofuzz.engine.differential as d\n"
        "    n = [0]\n"
        "    orig = d.compare_batch\n"
        "    def compare_batch(*a, **k):\n"
        "        n[0] += 1\n"
        "        if n[0] == 50:\n"
        "            raise RuntimeError('planted oracle crash')\n"
        "        return orig(*a, **k)\n"
        "    d.compare_batch = compare_batch\n")
    monkeypatch.setenv("PYTHONPATH", str(inject))
    monkeypatch.setenv("PTOFUZZ_TEST_CRASH", "1")
    res = cli("fuzz", "tpartadd", "--engine", "atheris", "--runs", "500", "--out", tmp_path / "out")
    assert res.code == 3 and "planted oracle crash" in res.err and "--rerun" in res.err, res
    crash = next((tmp_path / "out").glob("crash-*"))
    monkeypatch.delenv("PTOFUZZ_TEST_CRASH")
    assert cli("fuzz", "tpartadd", "--engine", "atheris", "--rerun", crash).code == 0  # the real oracles cope


def test_atheris_instruments_the_oracles_and_nothing_else():
    """Coverage guidance comes from the oracles: every other ptofuzz module, including the generators that
    live in a top-level folder (invisible under ptofuzz/ in an editable install), is excluded by name."""
    from ptofuzz.engine import atheris_engine

    excluded = set(atheris_engine._uninstrumented())
    assert {"ptofuzz.generators", "ptofuzz.generators.values", "ptofuzz.generators.tpart", "ptofuzz.engine.campaign",
            "ptofuzz.instructions.tpart", "ptofuzz.engine.differential", "ptofuzz.backends.bundle"} <= excluded
    assert not {n for n in excluded if n == "ptofuzz.oracles" or n.startswith("ptofuzz.oracles.")}


@pytest.mark.slow
def test_a_terminated_campaign_writes_its_summary(tmp_path):
    """SIGTERM unwinds like Ctrl-C: the campaign's hit counts and campaign.json are written, then exit 143
    (a TERM used to end the process where it stood, with no summary)."""
    import json
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "o"
    proc = subprocess.Popen([sys.executable, "-m", "ptofuzz", "fuzz", "tpartmax", "--runs", "1000000000", "--seed",
                             "0", "--out", str(out)], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 60
    while not any(out.glob("*/record.json")) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143 and err.strip() == "ptofuzz: error: terminated", err
    summary = json.loads((out / "campaign.json").read_text())
    assert summary["cases"] > 0 and summary["signatures"]
    assert all(json.loads((out / s["path"] / "record.json").read_text())["finding"]["hits"] == s["hits"]
               for s in summary["signatures"])


def test_rerun_refuses_a_file_larger_than_any_fuzzer_input_unread(cli, tmp_path):
    pytest.importorskip("atheris")
    big = tmp_path / "big.bin"
    with big.open("wb") as f:
        f.truncate(3 << 30)  # sparse: reading it whole would take 3 GiB of memory
    r = cli("fuzz", "tpartadd", "--engine", "atheris", "--rerun", big)
    assert r.code == 2 and r.err.count("\n") == 1, r
    assert "is larger than 8,192 bytes; a fuzzer input of this engine is at most 8,192 bytes" in r.err


@pytest.mark.slow
def test_workers_die_with_a_killed_campaign(tmp_path):
    """fuzz --jobs 2 killed with SIGKILL (no clean-up of its own can run): its workers go with it, instead of
    staying blocked forever on their queue, holding the caller's output open."""
    import os
    import signal
    import subprocess
    import time
    from pathlib import Path

    proc = _jobs_campaign(tmp_path / "o", stderr=subprocess.DEVNULL)
    try:
        workers = _workers(proc.pid)
        time.sleep(1.0)  # both busy with batches
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        def running(pid: int) -> bool:  # a zombie is dead (handed to whichever ancestor reaps orphans here)
            try:
                return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
            except (OSError, IndexError):
                return False

        deadline = time.monotonic() + 10
        while any(running(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [w for w in workers if running(w)]
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_record_folder_half_written_by_a_killed_campaign_is_swept_by_the_next(cli, tmp_path):
    """SIGKILL while a finding is being saved leaves its hidden staging folder (named by the dead worker's pid);
    the next campaign into that --out removes it, and leaves one of a live process alone."""
    import os

    out = tmp_path / "run"
    out.mkdir()
    dead = 2 ** 22 + 4321  # above any pid this system hands out
    (out / f".TPARTMAX_float_x_1234abcd.tmp-{dead}").mkdir()
    (out / f".TPARTMAX_float_x_1234abcd.tmp-{dead}" / "src0.bin").write_bytes(b"half")
    live = out / f".TPARTMAX_float_y_1234abcd.tmp-{os.getpid()}"
    live.mkdir()
    r = cli("fuzz", "tpartmax", "--runs", "100", "--out", out)
    assert r.code in (0, 1), r
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == [live.name]


@pytest.mark.slow
def test_ctrl_c_to_the_process_group_of_a_jobs_campaign_is_one_line(tmp_path):
    """A terminal's Ctrl-C reaches every process of the group: an idle worker printed a KeyboardInterrupt
    traceback beside the campaign's own one line. Workers leave the interrupt to their parent."""
    import os
    import signal
    import subprocess
    import time

    for attempt in range(3):
        proc = _jobs_campaign(tmp_path / f"o{attempt}", stderr=subprocess.PIPE)
        _workers(proc.pid)
        time.sleep(0.5 + attempt)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130 and err == "ptofuzz: error: interrupted\n", err


def _jobs_campaign(out, *, stderr):  # type: ignore[no-untyped-def]
    """A ``fuzz --jobs 2`` campaign without end, in a session of its own."""
    import subprocess
    import sys

    return subprocess.Popen([sys.executable, "-m", "ptofuzz", "fuzz", "tpartmax", "--runs", "1000000000", "--jobs",
                             "2", "--out", str(out)], cwd=out.parent, stdout=subprocess.DEVNULL, stderr=stderr,
                            text=True, start_new_session=True)


def _workers(pid: int) -> list[int]:
    """The campaign's two workers, once both are there (at most a minute)."""
    import time
    from pathlib import Path

    def children(thread: Path) -> list[int]:
        try:
            return [int(w) for w in (thread / "children").read_text().split()]
        except OSError:  # the thread ended between the listing and the read
            return []

    deadline = time.monotonic() + 60
    workers: list[int] = []
    while len(workers) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
        workers = [w for t in Path(f"/proc/{pid}/task").iterdir() for w in children(t)]
    assert len(workers) >= 2
    return workers


def odd_start_a5(case, inputs):
    """A wrong a5 TCI model: the first element's low bit flipped whenever the start is odd (each batch item's
    own start)."""
    from ptofuzz.core.case import param_values
    from ptofuzz.oracles import generation

    out = generation.tci_documented(case, inputs)
    dst = out.outputs["dst"].copy()
    odd = (param_values(case, inputs, "start")[..., 0, 0] & 1) == 1
    dst[..., 0, 0] ^= np.where(odd, 1, 0).astype(dst.dtype)
    return Outcome("ok", outputs={"dst": dst}, classes=out.classes, flags=out.flags)


def test_a_finding_in_a_batch_of_starts_is_saved_as_its_item_s_own_case(tmp_path):
    """TCI batches vary the start per item: a disagreement that only odd starts show is saved with the odd start
    of the item that showed it, as a plain case (no per-item input), and replays on its own."""
    inst = registry.get("TCI")
    a5 = replace(inst.platforms["a5"], oracle=odd_start_a5)
    inst = replace(inst, platforms={**inst.platforms, "a5": a5})
    plan = campaign.make_plan("tci", ["cpu", "a5"], seed=3, dtype="int32", instruction=inst)
    store, stats = campaign.run_random(plan, runs=2_000, out=tmp_path, instruction=inst)
    assert stats.batches < stats.cases / 4  # batches, not one case each
    (f,) = [f for f in store.findings.values() if f.new]
    rec = records.read(f.path)
    assert rec.case.param("start") % 2 == 1 and set(rec.inputs) == {"begin_index", "reverse"}
    assert int(rec.inputs["begin_index"].reshape(-1)[0]) == rec.case.param("start")
    (same,) = replay([f.path.parent], {"TCI": inst})
    assert same.verdict == "same" and f.signature.key in same.signatures
    (fixed,) = replay([f.path.parent])
    assert fixed.verdict == "changed"
    again, _ = campaign.run_random(plan, runs=f.case_number, instruction=inst)
    assert f.signature.key in again.findings


@pytest.mark.parametrize("op", ["TADD", "TAND", "TEXPANDS", "TSORT"])
def test_the_illegal_share_decides_which_spec_cases_break_a_rule(op):
    """--illegal-share 1: every spec case faults in the spec model; 0: none does; the default draws the same cases
    as a plan that does not name it, and only a share other than the default is in the reproduce command."""
    inst = registry.get(op)
    oracles = ("spec", "bundle")

    def faults(share):
        plan = campaign.make_plan(op, oracles, seed=3, batch=2, illegal_share=share)
        got = []
        for k in range(24):
            case, _ = campaign.batch_geometry(inst, plan, k)
            got.append(inst.evaluate(case, campaign.batch_inputs(inst, plan, k, case, 2, 2)).kind == "fault")
        return got, plan

    every, plan1 = faults(1.0)
    none, plan0 = faults(0.0)
    assert all(every) and not any(none)
    default = campaign.make_plan(op, oracles, seed=3, batch=2)
    named = campaign.make_plan(op, oracles, seed=3, batch=2, illegal_share=campaign.ILLEGAL_SHARE)
    assert [campaign.batch_geometry(inst, default, k)[0] for k in range(24)] == \
        [campaign.batch_geometry(inst, named, k)[0] for k in range(24)]
    assert "--illegal-share" not in default.command() and "--illegal-share 1.0" in plan1.command()
    assert "--illegal-share 0.0" in plan0.command()


def test_a_dtype_list_draws_each_listed_type_and_no_other():
    inst = registry.get("TADD")
    plan = campaign.make_plan("TADD", ("spec", "bundle"), seed=5, batch=8, dtype="int8, int16,uint32,int8")
    drawn = [campaign.batch_geometry(inst, plan, k)[0].dtype for k in range(60)]
    assert set(drawn) == {"int8", "int16", "uint32"}
    assert "--dtype int8,int16,uint32" in plan.command()
    one = campaign.make_plan("TADD", ("spec", "bundle"), seed=5, batch=8, dtype="int16")
    assert {campaign.batch_geometry(inst, one, k)[0].dtype for k in range(20)} == {"int16"}
    assert "--dtype int16 " in one.command() + " "


def test_a_dtype_list_names_the_one_no_oracle_runs(cli):
    res = cli("fuzz", "tadd", "--oracles", "spec,bundle", "--runs", "8", "--dtype", "int8,float4_e2m1")
    assert res.code == 2 and "float4_e2m1" in res.err and len(res.err.strip().splitlines()) == 1, res


def test_a_campaign_counts_the_cases_each_oracle_could_not_run(capsys):
    """campaign.json's ``unsupported``: per oracle, the cases it answered 'unsupported', recounted batch by batch;
    the summary prints a line for a real backend (aslref here), none for a model declining another platform's
    cases by design."""
    from ptofuzz.report import campaigns

    inst = registry.get("TADD")
    plan = campaign.make_plan("TADD", None, seed=3, batch=64)
    store, stats = campaign.run_random(plan, runs=2000)
    data = campaign.summary_json(store, stats)
    want: dict[str, int] = {}
    k = done = 0
    while done < 2000:
        case, size = campaign.batch_geometry(inst, plan, k)
        take = min(size, 2000 - done)
        outs = plan.backends.evaluate(inst, case, campaign.batch_inputs(inst, plan, k, case, size, take))
        for name, o in outs.items():
            if o.kind == "unsupported":
                want[name] = want.get(name, 0) + take
        k, done = k + 1, done + take
    assert data["unsupported"] == dict(sorted(want.items())) and want  # some platform declines some cases
    campaigns.campaign({**data, "unsupported": {"aslref": 5, **want}})
    out = capsys.readouterr().out
    assert "5 of 2,000 cases aslref cannot run" in out and not any(f"cases {n} cannot" in out for n in want)
