"""Damaged and hostile inputs (issue 14's list): one line, exit 2 (130 on Ctrl-C), nothing written, no
traceback, nothing read outside a record's folder, nothing echoed raw to the terminal."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ptofuzz import api

ROOT = Path(__file__).resolve().parents[2]
EDGE = ROOT / "corpora" / "tpartmax" / "edge" / "f32-specials-tpartmax.json"


def _one_line(res, code: int = 2) -> str:
    assert res.code == code, (res.code, res.out, res.err)
    lines = res.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ptofuzz: error: "), res.err
    assert "Traceback" not in res.err + res.out
    return lines[0]


def test_an_interrupt_exits_130(cli, monkeypatch, tmp_path):
    from ptofuzz.engine import generate

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(generate, "generate", interrupted)
    assert "interrupted" in _one_line(cli("gen", "tpartadd", "--platform", "a5", "--out", tmp_path), 130)
    assert not any(tmp_path.iterdir())


def test_a_missing_corpus_writes_nothing_into_out(cli, tmp_path):
    out = tmp_path / "o"
    assert "nope" in _one_line(cli("fuzz", "tpartadd", "--runs", "10", "--corpus", tmp_path / "nope", "--out", out))
    assert not out.exists()


def test_triage_of_an_empty_or_foreign_folder_is_an_error(cli, tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "a.json").write_text('{"x": 1}')
    for folder in ("empty", "other"):
        assert "holds no fuzz findings" in _one_line(cli("triage", tmp_path / folder))
    clean = tmp_path / "clean"
    assert cli("fuzz", "tmrgsort", "--runs", "50", "--seed", "3", "--out", clean).code == 0
    assert cli("triage", clean).code == 0  # a campaign that found nothing is a clean triage


def _record(tmp_path: Path, change) -> Path:
    data = json.loads(EDGE.read_text())
    change(data)
    path = tmp_path / "rec" / "record.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(data))
    return path.parent


def _hexes(data: dict, role: str) -> list:
    return data["inputs"][role]["hex"]


DAMAGE = {
    "oracles-string": (lambda d: d.__setitem__("oracles", "spec"), "oracles must be a list"),
    "hex-overflow": (lambda d: _hexes(d, "src0").__setitem__(0, "f" * 40), "hex strings of at most 8 digits"),
    "hex-not-hex": (lambda d: _hexes(d, "src0").__setitem__(0, "zz"), "hex strings"),
    "hex-count": (lambda d: _hexes(d, "src0").pop(), "hex must be a list of"),
    "shape-mismatch": (lambda d: d["inputs"]["src0"].__setitem__("shape", [1, 1]), "shape must be the src0 tile"),
    "file-absolute": (lambda d: d["inputs"].__setitem__("src0", {"file": "/etc/passwd"}), "a file name in the"),
    "file-parent": (lambda d: d["inputs"].__setitem__("src0", {"file": "../x.bin"}), "a file name in the"),
    "file-device": (lambda d: d["inputs"].__setitem__("src0", {"file": "zero"}), "no regular file"),
    "huge-tile": (lambda d: d["tiles"]["dst"].__setitem__("shape", [60000, 60000]), "more than 4,194,304"),
    "float-valid": (lambda d: d["tiles"]["dst"].__setitem__("valid", [1.5, 32]), "two integers"),
    "tiles-list": (lambda d: d.__setitem__("tiles", []), "tiles must map each role"),
    "seed-huge": (lambda d: d["inputs"].__setitem__("draw", {"seed": 2**64, "key": []}), "seed must be an integer"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("command", ["replay", "minimize", "diff"])
def test_a_damaged_record_is_one_line_for_every_reader(cli, tmp_path, damage, command):
    change, words = DAMAGE[damage]
    folder = _record(tmp_path, change)
    if damage == "file-device":
        os.symlink("/dev/zero", folder / "zero")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    res = cli(command, folder)
    if command == "replay":  # replay reports each record's verdict: an unreadable one is an error line, exit 2
        assert res.code == 2 and words in res.out, (res.out, res.err)
    else:
        assert words in _one_line(res)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written


def test_a_fifo_in_place_of_a_record_input_does_not_hang(cli, tmp_path):
    folder = _record(tmp_path, lambda d: d["inputs"].__setitem__("src0", {"file": "pipe.bin"}))
    os.mkfifo(folder / "pipe.bin")
    assert "no regular file" in cli("replay", folder).out


def test_triage_of_only_unreadable_records_exits_2(cli, tmp_path):
    folder = _record(tmp_path, DAMAGE["hex-overflow"][0])
    data = json.loads((folder / "record.json").read_text())
    data["finding"] = {"signature": "TPARTMAX/float/cpu~spec/int-value/op/-", "hits": 1}  # any finding
    (folder / "record.json").write_text(json.dumps(data))
    res = cli("triage", tmp_path, "--json")
    assert res.code == 2 and json.loads(res.out)["skipped"] == [str(folder / "record.json")]


def test_manifest_damage_is_a_folder_error(tmp_path):
    api.generate("tpartmin", "a5", tmp_path, explicit={"dst": (2, 2)})
    (case,) = tmp_path.iterdir()
    good = (case / "ptofuzz.json").read_text()
    for damage in (lambda m: m.__setitem__("format", "ptofuzz-case/99"),
                   lambda m: m["tiles"]["dst"].__setitem__("valid", [64.5, 64]),
                   lambda m: m["tiles"]["dst"].__setitem__("shape", ["2", 2]),
                   lambda m: m.__setitem__("op", ["TPARTMIN"]),
                   lambda m: m.__setitem__("params", {"inplace": {"deep": [1, [2, [3]]]}}),
                   lambda m: m.__setitem__("files", {"golden.bin": 1}),
                   lambda m: m.__setitem__("files", [1, 2]),
                   lambda m: m.__setitem__("files", [{"name": 5}]),
                   lambda m: m.__setitem__("files", [{"name": "../../../etc/passwd", "sha256": "0"}]),
                   lambda m: m.__setitem__("files", [{"name": "/etc/passwd", "sha256": "0"}]),
                   lambda m: m["files"][0].__setitem__("shape", [64.5, 64]),
                   lambda m: m.__setitem__("expected", "ok")):
        m = json.loads(good)
        damage(m)
        (case / "ptofuzz.json").write_text(json.dumps(m))
        (v,) = api.check([case])
        assert v.verdict == "error" and "ptofuzz.json" in v.message, v
    (case / "ptofuzz.json").write_text(good)
    assert api.check([case])[0].verdict == "pass"


def test_control_characters_in_a_folder_name_are_never_echoed_raw(cli, tmp_path):
    evil = tmp_path / "TPARTADDTest.case_\x1b[31mred\nFAKE PASS"
    evil.mkdir()
    (evil / "input1.bin").write_bytes(b"\0" * 16)
    res = cli("check", tmp_path, "--platform", "a5")
    assert res.code == 2
    text = res.out + res.err
    assert "\x1b" not in text and "\\x1b[31mred\\nFAKE PASS" in text
    assert not any(line.startswith("FAKE PASS") for line in text.splitlines())


def test_exports_never_overwrite_data(cli, tmp_path):
    api.generate("tpartmin", "a5", tmp_path / "g", explicit={"dst": (2, 2)})
    (case,) = (tmp_path / "g").iterdir()
    golden = case / "golden.bin"
    before = golden.read_bytes()
    for flag in ("--junit", "--html", "--svg"):
        assert "overwrites only its own reports" in _one_line(cli("check", tmp_path / "g", flag, golden))
        assert golden.read_bytes() == before
    report = tmp_path / "r.xml"
    assert cli("check", tmp_path / "g", "--junit", report).code == 0
    assert cli("check", tmp_path / "g", "--junit", report).code == 0  # an earlier report may be replaced
    shutil.copy(golden, tmp_path / "data.sarif")
    assert "--sarif" in _one_line(cli("replay", EDGE, "--sarif", tmp_path / "data.sarif"))


def test_a_corrupt_class_bitmap_fails_check(tmp_path):
    """The manifest's list of undefined elements is part of the golden: a corrupt or edited one fails."""
    api.generate("tpartmax", "a5", tmp_path, explicit={"dtype": "float32", "dst": (2, 40), "src1": (1, 40)},
                 special="nan", special_rate=0.5, allow_undefined=True)
    (case,) = tmp_path.iterdir()
    good = json.loads((case / "ptofuzz.json").read_text())
    masks = good["expected"]["classes"]["golden.bin"]["undefined"]
    assert masks["count"] > 0 and api.check([case])[0].verdict == "pass"
    import base64

    raw = bytearray(base64.b64decode(masks["bitmap"]))
    for damage, verdict in (("not base64!", "error"), (base64.b64encode(bytes(raw[:-1])).decode(), "error"),
                            (base64.b64encode(bytes([raw[0] ^ 0x80]) + bytes(raw[1:])).decode(), "error")):
        m = json.loads(json.dumps(good))
        m["expected"]["classes"]["golden.bin"]["undefined"]["bitmap"] = damage
        (case / "ptofuzz.json").write_text(json.dumps(m))
        assert api.check([case])[0].verdict == verdict
    # consistent (count matches) but not what the platform leaves undefined: a failing check
    m = json.loads(json.dumps(good))
    first = raw[0]
    moved = bytes([(first >> 1) | ((first & 1) << 7)]) + bytes(raw[1:])
    if first.bit_count() == moved[0].bit_count() and moved != bytes(raw):
        m["expected"]["classes"]["golden.bin"]["undefined"]["bitmap"] = base64.b64encode(moved).decode()
        (case / "ptofuzz.json").write_text(json.dumps(m))
        (v,) = api.check([case])
        assert v.verdict == "fail" and "non-exact elements of golden.bin" in v.message


