"""The damage matrix (issue 14): every kind of file a command reads, damaged in each systematic way, through every
command that reads it.

Each run must end in exit 2 with one error line that names the damaged file (exit 1 only for a genuine mismatch,
such as `check` of a flipped golden), never exit 3 or a traceback, never hang (a FIFO in place of a file), and
must leave the folder tree as it was, apart from what the command is asked to write. The per-key damages (a
wrong JSON type, a missing key, a huge number, NaN) are generated from each valid document, key by key.
:data:`COMBINATIONS` lists every (file kind, damage, command) run; test_the_matrix_covers_every_reader states
how many there are.
"""

from __future__ import annotations

import atexit
import dataclasses
import hashlib
import json
import os
import shlex
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ptofuzz import api
from ptofuzz.io import validate

# ---- the valid files, built once ------------------------------------------------------------------------------

CASE = "cases/TPARTMINTest.case_fp32_2x2_2x2_2x2"
FINDING = "run/TPARTARGMAX_float_a5-vs-cpu_index_op_-_b2689ef6"


def _build(root: Path) -> None:
    """Valid files of every kind: a case folder (with an output.bin), a findings tree of one record with .bin
    inputs, a bundle's assembly and words, a fuzzer input and a JUnit report."""
    from typer.testing import CliRunner

    from ptofuzz.cli.app import app

    def run(*args: str) -> None:
        res = CliRunner().invoke(app, [str(a) for a in args])
        assert res.exit_code in (0, 1), res.output

    api.generate("tpartmin", "a5", root / "cases", explicit={"dst": (2, 2)})
    case = root / CASE
    shutil.copy(case / "golden.bin", case / "output.bin")
    (root / "ref").mkdir()
    for name in ("input1.bin", "golden.bin", "output.bin"):
        shutil.copy(case / name, root / "ref" / name)
    run("fuzz", "tpartargmax", "--runs", "3000", "--seed", "0", "--shape", "8x16", "--out", root / "run")
    keep = Path(FINDING).name
    for folder in (root / "run").iterdir():
        if folder.is_dir() and folder.name != keep:
            shutil.rmtree(folder)
    summary = json.loads((root / "run" / "campaign.json").read_text())
    summary["signatures"] = [s for s in summary["signatures"] if s["path"] == keep]
    (root / "run" / "campaign.json").write_text(json.dumps(summary, indent=1) + "\n")
    run("gen", "tpartadd", "--platform", "spec", "--bundle", "--dst", "2x8", "--out", root / "bundle")
    (bundle,) = (root / "bundle").iterdir()
    for name in ("bundle.s", "bundle.bin"):
        shutil.copy(bundle / name, root / name)
    shutil.rmtree(root / "bundle")
    (root / "crash-input").write_bytes(bytes(range(7, 71)))
    run("check", root / CASE, "--junit", root / "report.xml")


PRISTINE = Path(tempfile.mkdtemp(prefix="ptofuzz-damage-"))
atexit.register(shutil.rmtree, PRISTINE, True)
_build(PRISTINE)

# ---- file kinds and the commands that read them -------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Command:
    name: str
    argv: Callable[[Path], list[str]]  # from the test's copy of the valid files
    writes: tuple[str, ...] = ()  # what it may write or change (path prefixes under the copy) when it does not refuse
    always_writes: tuple[str, ...] = ()  # what it may write even when it refuses (an external target's output)


@dataclasses.dataclass(frozen=True)
class Kind:
    name: str
    path: str  # the file under the copy
    form: str  # json (with a schema), bin (a tile file), words (bundle words), text (assembly), bytes, folder
    commands: tuple[Command, ...]
    schema: str | None = None  # the schema kind of a json file
    overwritten: frozenset[str] = frozenset()  # commands that replace this file without reading its content

    @property
    def needs(self) -> tuple[str, ...]:
        """The valid files its commands read (copied for each run)."""
        top = self.path.split("/")[0]
        return ("cases", "ref", *(() if top == "cases" else (top,))) if top in ("cases", "report.xml") else (top,)


def _target(root: Path) -> str:
    return f"cp {shlex.quote(str(root / 'ref' / 'output.bin'))} {{case}}/output.bin"


CHECK = Command("check", lambda r: ["check", r / CASE])
RUN = Command("run", lambda r: ["run", r / CASE, "--target", _target(r)], always_writes=(f"{CASE}/output.bin",))
REPLAY = Command("replay", lambda r: ["replay", r / FINDING])
MINIMIZE = Command("minimize", lambda r: ["minimize", r / FINDING], writes=(f"{FINDING}.min",))
DIFF_RECORD = Command("diff", lambda r: ["diff", r / FINDING])
TRIAGE = Command("triage", lambda r: ["triage", r / "run"])
CORPUS = Command("fuzz --corpus", lambda r: ["fuzz", "tpartargmax", "--runs", "1", "--corpus", r / FINDING])
FUZZ_OUT = Command("fuzz --out", lambda r: ["fuzz", "tpartargmax", "--runs", "1", "--out", r / "run"],
                   writes=("run",))


