"""The ``ptofuzz`` entry point: ``gen`` of a canonical list written to a pipe or file runs without typer or rich
(ptofuzz/entry.py) and says exactly what the typer command says."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ptofuzz.entry import canonical_gen


@pytest.mark.parametrize(("argv", "want"), [
    (["gen", "tpartadd", "--platform", "a5"], ("tpartadd", "a5", ".", 0, False)),
    (["gen", "-p", "cpu", "tsort32", "-o", "out", "--force"], ("tsort32", "cpu", "out", 0, True)),
    (["gen", "tmrgsort", "--platform=a2a3", "--out=o", "--seed=7"], ("tmrgsort", "a2a3", "o", 7, False)),
    (["gen", "tpartadd", "--seed", "-3", "--platform", "a5"], ("tpartadd", "a5", ".", -3, False)),
])
def test_the_canonical_gen_command_lines_are_recognised(argv, want):
    assert tuple(canonical_gen(argv)) == want


@pytest.mark.parametrize("argv", [
    ["gen", "tpartadd"],  # no platform: the CLI says it is missing
    ["gen", "--platform", "a5"],  # no operation
    ["gen", "tpartadd", "tsort", "--platform", "a5"],  # two operations
    ["gen", "tpartadd", "--platform", "a5", "--random", "3"],  # any other option
    ["gen", "tpartadd", "--platform", "a5", "--help"],
    ["gen", "tpartadd", "--platform", "a5", "-p", "cpu"],  # given twice
    ["gen", "tpartadd", "--platform"],  # no value
    ["gen", "tpartadd", "--platform", "a5", "--seed", "x"],  # not an integer: the CLI's message
    ["gen", "tpartadd", "-p=a5"],  # short options take no "="
    ["check", "x", "--platform", "a5"], ["gen"], [],
])
def test_every_other_command_line_goes_to_the_cli(argv):
    assert canonical_gen(argv) is None


# what a canonical gen never imports: the CLI framework and terminal renderer, and what only other commands
# (or other options) need: processes, --special's quoting, the tile-scalar tests' scalar carrier
NOT_FOR_GEN = ("typer", "rich", "subprocess", "shlex", "ptofuzz.oracles.carrier")


def _ptofuzz(args, cwd, modules=False):
    """Run the installed entry point with stdout to a pipe; with ``modules``, also report which of
    :data:`NOT_FOR_GEN` were imported."""
    code = ("import sys; from ptofuzz import entry\n"
            "code = entry._gen(entry.canonical_gen(sys.argv[1:]))\n"
            f"sys.stderr.write('@@' + repr(sorted(m for m in {NOT_FOR_GEN!r} if m in sys.modules)) + '\\n')\n"
            "raise SystemExit(code)\n") if modules else "from ptofuzz.entry import main; main()"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "200"}, check=False)


def test_the_fast_path_writes_and_says_what_the_cli_does(tmp_path):
    fast = _ptofuzz(["gen", "tpartadd", "--platform", "a5", "-o", "fast"], tmp_path)
    assert fast.returncode == 0 and fast.stderr == "", fast.stderr
    lean = _ptofuzz(["gen", "tpartadd", "--platform", "a5", "-o", "lean"], tmp_path, modules=True)
    assert lean.returncode == 0 and lean.stderr.strip() == "@@[]"  # none of NOT_FOR_GEN
    cli = subprocess.run([sys.executable, "-c", "from ptofuzz.cli.app import main; main()", "gen", "tpartadd",
                          "--platform", "a5", "-o", "cli"], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "200"}, check=False)
    assert cli.returncode == 0, cli.stderr
    assert fast.stdout.replace("fast", "OUT") == cli.stdout.replace("cli", "OUT")
    assert fast.stdout.splitlines()[-1] == "12 case folder(s) for TPARTADD on a5 in fast (seed 0)"
    names = sorted(p.name for p in (tmp_path / "fast").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "cli").iterdir()) and len(names) == 12
    for name in names:
        for f in (tmp_path / "fast" / name).iterdir():
            assert f.read_bytes() == (tmp_path / "cli" / name / f.name).read_bytes(), (name, f.name)


@pytest.mark.parametrize(("args", "message"), [
    (["gen", "tpartadd", "--platform", "a9", "-o", "o"], "unknown platform 'a9'"),
    (["gen", "tnope", "--platform", "a5", "-o", "o"], "tnope"),
])
def test_the_fast_path_fails_in_one_line_as_the_cli_does(tmp_path, args, message):
    fast = _ptofuzz(args, tmp_path)
    cli = subprocess.run([sys.executable, "-c", "from ptofuzz.cli.app import main; main()", *args], cwd=tmp_path,
                         capture_output=True, text=True, check=False)
    assert fast.returncode == cli.returncode == 2
    assert fast.stderr == cli.stderr and message in fast.stderr and len(fast.stderr.splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_an_existing_folder_needs_force_on_the_fast_path_too(tmp_path):
    assert _ptofuzz(["gen", "tsort32", "--platform", "a5", "-o", "o"], tmp_path).returncode == 0
    again = _ptofuzz(["gen", "tsort32", "--platform", "a5", "-o", "o"], tmp_path)
    assert again.returncode == 2 and "--force" in again.stderr
    assert _ptofuzz(["gen", "tsort32", "--platform", "a5", "-o", "o", "--force"], tmp_path).returncode == 0


def test_the_fast_path_ends_without_teardown_and_loses_nothing(tmp_path):
    """The fast path leaves through os._exit: every line of a long report still reaches the pipe, the exit code is
    the command's, and the output folder holds the case folders and nothing else (no journal, lock or staging)."""
    fast = _ptofuzz(["gen", "tcvt", "--platform", "a5", "-o", "o"], tmp_path)
    assert fast.returncode == 0, fast.stderr
    names = sorted(p.name for p in (tmp_path / "o").iterdir())
    lines = fast.stdout.splitlines()
    assert len(names) > 100 and len(lines) == len(names) + 1
    assert sorted(line.split()[1] for line in lines[:-1]) == names and all(n.startswith("TCVT") for n in names)
    assert lines[-1] == f"{len(names)} case folder(s) for TCVT on a5 in o (seed 0)"
    again = _ptofuzz(["gen", "tcvt", "--platform", "a5", "-o", "o"], tmp_path)
    assert again.returncode == 2 and again.stdout == "" and len(again.stderr.splitlines()) == 1
