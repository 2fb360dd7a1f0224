"""Every accepted 32-bit command form of the pto-spec 0.58.3 catalog (recorded as facts in
tests/data/pto-spec-command-forms-32.json) decodes, re-encodes to the same word, disassembles and assembles back,
and executes either as part of a TSORT/TPART* bundle or as a named unsupported operation: never as
Fault_IllegalInstruction. Field values outside a catalog domain are Fault_IllegalInstruction."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ptofuzz.bundle import asm, catalog
from ptofuzz.bundle import encoding as enc
from ptofuzz.bundle import executor as ex

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "pto-spec-command-forms-32.json").read_text())
FORMS = DATA["forms"]
WORDS_PER_FORM = 64


def _field_bits(field: dict) -> int:
    return sum(((1 << w) - 1) << lsb for lsb, w, _ in field["pieces"])


def _put(field: dict, value: int) -> int:
    width = max(at + w for _, w, at in field["pieces"])
    raw = value & ((1 << width) - 1)
    return sum(((raw >> at) & ((1 << w) - 1)) << lsb for lsb, w, at in field["pieces"])


def _words(form: dict, rng: np.random.Generator, n: int) -> list[int]:
    """Random words of the form: match bits, random free bits, a domain value in every constrained field (Mode and
    Function of BSTART.TEPL: one of the 87 selectors)."""
    mask, match = int(form["mask"], 16), int(form["match"], 16)
    out = []
    for _ in range(n):
        word = match | (int(rng.integers(0, 1 << 32)) & ~mask & 0xFFFFFFFF)
        for f in form["fields"]:
            bits = _field_bits(f)
            if bits & mask == bits:
                continue  # fixed by the match
            if f["name"] in form["domains"]:
                word = (word & ~bits) | _put(f, int(rng.choice(form["domains"][f["name"]])))
        if form["mnemonic"] == "BSTART.TEPL":
            word = (word & ~(0x7F << 20)) | int(rng.choice(sorted(enc.SELECTORS))) << 20
        out.append(word)
    return out


def _label(form: dict) -> str:
    return f"{form['mnemonic']}@{form['match']}"


def test_the_record_holds_the_catalog_s_sixty_forms_and_ptofuzz_decodes_every_one():
    assert len(FORMS) == 60
    assert len(catalog.FORMS) == 47  # the 13 others are the TSORT/TPART* forms of ptofuzz.bundle.encoding
    recorded = {(int(f["mask"], 16), int(f["match"], 16)) for f in FORMS}
    assert {(f.mask, f.match) for f in catalog.FORMS} <= recorded
    assert set(catalog.START_DATATYPES) == set(enc.BSTART_DATATYPES)


@pytest.mark.parametrize("form", FORMS, ids=_label)
def test_every_catalog_form_round_trips_through_decode_encode_and_asm(form):
    rng = np.random.default_rng(int(form["match"], 16) ^ int(form["mask"], 16))
    for word in _words(form, rng, WORDS_PER_FORM):
        cmd = enc.decode(word)
        assert cmd.form.startswith(form["mnemonic"]), (hex(word), cmd.form)
        assert enc.encode(cmd) == word, hex(word)
        text = asm.text(cmd)
        assert asm.assemble(text) == [word], (hex(word), text)
        assert asm.disassemble([word]) == [text]


@pytest.mark.parametrize("form", [f for f in FORMS if f["mnemonic"] not in
                                  ("BSTART.TEPL", "BSTOP", "B.DIM", "B.IOR", "B.IOT", "B.IOS", "B.DATR")],
                         ids=_label)
def test_a_form_the_executor_does_not_run_is_a_named_unsupported_operation(form):
    word = _words(form, np.random.default_rng(1), 1)[0]
    r = ex.execute([word], {})
    assert r.fault is None and r.outcome == "unsupported"
    assert r.blocks[-1].op == enc.decode(word).form and "does not execute" in r.blocks[-1].reason


def test_a_control_flow_start_commits_the_open_block_first():
    words = asm.assemble("BSTART.SFU TSORT, FP32; B.DIM zero, 2, ->LB0; B.IOT M#1, mask=1111, ->T<SizeCode 1>; "
                         "B.IOT mask=1111, <last>, ->U<SizeCode 1>") + [0x00000011]
    src = ex.LocalTile.of("float32", 8, 4, (1, 2), [[0x40400000, 0x3F800000]])
    r = ex.execute(words, {32: src})
    assert [b.kind for b in r.blocks] == ["ok", "unsupported"] and r.outcome == "unsupported"
    assert r.tiles[0].data[0, :2].view("<f4").tolist() == [1.0, 3.0]  # the TSORT block published
    assert asm.disassemble([0x11, 0x21, 0x211]) == ["BSTART.DIRECT simm25=0", "BSTART.COND simm25=0",
                                                    "BSTART.DIRECT simm25=4"]


@pytest.mark.parametrize("form", [f for f in FORMS if f["domains"]], ids=_label)
def test_a_field_outside_its_catalog_domain_is_an_illegal_instruction(form):
    mask = int(form["mask"], 16)
    base = _words(form, np.random.default_rng(2), 1)[0]
    checked = 0
    for f in form["fields"]:
        bits = _field_bits(f)
        width = max(at + w for _, w, at in f["pieces"])
        allowed = form["domains"].get(f["name"], range(1 << 32))
        outside = [v for v in range(min(1 << width, 1 << 12)) if v not in allowed]
        if bits & mask == bits or not outside:
            continue
        word = (base & ~bits) | _put(f, outside[0])
        try:
            cmd = enc.decode(word)
        except enc.DecodeError:
            checked += 1
            continue
        # the catalog's reviewed overlaps: B.IOT's source-only forms take SizeCode 0 of the destination forms
        assert form["mnemonic"] == "B.IOT" and f["name"] == "SizeCode" and outside[0] == 0, (hex(word), cmd)
    assert checked or form["mnemonic"] == "B.IOT"


def test_catalog_form_assembly_errors_name_the_field():
    with pytest.raises(asm.AsmError, match=r"B\.CATR has no field 'x'"):
        asm.assemble("B.CATR x=1")
    with pytest.raises(asm.AsmError, match="needs simm17="):
        asm.assemble("BSTART.STD.COND")
    with pytest.raises(asm.AsmError, match="outside its domain"):
        asm.assemble("BSTART.STD.FALL simm17=4")
    with pytest.raises(asm.AsmError, match="does not fit 17 signed bits"):
        asm.assemble("BSTART.STD.COND simm17=70000")