def test_asm_and_disasm_read_at_most_a_bounded_prefix(cli, tmp_path):
    sparse = tmp_path / "sparse.bin"
    with open(sparse, "wb") as f:  # 1 GB, almost no disk
        f.truncate(1 << 30)
    assert "larger than 4,194,304 bytes" in _one_line(cli("disasm", sparse))
    assert "larger than 4,194,304 bytes" in _one_line(cli("asm", "/dev/zero", "-o", tmp_path / "x.bin"))
    assert not (tmp_path / "x.bin").exists()
    (tmp_path / "bad.s").write_bytes(b"\xff\xfe not text")
    assert "not UTF-8" in _one_line(cli("asm", tmp_path / "bad.s", "--hex"))


def test_gen_removes_what_a_killed_gen_left_behind(cli, tmp_path):
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    pid = int(dead.stdout)  # a process that has ended: its staging folders are garbage
    for k in range(3):
        (tmp_path / f".TPARTADDTest.case_{k}.tmp-{pid}").mkdir()
    (tmp_path / f".TPARTADDTest.case_9.tmp-{os.getpid()}").mkdir()  # a live process's: left alone
    (tmp_path / ".notes.txt").write_text("mine")
    assert cli("gen", "tpartadd", "--platform", "a5", "--out", tmp_path).code == 0
    hidden = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))
    assert hidden == [".TPARTADDTest.case_9.tmp-" + str(os.getpid()), ".notes.txt"]