def _raw_diff(path: str) -> Command:
    name = Path(path).name
    return Command("diff", lambda r: ["diff", r / path, r / "ref" / name, "--dtype", "float32", "--shape", "2x2"])


KINDS = (
    Kind("manifest", f"{CASE}/ptofuzz.json", "json", (CHECK, RUN), schema="case"),
    Kind("case input", f"{CASE}/input1.bin", "bin", (CHECK, RUN, _raw_diff(f"{CASE}/input1.bin"))),
    Kind("golden", f"{CASE}/golden.bin", "bin", (CHECK, RUN, _raw_diff(f"{CASE}/golden.bin"))),
    Kind("output", f"{CASE}/output.bin", "bin", (CHECK, _raw_diff(f"{CASE}/output.bin"))),
    Kind("record", f"{FINDING}/record.json", "json", (REPLAY, MINIMIZE, DIFF_RECORD, TRIAGE, CORPUS, FUZZ_OUT),
         schema="record"),
    Kind("record input", f"{FINDING}/src0.bin", "bin", (REPLAY, MINIMIZE, DIFF_RECORD, TRIAGE, CORPUS)),
    Kind("campaign", "run/campaign.json", "json", (TRIAGE, FUZZ_OUT), schema="campaign",
         overwritten=frozenset({FUZZ_OUT.name})),
    Kind("corpus folder", FINDING, "folder", (CORPUS,)),
    Kind("assembly", "bundle.s", "text", (Command("asm --hex", lambda r: ["asm", r / "bundle.s", "--hex"]),
                                          Command("asm -o", lambda r: ["asm", r / "bundle.s", "-o", r / "words.bin"],
                                                  writes=("words.bin",)))),
    Kind("bundle words", "bundle.bin", "words", (Command("disasm", lambda r: ["disasm", r / "bundle.bin"]),
                                                 Command("disasm --show-hex",
                                                         lambda r: ["disasm", r / "bundle.bin", "--show-hex"]))),
    Kind("fuzzer input", "crash-input", "bytes",
         (Command("fuzz --rerun",
                  lambda r: ["fuzz", "tpartmax", "--engine", "atheris", "--rerun", r / "crash-input"]),)),
    Kind("junit report", "report.xml", "text",
         (Command("check --junit", lambda r: ["check", r / CASE, "--junit", r / "report.xml"],
                  writes=("report.xml",)),)),
)

# ---- damages ------------------------------------------------------------------------------------------------

Path_ = tuple[Any, ...]  # keys and list indexes from the document's root


def _paths(doc: Any, at: Path_ = ()) -> Iterator[Path_]:
    """Every key of a document (the root too), lists by their first element."""
    yield at
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*at, k))
    elif isinstance(doc, list) and doc:
        yield from _paths(doc[0], (*at, 0))


def _get(doc: Any, at: Path_) -> Any:
    for k in at:
        doc = doc[k]
    return doc


def _set(doc: Any, at: Path_, value: Any) -> Any:
    """A copy of ``doc`` with the value at ``at`` replaced (``_DROP``: removed)."""
    if not at:
        return value
    doc = json.loads(json.dumps(doc))
    parent = _get(doc, at[:-1])
    if value is _DROP:
        del parent[at[-1]]
    else:
        parent[at[-1]] = value
    return doc


_DROP = object()


def _other_type(v: Any) -> Any:
    """A value of another JSON type than ``v``."""
    if isinstance(v, bool):
        return "true"
    if isinstance(v, dict):
        return [v] if v else []
    if isinstance(v, list):
        return {"0": v[0]} if v else {}
    if isinstance(v, str):
        return 7
    if isinstance(v, int | float):
        return str(v)
    return {}  # null


def _first_number(doc: Any) -> Path_:
    return next(at for at in _paths(doc) if type(_get(doc, at)) in (int, float))


def _name(at: Path_) -> str:
    return ".".join(str(k) for k in at) or "(root)"


def _dumps(doc: Any) -> bytes:
    return json.dumps(doc, indent=1).encode()


