"""Reports for CI systems: JUnit XML (test views) and SARIF 2.1.0 (code-scanning views) of campaigns, replays
and triage (and JUnit of check and diff): every CI file ptofuzz writes is written here.

Every report is a list of :class:`Entry` (one per signature, record or bucket); known platform differences are
JUnit *skipped* tests with their reason and SARIF ``note`` results, undocumented disagreements failures and
``error`` results. A SARIF result's ``ruleId`` is the signature kind (``nan-vs-number``, ``index``, ...), its
``partialFingerprints`` a hash of the signature key (stable across runs, machines and output folders), its
location the record file, and its message holds the command that reproduces it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ptofuzz.core.atomic import write_file
from ptofuzz.engine.verdicts import failure_summary

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT = "ptofuzzSignature/v1"
PASS, FAIL, ERROR, SKIP = "pass", "fail", "error", "skip"
LEVELS = {PASS: "none", FAIL: "error", ERROR: "error", SKIP: "note"}


@dataclasses.dataclass(frozen=True)
class Entry:
    """One test case / result: a signature (fuzz), a record (replay) or a bucket (triage)."""

    name: str
    status: str  # PASS, FAIL, ERROR or SKIP
    message: str  # what it is; for SKIP the documented reason
    rule: str  # the signature kind (SARIF ruleId)
    key: str  # what the fingerprint is taken from (a signature key)
    location: str | None  # the record file, or None
    reproduce: str


def _kind(key: str) -> str:
    parts = key.split("/")
    return parts[3] if len(parts) > 3 else "disagreement"


def campaign_entries(summary: dict[str, Any]) -> list[Entry]:
    """``fuzz``: one entry per signature; known -> skipped, any other disagreement (new or seen before) fails."""
    out = []
    for s in summary["signatures"]:
        key = s["signature"]
        record = str(Path(s["path"]) / "record.json") if s.get("path") else None
        reproduce = s.get("replay") or summary["command"]
        if s.get("known"):
            out.append(Entry(key, SKIP, f"{key}: known difference: {s['known']}", _kind(key), key, record,
                             reproduce))
            continue
        if s.get("defect"):
            out.append(Entry(key, FAIL, f"{key}: defect of the code under test {s['defect']}, {s['hits']:,} hits in "
                                        f"{summary['cases']:,} cases", _kind(key), key, record, reproduce))
            continue
        what = "new" if s.get("new") else "seen before"
        out.append(Entry(key, FAIL, f"{key}: undocumented disagreement ({what}), {s['hits']:,} hits in "
                                    f"{summary['cases']:,} cases", _kind(key), key, record, reproduce))
    return out


def replay_entries(results: Sequence[Any]) -> list[Entry]:
    """``replay``: one entry per record; changed fails, unreadable is an error, a record whose signatures are all
    known differences is skipped with the reason, the rest pass."""
    from ptofuzz.engine.replay import ReplayVerdict

    out = []
    for r in results:
        path = Path(r.path)
        record = str(path / "record.json") if path.is_dir() else str(path)
        key = r.signatures[0] if r.signatures else f"{r.op}/-/-/replay/-/-"
        reproduce = f"ptofuzz replay {path}"
        if r.verdict is ReplayVerdict.CHANGED:
            out.append(Entry(str(path), FAIL, f"{path}: " + "; ".join(r.changes), _kind(key), key, record,
                             reproduce))
        elif r.verdict is ReplayVerdict.ERROR:
            out.append(Entry(str(path), ERROR, f"{path}: " + "; ".join(r.changes), "unreadable-record", key,
                             record, reproduce))
        else:
            if r.known:
                out.append(Entry(str(path), SKIP, f"{key}: known difference: {r.known}", _kind(key), key,
                                 record, reproduce))
            else:
                shows = f"shows {len(r.signatures)} signature(s)" if r.signatures else "all oracles agree"
                out.append(Entry(str(path), PASS, f"{path}: unchanged, {shows}", _kind(key), key, record,
                                 reproduce))
    return out


def triage_entries(buckets: Sequence[Any]) -> list[Entry]:
    """``triage``: one entry per bucket; all known -> skipped with the first reason, else a failure."""
    out = []
    for b in buckets:
        first = b.first
        record = str(Path(first.path) / "record.json") if Path(first.path).is_dir() else str(first.path)
        kind = dict(b.key).get("kind") or first.signature.kind
        if b.known:
            out.append(Entry(b.name, SKIP, f"{b.name}: known difference: {first.known}", kind, b.name, record,
                             b.replay))
        else:
            out.append(Entry(b.name, FAIL, f"{b.name}: {len(b.items)} undocumented disagreement(s), {b.hits:,} hits",
                             kind, b.name, record, b.replay))
    return out


# ---- writers -------------------------------------------------------------------------------------------------------

def junit_cases(path: Any, suite: str, cases: list[tuple[str, str | None, str]],
                errors: frozenset[str] = frozenset(), skipped: dict[str, str] | None = None) -> None:
    """A JUnit XML file: one test case per (name, failure message or None, reproduce command); names in
    ``errors`` are reported as errors (could not be checked) rather than failures, names in ``skipped`` (that
    have no failure) as skipped, with the reason."""
    import re
    import time
    import xml.etree.ElementTree as ET

    def clean(text: str) -> str:  # XML 1.0 has no control characters
        return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", "?", text)

    skip = {name: why for name, why in (skipped or {}).items()}
    n_err = sum(1 for name, msg, _ in cases if msg and name in errors)
    n_fail = sum(1 for name, msg, _ in cases if msg and name not in errors)
    n_skip = sum(1 for name, msg, _ in cases if not msg and name in skip)
    attrs = {"tests": str(len(cases)), "failures": str(n_fail), "errors": str(n_err), "time": "0"}
    root = ET.Element("testsuites", {"name": "ptofuzz", **attrs, "skipped": str(n_skip)})
    ts = ET.SubElement(root, "testsuite", {"name": suite, "skipped": str(n_skip),
                                           "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S"), "hostname": "localhost",
                                           **attrs})
    for name, msg, reproduce in cases:
        tc = ET.SubElement(ts, "testcase", classname=suite, name=clean(name), time="0")
        if not msg and name in skip:
            s = ET.SubElement(tc, "skipped", message=clean(skip[name]))
            s.text = clean(f"{skip[name]}\nreproduce: {reproduce}")
        if msg:
            kind = "error" if name in errors else "failure"
            f = ET.SubElement(tc, kind, message=clean(msg), type="error" if kind == "error" else "mismatch")
            f.text = clean(f"{msg}\nreproduce: {reproduce}")
    write_file(Path(path), ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")


def write_junit(path: str | Path, suite: str, entries: Sequence[Entry]) -> None:
    junit_cases(path, suite, [(e.name, e.message if e.status in (FAIL, ERROR) else None, e.reproduce) for e in entries],
          errors=frozenset(e.name for e in entries if e.status == ERROR),
          skipped={e.name: e.message for e in entries if e.status == SKIP})


def _uri(location: str) -> str:
    """A location relative to the working directory (the checkout, in CI) when it is inside it, else a file URI."""
    p = Path(location).resolve()
    try:
        rel = os.path.relpath(p, Path.cwd())
    except ValueError:  # another drive
        return p.as_uri()
    return p.as_uri() if rel.startswith("..") else Path(rel).as_posix()


def sarif(tool_command: str, entries: Sequence[Entry]) -> dict[str, Any]:
    """The SARIF 2.1.0 log of ``entries`` (passing ones are left out: a log lists results, not tests)."""
    from ptofuzz import __version__

    shown = [e for e in entries if e.status != PASS]
    rules = sorted({e.rule for e in shown})
    results = []
    for e in shown:
        result: dict[str, Any] = {
            "ruleId": e.rule, "ruleIndex": rules.index(e.rule), "level": LEVELS[e.status],
            "message": {"text": f"{e.message}\nreproduce: {e.reproduce}"},
            "partialFingerprints": {FINGERPRINT: hashlib.sha256(e.key.encode()).hexdigest()[:32]},
            "properties": {"signature": e.key, "status": e.status, "reproduce": e.reproduce},
        }
        if e.location:
            result["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": _uri(e.location)}}}]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA, "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "ptofuzz", "version": __version__, "semanticVersion": __version__,
                "rules": [{"id": r, "name": r.replace("-", " ").title().replace(" ", ""),
                           "shortDescription": {"text": f"oracles disagree: {r}"}} for r in rules]}},
            "invocations": [{"executionSuccessful": True, "commandLine": tool_command}],
            "results": results,
        }],
    }


def write_sarif(path: str | Path, tool_command: str, entries: Sequence[Entry]) -> None:
    write_file(Path(path), json.dumps(sarif(tool_command, entries), indent=1) + "\n")


def export(entries: Sequence[Entry], suite: str, command: str, *, junit: str | Path | None = None,
           sarif: str | Path | None = None) -> None:
    """Write whichever of the JUnit and SARIF files are asked for."""
    if junit is not None:
        write_junit(junit, suite, entries)
    if sarif is not None:
        write_sarif(sarif, command, entries)


def checked_junit(path: str | Path, verdicts: Sequence[Any]) -> None:
    """``check --junit``: a test per case folder; one that could not be read is an error, not a failure."""
    junit_cases(path, "ptofuzz check", [(v.name, None if v.verdict in (PASS, SKIP) else
                                         v.message or failure_summary(v), v.reproduce) for v in verdicts],
                errors=frozenset(v.name for v in verdicts if v.verdict == ERROR),
                skipped={v.name: v.message for v in verdicts if v.verdict == SKIP})


def diffs_junit(path: str | Path, results: Sequence[Any]) -> None:
    """``diff --junit``: a test per compared pair of tiles."""
    junit_cases(path, "ptofuzz diff", [(r.label, None if r.comparison.ok else
                                        f"{r.comparison.mismatches} of {r.comparison.checked} elements differ",
                                        r.reproduce) for r in results])
