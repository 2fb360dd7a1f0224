"""Bad input: one line on stderr naming the bad value, exit 2, and nothing written."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ptofuzz import api


def _one_line_error(res, *needles: str) -> None:
    assert res.code == 2, res
    lines = res.err.strip().splitlines()
    assert len(lines) == 1, res.err
    assert lines[0].startswith("ptofuzz: error: ")
    assert "Traceback" not in res.err + res.out
    for n in needles:
        assert n in lines[0], (n, lines[0])


@pytest.mark.parametrize("args,needles", [
    (["gen", "tpartfoo", "--platform", "a5"], ["'tpartfoo'", "tpartadd"]),
    (["gen", "tpartadd", "--platform", "a9"], ["'a9'", "a2a3"]),
    (["gen", "tpartadd", "--platform", "a5", "--dtype", "float128"], ["'float128'", "float32"]),
    (["gen", "tpartadd", "--platform", "a2a3", "--dtype", "bf16"], ["bfloat16", "int16"]),
    (["gen", "tpartadd", "--platform", "cpu", "--shape", "64x64", "--dst", "80x80"], ["80x80", "64x64", "--shape"]),
    (["gen", "tpartadd", "--platform", "a5", "--dst", "8x8", "--src0", "4x4", "--src1", "4x4"], ["a5 asserts"]),
    (["gen", "tpartadd", "--platform", "a5", "--dst", "8by8"], ["'8by8'", "ROWSxCOLS"]),
    (["gen", "tpartadd", "--platform", "a5", "--random", "0"], ["--random 0"]),
    (["gen", "tpartadd", "--platform", "a5", "--inplace", "dst"], ["'dst'", "src0 or src1"]),
    (["gen", "tpartadd", "--platform", "a5", "--special-rate", "1.5"], ["1.5"]),
    (["gen", "tpartmul", "--platform", "cpu"], ["no file-based TPARTMUL", "--random"]),
    (["check", "/nonexistent/case"], ["/nonexistent/case"]),
    (["check", ".", "--oracle", "aslrf"], ["'aslrf'", "--oracle aslref"]),
    (["check", ".", "--oracle", "cpusim", "--aslref", "/x"], ["--aslref", "add aslref"]),
    (["check", ".", "--oracle", "aslref", "--aslref", "/nonexistent/aslref", "--spec-asl", "/nonexistent/m.asl"],
     ["--aslref /nonexistent/aslref", "no aslref executable"]),
    (["fuzz", "tadd", "--runs", "8", "--max-elements", "0"], ["--max-elements 0", "65536"]),
    (["fuzz", "tadd", "--runs", "8", "--shape", "32x32", "--max-elements", "256"], ["32x32", "--max-elements 256"]),
    (["fuzz", "tadd", "--runs", "8", "--aslref", "/x"], ["--aslref", "add aslref to the oracles"]),
    (["fuzz", "tadd", "--runs", "8", "--illegal-share", "1.5"], ["--illegal-share 1.5", "between 0 and 1"]),
    (["fuzz", "tcvt", "--runs", "8", "--illegal-share", "1"], ["no illegal TCVT cases", "drop it"]),
    (["fuzz", "tadd", "--oracles", "cpu,a5", "--runs", "8", "--illegal-share", "1"], ["spec cases", "spec,bundle"]),
    (["replay", ".", "--spec-asl", "/nonexistent/m.asl", "--aslref", "/nonexistent/aslref"],
     ["--aslref /nonexistent/aslref"]),
    (["check", ".", "--platform", "gpu"], ["'gpu'"]),
])
def test_bad_arguments(cli, args, needles, tmp_path):
    res = cli(*args, "-o", tmp_path) if args[0] == "gen" else cli(*args)
    _one_line_error(res, *needles)
    if args[0] == "gen":
        assert list(tmp_path.iterdir()) == []


def test_existing_folder_needs_force_and_nothing_is_half_written(cli, tmp_path):
    assert cli("gen", "tpartadd", "--platform", "a5", "-o", tmp_path).code == 0
    victim = tmp_path / "TPARTADDTest.case_half_8x48_8x16_8x48"
    before = {p.name: p.read_bytes() for p in victim.iterdir()}
    res = cli("gen", "tpartadd", "--platform", "a5", "-o", tmp_path, "--seed", "1")
    _one_line_error(res, "already exists", "--force", "11 more")
    assert {p.name: p.read_bytes() for p in victim.iterdir()} == before
    res = cli("gen", "tpartadd", "--platform", "a5", "-o", tmp_path, "--seed", "1", "--force")
    assert res.code == 0
    assert (victim / "input1.bin").read_bytes() != before["input1.bin"]
    # no temporary or backup folders are left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(n for n, _, _ in api.plan("tpartadd", "a5"))


@pytest.mark.parametrize("change,word", [(lambda b: b[:-4], "truncated"), (lambda b: b + b"\0\0\0\0", "oversized")])
def test_wrong_sized_bin_file(cli, tmp_path, change, word):
    assert cli("gen", "tpartadd", "--platform", "a5", "-o", tmp_path).code == 0
    f = tmp_path / "TPARTADDTest.case_int16_8x48_8x48_8x16" / "input2.bin"
    f.write_bytes(change(f.read_bytes()))
    res = cli("check", tmp_path)
    assert res.code == 2, res
    assert f"ERROR TPARTADDTest.case_int16_8x48_8x48_8x16: '{f}' is {word}" in res.out
    assert "expected 256 (8x16 int16)" in res.out
    assert "11 of 12 case(s) pass" in res.out


def test_unparseable_folder_name(cli, tmp_path):
    bad = tmp_path / "TPARTADDTest.case_float_64x64"
    bad.mkdir()
    (bad / "input1.bin").write_bytes(b"\0" * 16)
    res = cli("check", bad, "--platform", "a5")
    assert res.code == 2 and "'TPARTADDTest.case_float_64x64' has 1 tiles; TPARTADDTest names 3" in res.out
    garbled = tmp_path / "TPARTADDTest.garbage"
    garbled.mkdir()
    (garbled / "input1.bin").write_bytes(b"\0" * 16)
    res = cli("check", garbled, "--platform", "a5")
    assert res.code == 2 and "cannot parse folder name 'TPARTADDTest.garbage'" in res.out
    other = tmp_path / "TFOOTest.case_float_8x8_8x8_8x8"
    other.mkdir()
    (other / "input1.bin").write_bytes(b"\0" * 16)
    res = cli("check", other, "--platform", "a5")
    assert res.code == 2 and "suite 'TFOOTest' is no a5 test" in res.out


def test_corrupt_manifest(cli, tmp_path):
    assert cli("gen", "tpartmin", "--platform", "a5", "-o", tmp_path, "--dst", "2x2").code == 0
    (case,) = tmp_path.iterdir()
    (case / "ptofuzz.json").write_text("{not json")
    res = cli("check", case)
    assert res.code == 2 and "is not a valid ptofuzz manifest" in res.out


def test_out_is_a_file(cli, tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    res = cli("gen", "tpartadd", "--platform", "a5", "-o", f)
    _one_line_error(res, "is a file")


def test_console_script_exit_codes_and_no_traceback(tmp_path):
    """The real entry point, in a subprocess: usage errors are exit 2 with one line on stderr."""
    r = subprocess.run([sys.executable, "-m", "ptofuzz", "gen", "tpartadd", "--platform", "a5", "--dtype", "q"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "unknown dtype 'q'" in r.stderr
    r = subprocess.run([sys.executable, "-m", "ptofuzz", "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("ptofuzz ")


@pytest.mark.parametrize(("argv", "line"), [
    (["gen", "tpartadd", "--platfrm", "a5"],
     "ptofuzz: error: No such option: --platfrm (Possible options: --platform); see 'ptofuzz gen --help'"),
    (["gen"], "ptofuzz: error: Missing argument 'op'; see 'ptofuzz gen --help'"),
    (["fuzz", "tpartadd", "--runs", "abc"],
     "ptofuzz: error: Invalid value for '--runs': 'abc' is not a valid int; see 'ptofuzz fuzz --help'"),
    (["nosuch"], "ptofuzz: error: No such command 'nosuch'; see 'ptofuzz --help'"),
    (["sim", "build", "--sanitize"], "ptofuzz: error: Option '--sanitize' requires an argument; see "
                                     "'ptofuzz --help'"),
])
def test_an_option_the_parser_refuses_is_one_line_naming_it(tmp_path, argv, line):
    """Through the console script: the option parser's errors are one line like every other bad input (they were
    typer's four-line usage block), exit 2, nothing on stdout."""
    r = subprocess.run([sys.executable, "-m", "ptofuzz", *argv], capture_output=True, text=True, cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (2, "", line + "\n")
    assert not any(tmp_path.iterdir())


def test_a_bare_command_group_still_shows_its_help(tmp_path):
    r = subprocess.run([sys.executable, "-m", "ptofuzz"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and "Commands:" in r.stdout + r.stderr and "Traceback" not in r.stderr


def test_every_command_s_help_shows_an_example(cli):
    """No --help screen had an example."""
    for command in (("gen",), ("check",), ("fuzz",), ("run",), ("replay",), ("minimize",), ("diff",),
                    ("triage",), ("asm",), ("disasm",), ("list",), ("sim", "build")):
        r = cli(*command, "--help")
        assert r.code == 0 and "Example" in r.out and f"`ptofuzz {command[0]} " in " ".join(r.out.split()), command


def test_list_filters_by_instruction_and_platform(cli):
    import json

    rows = json.loads(cli("list", "tpartadd", "tsort32", "--platform", "a5", "--json").out)
    assert [(r["op"], r["platform"]) for r in rows] == [("TPARTADD", "a5"), ("TSORT32", "a5")]
    assert {r["platform"] for r in json.loads(cli("list", "--platform", "kirinX90", "--json").out)} == {"kirin9030"}
    assert len(json.loads(cli("list", "--json").out)) > len(rows)
    r = cli("list", "tsort", "--platform", "a5")
    assert r.code == 2 and r.err == "ptofuzz: error: no instruction of TSORT runs on a5; see `ptofuzz list`\n"
    assert cli("list", "nosuch").code == 2


def test_asm_and_disasm_speak_json(cli, tmp_path):
    import json

    (tmp_path / "a.s").write_text("BSTART.SFU TSORT, FP32\nBSTOP\n")
    words = json.loads(cli("asm", tmp_path / "a.s", "--json").out)["words"]
    assert words[0] == "0x0ec19181" and len(words) == 2
    shown = json.loads(cli("disasm", *(x for w in words for x in ("--hex", w)), "--json").out)
    assert [d["word"] for d in shown] == words and shown[0]["text"] == "BSTART.SFU TSORT, FP32"