def _json_damages(data: bytes) -> dict[str, bytes]:
    """The document-level damages of a valid JSON file, and one per key and number."""
    doc = json.loads(data)
    out = {"nested-in-list": _dumps([doc]), "nested-in-object": _dumps({"document": doc}),
           "nested-deep": data.replace(b"{", b"{\"deep\": " + b"[" * 100_000 + b"]" * 100_000 + b", ", 1),
           "huge-exponent": _dumps(_set(doc, _first_number(doc), "<huge>")).replace(b'"<huge>"', b"1e999"),
           "huge-digits": data.replace(b"{", b"{\"big\": " + b"9" * 5000 + b", ", 1),
           "non-utf8-value": data.replace(b'": "', b'": "\xff\xfe', 1),
           "byte-order-mark": b"\xef\xbb\xbf" + data}
    for at in _paths(doc):
        v = _get(doc, at)
        out[f"wrong-type:{_name(at)}"] = _dumps(_set(doc, at, _other_type(v)))
        if at:
            out[f"missing:{_name(at)}"] = _dumps(_set(doc, at, _DROP))
        if isinstance(v, int | float) and not isinstance(v, bool):
            out[f"huge:{_name(at)}"] = _dumps(_set(doc, at, 10**40))
            out[f"nan:{_name(at)}"] = _dumps(_set(doc, at, float("nan")))
            out[f"infinity:{_name(at)}"] = _dumps(_set(doc, at, float("-inf")))
    return out


