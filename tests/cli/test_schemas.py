"""The published JSON Schemas (ptofuzz/schemas/) accept every file ptofuzz writes and reject damaged ones."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from ptofuzz import api
from ptofuzz.instructions import registry
from ptofuzz.io import validate

ROOT = Path(__file__).resolve().parents[2]
ST_KEYS = sorted(json.loads((ROOT / "tests" / "data" / "pto-isa-st-cases.json").read_text())["tests"])


def test_each_schema_is_draft_2020_12_with_an_id_and_a_version():
    for kind in validate.KINDS:
        doc = validate.schema(kind)
        assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert doc["$id"].startswith("urn:ptofuzz:schema:") and doc["$id"].endswith(":1")
    assert validate.schema("case")["properties"]["format"] == {"const": "ptofuzz-case/1"}
    assert validate.schema("record")["properties"]["format"] == {"const": "ptofuzz-record/1"}
    assert validate.schema("campaign")["properties"]["format"] == {"const": "ptofuzz-campaign/1"}


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, list[Path]]:
    """Every kind of file the commands write: case folders (each instruction's first system test, random cases
    of all (op, platform) pairs, explicit, bundles), finding records, minimized records, a record of each corpus
    and campaign summaries of both engines and shards."""
    from typer.testing import CliRunner

    from ptofuzz.cli.app import app

    base = tmp_path_factory.mktemp("written")
    # the corpora: one record each (every corpus record is read through the schema by its replay item:
    # records.read validates it)
    corpora = sorted(d for d in (ROOT / "corpora").iterdir() if d.is_dir() and any(d.glob("*/*.json")))
    run = CliRunner().invoke
    firsts = {key.split("/")[0]: key for key in reversed(ST_KEYS)}  # one system test per instruction: its first
    for key in sorted(firsts.values()):
        op, platform = key.split("/")
        api.generate(op, platform, base / "st" / key.replace("/", "-"))
    for op, inst in registry.all_instructions().items():
        for platform in inst.platforms:
            api.generate(op, platform, base / "random" / f"{op}-{platform}", random=3, seed=1)
    for op in ("tpartadd", "tpartmax", "tsort"):
        res = run(app, ["gen", op, "--platform", "spec", "--bundle", "--out", str(base / "bundle" / op)])
        assert res.exit_code == 0
    api.generate("tpartargmin", "a2a3", base / "explicit", explicit={"dtype": "float16", "index_dtype": "int16",
                                                                      "dst": (4, 40), "src0": (4, 40),
                                                                      "src1": (2, 40)})
    for op, extra in (("tpartmax", []), ("tpartargmax", ["--oracles", "cpu,a5,kirin9030"]), ("tsort32", []),
                      ("tmrgsort", []), ("tsort", ["--oracles", "spec,bundle"]),
                      ("tpartadd", ["--shard", "1/2"]), ("tpartmin", ["--engine", "atheris"])):
        runs = ["--time", "2"] if "atheris" in extra else ["--runs", "3000"]
        res = run(app, ["fuzz", op, *runs, "--seed", "4", "--out", str(base / "fuzz" / op), *extra])
        assert res.exit_code == 0, res.output
    finding = next(p for p in (base / "fuzz" / "tpartmax").iterdir() if p.is_dir())
    assert run(app, ["minimize", str(finding)]).exit_code == 0
    return {"case": sorted(base.rglob("ptofuzz.json")),
            "record": sorted(base.rglob("record.json")) + [next(d.glob("*/*.json")) for d in corpora],
            "campaign": sorted(base.rglob("campaign.json"))}


@pytest.mark.slow
def test_every_kind_of_written_file_and_a_record_of_each_corpus_validate(written):
    assert len(written["case"]) > 500 and len(written["record"]) > 80 and len(written["campaign"]) == 7
    for kind, paths in written.items():
        for path in paths:
            validate.validate(kind, json.loads(path.read_text()))
    bundles = [json.loads(p.read_text())["bundle"] for p in written["case"] if "bundle" in p.read_text()]
    assert bundles
    for b in bundles:
        validate.validate("bundle", b)


DAMAGE = {
    "case": [lambda d: d.__setitem__("format", "ptofuzz-case/2"),
             lambda d: d["tiles"]["dst"].__setitem__("shape", [4.5, 4]),
             lambda d: d["files"][0].__setitem__("name", "../golden.bin"),
             lambda d: d["files"][0].__setitem__("sha256", "zz"),
             lambda d: d["expected"].__setitem__("flags", ["XX"]),
             lambda d: d.__setitem__("op", 7),
             lambda d: d.__setitem__("params", {"x": {"nested": [1]}})],
    "record": [lambda d: d.__setitem__("format", "ptofuzz-record/0"),
               lambda d: d.__setitem__("oracles", "spec"),
               lambda d: d["inputs"].__setitem__("src0", {"hex": ["zz"]}),
               lambda d: d["inputs"].__setitem__("src0", {"file": "/etc/passwd"}),
               lambda d: d["inputs"].__setitem__("src0", {}),
               lambda d: d["tiles"]["dst"].__setitem__("valid", [1, 2, 3]),
               lambda d: d.pop("inputs")],
    "campaign": [lambda d: d.__setitem__("format", "x"),
                 lambda d: d.__setitem__("engine", "magic"),
                 lambda d: d["signatures"].append({"signature": "x"}),
                 lambda d: d.__setitem__("cases", -1),
                 lambda d: d.__setitem__("shard", "half")],
}


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_damaged_files_are_rejected_naming_the_field(written, kind):
    sample = json.loads(next(p for p in written[kind]
                             if kind != "record" or ("hex" in p.read_text() and '"finding"' in p.read_text())
                             ).read_text())
    if kind == "campaign":
        sample = next(json.loads(p.read_text()) for p in written["campaign"] if json.loads(p.read_text())["signatures"])
    validate.validate(kind, sample)
    for damage in DAMAGE[kind]:
        bad = copy.deepcopy(sample)
        damage(bad)
        with pytest.raises(ValueError, match=r"^[\w.]+|^the document"):
            validate.validate(kind, bad)
