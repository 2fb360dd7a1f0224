"""Draw versions: what a seed draws is recorded wherever a seed is, a version-1 seed or record still reproduces
what ptofuzz wrote before version 2 (through numpy's PCG64, imported only then), an unknown version is refused
in one line, and the bytes ``gen`` writes are pinned, so that any change in drawing shows here."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ptofuzz import api
from ptofuzz.core.errors import CaseFolderError, UsageError
from ptofuzz.engine import campaign
from ptofuzz.engine.replay import replay
from ptofuzz.instructions import registry
from ptofuzz.io import records

ROOT = Path(__file__).resolve().parents[2]
OLD_RECORDS = ROOT / "tests" / "data" / "draw-v1"  # corpus records as version 1 wrote them (no inputs.draw.version)

# (op, platform, seed, --random): canonical lists and random cases, the special pools (TPARTADD floats), the
# conversion boundary pool (TCVT), the sorts' redraws (TSORT32, TMRGSORT)
CALLS = [("tpartadd", "a5", 0, None), ("tpartadd", "a5", 3, 5), ("tcvt", "cpu", 2, 4), ("tsort32", "a5", 1, 3),
         ("tmrgsort", "a5", 1, 3)]

# sha256 of every file gen writes (ptofuzz.json less its "generator") with draw version 2
VERSION2 = ["5ec24df25f8f70bac909cb682e119ac6c944875d90e59bf027b63b8f1cf3fa48",
            "c4188a31410ea0622a004214e37d8570ca6671c9408acf4bbb4658b271037382",
            "62259cfe54c0216c17357d523282b9ec937cbcf1ef967750d79b87a115839285",
            "5c8aa88d44c1d8ee50342fd60695a7eeed2b2c8303b12a91fec12a1fe86847da",
            "c55a705c231b40e719b0204bf41834334fa46c906d8f921a82997224687d7fd4"]
# the same less "draw_version" and "replay" as well, as ptofuzz wrote it before draw versions (commit 68d47f8,
# numpy 2.4): version 1 must keep writing exactly this
VERSION1 = ["7a631fc002e6fd84b2ff448e01d440ec8b1ced0cb6743891c91f61f57842c4fc",
            "7b22b5870a5e32be183d56b130c287dcccf11f480662431d55fa480e5911b7b6",
            "f8735c5d8f99e7e5d172f98b3a0a9b84759eafa0dcbe3ed65b0bf8a17bad92d7",
            "f36a3bac3d8ec5b3684f074712ab48c9a37e82e111a548a094e7f0e10ad0006f",
            "3d02f265328edf621ba8bfd07956a323884b049ae112c4e7b47915eeba7dfcdd"]


def digest(out: Path, drop: tuple[str, ...]) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.name == "ptofuzz.json":
            manifest = json.loads(data)
            for k in drop:
                manifest.pop(k, None)
            data = json.dumps(manifest, sort_keys=True).encode()
        h.update(str(path.relative_to(out)).encode() + b"\0" + data + b"\0")
    return h.hexdigest()


@pytest.mark.parametrize("call,want", list(zip(CALLS, VERSION2)), ids=[f"{c[0]}-{c[1]}-{c[3]}" for c in CALLS])
def test_gen_writes_the_pinned_bytes(tmp_path, call, want):
    op, platform, seed, random = call
    api.generate(op, platform, tmp_path, seed=seed, random=random)
    assert digest(tmp_path, ("generator",)) == want
    manifests = [json.loads(p.read_text()) for p in tmp_path.glob("*/ptofuzz.json")]
    assert manifests and all(m["draw_version"] == 2 and "--draw-version" not in m["replay"] for m in manifests)


@pytest.mark.parametrize("call,want", list(zip(CALLS, VERSION1)), ids=[f"{c[0]}-{c[1]}-{c[3]}" for c in CALLS])
def test_draw_version_1_writes_what_ptofuzz_wrote_before_versions(tmp_path, call, want):
    op, platform, seed, random = call
    result = api.generate(op, platform, tmp_path, seed=seed, random=random, draw_version=1)
    assert result.draw_version == 1
    assert digest(tmp_path, ("generator", "draw_version", "replay")) == want
    for c in result.cases:
        m = json.loads((c.path / "ptofuzz.json").read_text())
        assert m["draw_version"] == 1 and m["replay"].endswith(" --draw-version 1")


def test_the_gen_command_takes_and_reports_the_version(cli, tmp_path):
    res = cli("gen", "tpartadd", "--platform", "a5", "--random", "2", "--draw-version", "1", "-o", str(tmp_path))
    assert res.code == 0 and res.out.splitlines()[-1].endswith("(seed 0, draw version 1)")
    res = cli("gen", "tpartadd", "--platform", "a5", "--draw-version", "3", "-o", str(tmp_path / "x"))
    assert res.code == 2 and "--draw-version 3" in res.err and len(res.err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_campaigns_and_their_findings_record_the_version(tmp_path):
    for version in (1, 2):
        plan = campaign.make_plan("tpartadd", ["spec", "cpu"], seed=1, draw_version=version)
        out = tmp_path / f"v{version}"
        campaign.run_random(plan, runs=3000, out=out)
        summary = json.loads((out / "campaign.json").read_text())
        assert summary["draw_version"] == version
        assert ("--draw-version 1" in summary["command"]) == (version == 1)
        found = [json.loads(p.read_text()) for p in out.glob("*/record.json")]
        assert found and all(f["finding"]["draw_version"] == version and f["finding"]["seed"] == 1 for f in found)
    with pytest.raises(UsageError, match="--draw-version 0"):
        campaign.make_plan("tpartadd", ["spec", "cpu"], draw_version=0)


def test_the_fuzz_command_takes_and_reports_the_version(cli):
    res = cli("fuzz", "tpartadd", "--oracles", "spec,cpu", "--runs", "2000", "--draw-version", "1")
    assert res.code == 0 and "; seed 0, draw version 1 (random engine)" in res.out
    res = cli("fuzz", "tpartadd", "--oracles", "spec,cpu", "--runs", "2000")
    assert res.code == 0 and "; seed 0 (random engine)" in res.out
    res = cli("fuzz", "tpartadd", "--engine", "atheris", "--time", "1", "--draw-version", "1")
    assert res.code == 2 and "drop --draw-version" in res.err


def test_the_versions_draw_different_cases():
    one, two = (campaign.make_plan("tpartadd", ["spec", "cpu"], seed=5, draw_version=v) for v in (1, 2))
    inst = registry.get("tpartadd")
    assert [campaign.batch_geometry(inst, one, k)[0] for k in range(4)] != \
        [campaign.batch_geometry(inst, two, k)[0] for k in range(4)]


def test_old_records_replay_through_version_1():
    results = replay([OLD_RECORDS])
    assert len(results) == 4 and all(r.verdict == "same" for r in results), [r.changes for r in results]


def test_an_old_record_read_as_version_2_gets_other_values(tmp_path):
    """The version decides the values: the same record marked version 2 draws others, which replay reports."""
    for path in OLD_RECORDS.glob("*.json"):
        data = json.loads(path.read_text())
        old = records.read(path).inputs
        data["inputs"]["draw"]["version"] = 2
        (tmp_path / path.name).write_text(json.dumps(data))
        new = records.read(tmp_path / path.name).inputs
        assert any((old[r] != new[r]).any() for r in old), path.name
    assert all(r.verdict == "changed" for r in replay([tmp_path]))


@pytest.mark.parametrize("version,needle", [(3, "draw version 3 is newer than this ptofuzz, which draws 1 or 2: "
                                                   "upgrade ptofuzz"),
                                            ("2", "draw version '2' is no draw version"),
                                            (0, "draw version 0 is no draw version")])
def test_a_record_of_a_version_this_ptofuzz_lacks_is_refused_in_one_line(tmp_path, version, needle):
    data = json.loads((OLD_RECORDS / "TCVTTest.case1.json").read_text())
    data["inputs"]["draw"]["version"] = version
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CaseFolderError) as e:
        records.read(path)
    assert needle in str(e.value) and "cannot be drawn again" in str(e.value) and "\n" not in str(e.value)
    (verdict,) = replay([path])
    assert verdict.verdict == "error"


def test_the_corpora_say_their_version():
    data = json.loads((ROOT / "corpora" / "tcvt" / "pto-isa" / "TCVTTest.case1.json").read_text())
    assert data["inputs"]["draw"]["version"] == 2


def test_only_the_legacy_module_touches_numpy_random():
    """Every draw goes through a Source: numpy's generators appear in generators/legacy.py (version 1) alone."""
    import ast

    users = []
    for folder in ("ptofuzz", "generators", "oracles"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == ROOT / "generators" / "legacy.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Attribute) and node.attr == "random" and \
                        isinstance(node.value, ast.Name) and node.value.id in ("np", "numpy"):
                    users.append(f"{path.relative_to(ROOT)}:{node.lineno}")
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) else [])
                    if any(n and n.startswith("numpy.random") for n in names) or \
                            (isinstance(node, ast.ImportFrom) and node.module == "numpy" and
                             any(a.name == "random" for a in node.names)):
                        users.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert users == []


PROBE = r"""
import sys, tempfile
import numpy
before = "numpy.random" in sys.modules
from ptofuzz import api
from ptofuzz.io import records
out = tempfile.mkdtemp()
api.generate("tpartadd", "a5", out)
api.generate("tcvt", "cpu", out + "/r", random=3, seed=1)
records.read(__import__("pathlib").Path(sys.argv[1]))
after_v2 = "numpy.random" in sys.modules
records.read(__import__("pathlib").Path(sys.argv[2]))
print(before, after_v2, "numpy.random" in sys.modules)
"""


def test_numpy_random_is_imported_only_for_version_1(tmp_path):
    v2 = ROOT / "corpora" / "tcvt" / "pto-isa" / "TCVTTest.case1.json"
    v1 = OLD_RECORDS / "TCVTTest.case1.json"
    res = subprocess.run([sys.executable, "-c", PROBE, str(v2), str(v1)], capture_output=True, text=True,
                         cwd=tmp_path, check=False)
    assert res.returncode == 0, res.stderr
    before, after_v2, after_v1 = res.stdout.split()
    if before == "True":
        pytest.skip("this numpy imports numpy.random itself (numpy 1.x)")
    assert (after_v2, after_v1) == ("False", "True")