def _content_damages(kind: Kind, data: bytes) -> dict[str, bytes]:
    """New contents for the file: the damages every kind has, then those of its form."""
    out = {"truncated": data[:len(data) // 2], "empty": b""}
    if kind.form == "json":
        out["extended"] = data + b'\n{"and": "more"}\n'
        out["non-utf8"] = data[:len(data) // 2] + b"\xc3\x28" + data[len(data) // 2:]
        out.update(_json_damages(data))
    elif kind.form == "text":
        text = data.decode()
        out["extended"] = data + b"\nNOT A COMMAND 1, 2\n"
        out["non-utf8"] = b"\xff\xfe" + data
        out["huge-numbers"] = "".join("9" * 40 if ch.isdigit() else ch for ch in text).encode()
        out["nan"] = text.replace("1", "nan", 1).encode()
    else:  # raw bytes: one element (or word) too few or too many, one bit changed
        out["extended"] = data + b"\0\0"
        out["flipped"] = bytes([data[0] ^ 0x40]) + data[1:] if kind.form != "bytes" else bytes([data[0] ^ 1]) + data[1:]
        out["truncated-by-one"] = data[:-1]
    return out


STRUCTURAL = ("directory", "fifo", "symlink-loop", "broken-symlink")


def _damage(kind: Kind, damage: str, target: Path) -> None:
    """Replace ``target`` (a file, or the corpus folder) by its damaged form."""
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    else:
        target.unlink()
    if damage == "directory":
        target.mkdir()
    elif damage == "fifo":
        os.mkfifo(target)
    elif damage == "symlink-loop":
        os.symlink(target.name, target)
    elif damage == "broken-symlink":
        os.symlink(target.name + ".gone", target)
    elif damage == "empty-folder":
        target.mkdir()
    elif kind.form == "folder":
        target.write_bytes(FOLDER_DAMAGES[damage])
    else:
        target.write_bytes(CONTENTS[kind.name][damage])


FOLDER_DAMAGES = {"empty-file": b"", "json-file": b'{"format": "ptofuzz-record/1"}'}

CONTENTS = {k.name: _content_damages(k, (PRISTINE / k.path).read_bytes()) for k in KINDS if k.form != "folder"}


def _damages(kind: Kind) -> list[str]:
    if kind.form == "folder":
        return [*STRUCTURAL[1:], "empty-folder", *FOLDER_DAMAGES]
    return [*STRUCTURAL, *CONTENTS[kind.name]]


COMBINATIONS = [(k.name, d, c.name) for k in KINDS for d in _damages(k) for c in k.commands]
_KIND = {k.name: k for k in KINDS}

# ---- what a run may do --------------------------------------------------------------------------------------


def _refused(kind: Kind, damage: str) -> bool:
    """Whether the damaged file is no longer valid input at all (a reader must refuse it)."""
    if damage in STRUCTURAL or kind.form == "folder":
        return True
    data = CONTENTS[kind.name][damage]
    if kind.form == "json":
        try:
            validate.validate(kind.schema or "", _strict_json(data))
        except (ValueError, RecursionError):
            return True
        return False
    if kind.form == "bin":  # any other change of size; a record's input is also refused for its sha256
        return damage != "flipped" or kind.name == "record input"
    if kind.form == "words":
        return len(data) % 4 != 0
    return kind.form == "text" and damage in ("non-utf8", "huge-numbers", "extended")


def _strict_json(data: bytes) -> Any:
    """What a JSON file holds (ValueError when it is not JSON: not UTF-8, NaN or an infinity, too deep)."""
    def no_constant(name: str) -> Any:
        raise ValueError(name)

    return json.loads(data.decode("utf-8"), parse_constant=no_constant)


def _allowed(kind: Kind, damage: str, command: Command) -> set[int]:
    if kind.form == "bin" and damage == "flipped" and kind.name != "record input":
        return {1}  # a genuine mismatch: the bytes differ from what the case computes
    if command.name in kind.overwritten and damage not in STRUCTURAL:
        return {0, 1}  # the command writes this file without reading it
    if kind.name == "junit report":
        return {2} if damage in STRUCTURAL[:2] else {0, 2}
    if kind.form == "folder" and damage == "json-file":
        return {2}
    if _refused(kind, damage):
        return {2}
    return {0, 1, 2}


# ---- running one -------------------------------------------------------------------------------------------


class Hung(BaseException):
    """A command did not return in time (a reader blocked on a FIFO): not an Exception, so that no handler of
    the command catches it."""


def _tree(root: Path) -> dict[str, str]:
    """Every entry under ``root`` (links and FIFOs not followed): its type and, for a file, a digest."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            p = Path(dirpath) / name
            rel = str(p.relative_to(root))
            st = p.lstat()
            if p.is_symlink():
                out[rel] = "link " + os.readlink(p)
            elif p.is_dir():
                out[rel] = "dir"
            elif p.is_file():
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
            else:
                out[rel] = f"special {st.st_mode:o}"
    return out


def _changed(before: dict[str, str], after: dict[str, str]) -> set[str]:
    return {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}


def _under(path: str, prefixes: tuple[str, ...]) -> bool:
    return any(path == p or path.startswith((p + "/", p + ".")) for p in prefixes)


@pytest.fixture
def timed_cli(cli):
    def handler(signum: int, frame: Any) -> None:
        raise Hung("the command blocked for 10 s")

    old = signal.signal(signal.SIGALRM, handler)

    def run(*args: str) -> Any:
        signal.alarm(10)
        try:
            return cli(*args)
        finally:
            signal.alarm(0)

    yield run
    signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("kind,damage,command", COMBINATIONS)
def test_damage(timed_cli, tmp_path, kind, damage, command):
    k = _KIND[kind]
    cmd = next(c for c in k.commands if c.name == command)
    root = tmp_path / "files"
    for part in k.needs:
        src, dest = PRISTINE / part, root / part
        shutil.copytree(src, dest) if src.is_dir() else (root.mkdir(exist_ok=True), shutil.copy(src, dest))
    target = root / k.path
    _damage(k, damage, target)
    before = _tree(root)
    res = timed_cli(*cmd.argv(root))
    text = res.out + res.err
    assert res.code in _allowed(k, damage, cmd), res
    assert "Traceback" not in text and "internal error" not in text, res
    err = res.err.strip().splitlines()
    assert len(err) <= 1 and all(line.startswith("ptofuzz: error: ") for line in err), res
    changed = _changed(before, _tree(root))
    if res.code == 2:
        names = Path(k.path).name, target.parent.name
        assert [ln for ln in text.splitlines() if all(n in ln for n in names)], res  # names the file
        assert not {p for p in changed if not _under(p, cmd.always_writes)}, changed
    else:
        assert not {p for p in changed if not _under(p, cmd.writes + cmd.always_writes)}, changed


def test_the_matrix_covers_every_reader():
    """The number of (file kind, damage, command) runs, and that each kind meets each damage of its form."""
    kinds = {k for k, _, _ in COMBINATIONS}
    assert kinds == {k.name for k in KINDS} and len(kinds) == 12
    per_key = [d for _, d, _ in COMBINATIONS if ":" in d]
    assert len(per_key) > len(COMBINATIONS) // 2  # the per-key damages of the JSON files
    print(f"\ndamage matrix: {len(COMBINATIONS)} combinations ({len(KINDS)} file kinds)")
    assert len(COMBINATIONS) == EXPECTED_COMBINATIONS


# draw versions added a number to the manifest (2 commands), to campaign.json (2) and to a finding's record (6):
# five damages each (wrong type, missing, huge, nan, infinity), 50 more than 2,074; campaign.json's unsupported
# counts (an object: wrong type and missing, 2 commands) 4 more
EXPECTED_COMBINATIONS = 2128


def test_the_atheris_engine_refuses_a_damaged_out_before_it_starts(cli, tmp_path):
    """The atheris engine's fuzzing child reads --out's records too: a damaged one is refused by the parent, in
    one line, instead of killing the child (exit 3)."""
    root = tmp_path / "files"
    shutil.copytree(PRISTINE / "run", root / "run")
    record = root / FINDING / "record.json"
    record.write_bytes(CONTENTS["record"]["wrong-type:finding"])
    res = cli("fuzz", "tpartargmax", "--engine", "atheris", "--runs", "5", "--out", root / "run")
    assert res.code == 2 and "holds a damaged finding" in res.err and str(record) in res.err, res
    assert len(res.err.strip().splitlines()) == 1