def test_a_moved_findings_tree_still_replays_and_names_no_old_path(cli, tmp_path):
    run = tmp_path / "run"
    assert cli("fuzz", "tpartmax", "--runs", "5000", "--seed", "3", "--out", run).code == 0
    moved = tmp_path / "elsewhere" / "findings"
    moved.parent.mkdir()
    run.rename(moved)
    summary = json.loads((moved / "campaign.json").read_text())
    for s in summary["signatures"]:
        assert s["path"] == Path(s["path"]).name and (moved / s["path"] / "record.json").is_file()
        assert s["replay"] == f"ptofuzz replay {s['path']}"
    texts = [p.read_text() for p in moved.rglob("*.json")]
    assert texts and not any(str(run) in t for t in texts)  # nothing points at where the tree was written
    assert cli("replay", moved).code == 0
    assert cli("triage", moved).code == 0


@pytest.mark.parametrize(("flag", "name", "text"), [
    ("--html", "page.html", "<html>my page</html>\n"),
    ("--svg", "logo.svg", '<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>\n'),
    ("--junit", "pytest.xml", '<?xml version="1.0"?><testsuites name="pytest tests"></testsuites>\n'),
])
def test_a_file_that_only_looks_like_a_report_is_never_replaced(cli, tmp_path, flag, name, text):
    """Only ptofuzz's own earlier report may be replaced (it carries ptofuzz's mark); a page, an image or another
    tool's JUnit file of the same format is refused, untouched; ptofuzz's own report is replaced on the next run."""
    api.generate("tpartmin", "a5", tmp_path / "g", explicit={"dst": (2, 2)})
    theirs = tmp_path / name
    theirs.write_text(text)
    assert "overwrites only its own reports" in _one_line(cli("check", tmp_path / "g", flag, theirs))
    assert theirs.read_text() == text
    ours = tmp_path / f"ours{theirs.suffix}"
    assert cli("check", tmp_path / "g", flag, ours).code == 0
    assert cli("check", tmp_path / "g", flag, ours).code == 0  # an earlier report of ptofuzz's is replaced


def test_another_tools_sarif_log_is_never_replaced(cli, tmp_path):
    theirs = tmp_path / "codeql.sarif"
    theirs.write_text('{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "CodeQL"}}}]}\n')
    assert "overwrites only its own reports" in _one_line(cli("replay", EDGE, "--sarif", theirs))
    assert "CodeQL" in theirs.read_text()


def test_asm_never_writes_over_its_own_source(cli, tmp_path):
    source = tmp_path / "a.s"
    source.write_text("BSTOP\n")
    link = tmp_path / "link.s"
    link.symlink_to(source)
    for out in (source, link):
        assert "is the assembly source itself" in _one_line(cli("asm", source, "-o", out, "--force"))
    assert source.read_text() == "BSTOP\n"
    assert cli("asm", source, "-o", tmp_path / "a.bin").code == 0
