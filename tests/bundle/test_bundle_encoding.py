"""Bundle command words: worked encodings (decoded against pto-spec's ``spec/catalog/command-forms.json``, as in
docs/reference/bundles.md), exact round trips, decode-time faults, assembler errors that point at the token."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ptofuzz.bundle import asm
from ptofuzz.bundle import encoding as enc

WORKED = [
    (0x0EC19181, "BSTART.SFU TSORT, FP32"),
    (0x01000043, "B.DIM zero, 16, ->LB0"),
    (0x00010013, "B.IOR a0"),
    (0x0200DE13, "B.IOT M#1, mask=1111, ->T<SizeCode 1>"),
    (0x0008EE93, "B.IOT mask=1111, <last>, ->U<SizeCode 1>"),
    (0x00000001, "BSTOP"),
    (0x0F119181, "BSTART.SFU TPARTADD, FP32"),
    (0x97119181, "BSTART.SFU TPARTADD, S16"),
]


@pytest.mark.parametrize("word, text", WORKED)
def test_worked_encodings_assemble_and_disassemble(word, text):
    assert asm.assemble(text) == [word]
    assert asm.disassemble([word]) == [text]


def test_the_tsort_bundle_in_one_line_and_its_aliases():
    src = ("BSTART.SFU TSORT, FP32; B.DIM LB0=16; B.IOR a0; B.IOT M#1, mask=1111, ->T<SizeCode 1>  # values\n"
           "B.IOT mask=1111, <last>, ->U<SizeCode 1>  // indices\nBSTOP")
    assert asm.assemble(src) == [w for w, _ in WORKED[:6]]
    assert asm.assemble("BSTART.TEPL 3, 12, FP32") == [0x0EC19181]  # compatibility spelling: Mode 3, Function 12
    assert asm.assemble("BSTART.SFU TSORT, FP16; BSTART.SFU TSORT, BF16") == [0x26C19181, 0x2EC19181]


def test_the_tepl_engines_split_31_vec_and_56_sfu_as_the_catalog_says():
    # the catalog and pto-spec's tests: 31 VEC + 56 SFU (pto-spec's README says 35/52, stale)
    engines = list(enc.ENGINE.values())
    assert (engines.count("VEC"), engines.count("SFU"), len(enc.SELECTORS)) == (31, 56, 87)
    assert enc.ENGINE["TSORT"] == enc.ENGINE["TPARTADD"] == "SFU" and enc.ENGINE["TADD"] == "VEC"


def test_field_domains_and_the_tepl_space():
    accepted = 0
    for sel in range(128):
        for dt in range(32):
            try:
                enc.decode(dt << 27 | sel << 20 | 0x19181)
                accepted += 1
            except enc.DecodeError:
                pass
    # pto-spec spec/evidence/pto-isa-0583-encoding-totality.json: 87 selectors x 25 DataTypes accepted
    assert accepted == 87 * 25 == 2175
    assert enc.decode(0xC6C19181).fields == {"datatype": 24, "selector": 0x6C}  # TSORT/U64 decodes
    with pytest.raises(enc.DecodeError, match=r"matches no bundle|no BSTART"):
        enc.decode(0xC2001181)  # the pre-0.58.0 TADD encoding


@pytest.mark.parametrize("word, reason", [
    (0x7EC19181, "DataType 15 is reserved"),
    (0xFEC19181, "DataType 31 is DTYPE_NONE"),
    (0x0F519181, "selector 0x75"),
    (0x00000043 | 24 << 15, "RegSrc selector 24 is reserved"),
    (0x00000013 | 25 << 15, "rs0 selector 25 is reserved"),
    (0x00005013 | 11 << 15 | 1 << 20, "SizeCode 11 is reserved"),
    (0x00006013 | 15 << 15, "SizeCode 15 is reserved"),
    (0x00004013 | 11 << 15 | 1 << 20 | 2 << 26, "SizeCode 11 is reserved"),  # two sources + destination
    (0x00001013 | 13 << 15, "B.IOS SizeCode 13 is reserved"),
    (0x00001023 | 6 << 29, "CMode 6 is reserved"),
    (0x00001023 | 2 << 7, "Layout 2 is unassigned"),
    (0x00003043, "names no loop bound"),
    (0x00002013, "funct3 2 is unassigned"),
    (0x00001181, "BSTART.MPAR"),
])
def test_decode_time_faults_say_why(word, reason):
    with pytest.raises(enc.DecodeError, match=reason) as e:
        enc.decode(word)
    assert e.value.trap == 4 and e.value.fault == "Fault_IllegalInstruction"


def test_dont_care_bits_round_trip():
    word = 0x02005E13 | 0x180  # one source, no destination, bits 8:7 set: the model ignores them
    cmd = enc.decode(word)
    assert cmd.form == "B.IOT.S" and cmd.dont_care == 0x180 and enc.encode(cmd) == word
    assert asm.assemble(asm.text(cmd)) == [word]


GPR = st.integers(0, 23)
LEGAL = {
    "BSTOP": st.fixed_dictionaries({}),
    "BSTART.TEPL": st.fixed_dictionaries({"datatype": st.sampled_from(sorted(enc.BSTART_DATATYPES)),
                                          "selector": st.sampled_from(sorted(enc.SELECTORS))}),
    "B.DIM": st.fixed_dictionaries({"lb": st.integers(0, 2), "rs": GPR, "imm": st.integers(0, (1 << 17) - 1)}),
    "B.IOR": st.fixed_dictionaries({"rd": GPR, "rs0": GPR, "rs1": GPR, "rs2": GPR}),
    "B.IOS": st.fixed_dictionaries({"tid": st.integers(0, 255), "size": st.integers(0, 12),
                                    "pemode": st.integers(0, 7)}),
    "B.IOT.SS": st.fixed_dictionaries({"src0": st.integers(0, 63), "src1": st.integers(0, 63),
                                       "last": st.integers(0, 1), "pemode": st.integers(0, 7)}),
    "B.IOT.SSD": st.fixed_dictionaries({"src0": st.integers(0, 63), "src1": st.integers(0, 63),
                                        "last": st.integers(0, 1), "size": st.integers(1, 10),
                                        "pemode": st.integers(0, 7), "dst": st.integers(0, 3)}),
    "B.IOT.S": st.fixed_dictionaries({"src0": st.integers(0, 63), "last": st.integers(0, 1),
                                      "pemode": st.integers(0, 7)}),
    "B.IOT.SD": st.fixed_dictionaries({"src0": st.integers(0, 63), "last": st.integers(0, 1),
                                       "size": st.integers(1, 10), "pemode": st.integers(0, 7),
                                       "dst": st.integers(0, 3)}),
    "B.IOT.D": st.fixed_dictionaries({"last": st.integers(0, 1), "size": st.integers(1, 10),
                                      "pemode": st.integers(0, 7), "dst": st.integers(0, 3)}),
    "B.DATR": st.fixed_dictionaries({"cmode": st.integers(0, 5), "pad": st.integers(0, 3), "sat": st.integers(0, 1),
                                     "canon": st.integers(0, 1), "datatype": st.sampled_from(sorted(enc.DATATYPES)),
                                     "rmode": st.integers(0, 7), "layout": st.sampled_from(sorted(enc.LAYOUTS))}),
}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(LEGAL)).flatmap(lambda form: st.tuples(st.just(form), LEGAL[form])))
def test_decode_encode_is_identity_on_legal_fields(form_fields):
    form, fields = form_fields
    cmd = enc.Command(form, fields)
    word = enc.encode(cmd)
    assert enc.decode(word) == cmd
    assert asm.assemble(asm.text(cmd)) == [word]  # and through the text form


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(st.integers(0, 0xFFFFFFFF))
def test_encode_decode_is_identity_on_every_word_that_decodes(word):
    try:
        cmd = enc.decode(word)
    except enc.DecodeError as e:
        assert str(e)  # always a reason
        return
    assert enc.encode(cmd) == word
    assert asm.assemble(asm.disassemble([word])[0]) == [word]


def test_every_decodable_command_space_is_exercised():
    # structured words per opcode/funct3 (random 32-bit words rarely hit some forms)
    seen = set()
    for op in (0x01, 0x13, 0x23, 0x43):
        for f3 in range(8):
            for high in range(0, 1 << 12, 37):
                word = (high << 20) | (f3 << 12) | op | ((high * 7) & 0x1F) << 15 | ((high * 13) & 0x1F) << 7
                try:
                    cmd = enc.decode(word)
                except enc.DecodeError:
                    continue
                seen.add(cmd.form)
                assert enc.encode(cmd) == word
    assert {"B.DIM", "B.IOR", "B.IOS", "B.IOT.SS", "B.IOT.SSD", "B.IOT.S", "B.IOT.SD", "B.DATR"} <= seen


@pytest.mark.parametrize("src, where, what", [
    ("BSTART.SFU TSORT, FP32\nB.IOR a9", "2:7", "unknown register"),
    ("B.IOT M#17, mask=1111", "1:7", "tile number must be 1..16"),
    ("B.IOT M#1, mask=1011", "1:12", "expected mask="),
    ("BSTART.VEC TSORT, FP32", "1:12", "runs on the SFU"),
    ("B.IOT M#1, mask=1111, ->T<SizeCode 11>", "1:23", "SizeCode 11 is outside 1..10"),
    ("  FROB 1", "1:3", "unknown command"),
    ("B.DATR cmode=XX", "1:8", "unknown cmode"),
    ("B.IOR a0,,a1", "1:10", "empty operand"),
    ("B.IOT M#1, mask=1111, mask=1000", "1:23", "mask= given twice"),
    ("BSTART.SFU TSORT, 15", "1:19", "DataType 15 is reserved"),
    ("BSTART.TEPL 0, 5, FP32", "1:16", "reserved hole"),
    ("B.DATR pad=5", "1:8", "pad 5 is reserved"),
    ("B.DIM LB0=abc", "1:11", "immediate must be a number"),
])
def test_assembler_errors_point_at_the_token(src, where, what):
    with pytest.raises(asm.AsmError) as e:
        asm.assemble(src, "k.s")
    assert str(e.value).startswith(f"k.s:{where}: ") and what in str(e.value)


def test_disassembly_of_illegal_words_says_why():
    (line,) = asm.disassemble([0xFEC19181])
    assert line.startswith(".word 0xfec19181") and "DTYPE_NONE" in line


def test_asm_and_disasm_commands(cli, tmp_path):
    src = tmp_path / "tsort.s"
    src.write_text("\n".join(t for _, t in WORKED[:6]) + "\n")
    out = tmp_path / "tsort.bin"
    res = cli("asm", src, "-o", out, "--hex")
    assert res.code == 0 and res.out.split() == [f"{w:#010x}" for w, _ in WORKED[:6]]
    assert out.read_bytes() == b"".join(w.to_bytes(4, "little") for w, _ in WORKED[:6])
    res = cli("disasm", out)
    assert res.code == 0 and res.out.splitlines() == [t for _, t in WORKED[:6]]
    assert cli("disasm", "--hex", "0x97119181").out.strip() == "BSTART.SFU TPARTADD, S16"
    again = cli("asm", src, "-o", out)
    assert again.code == 2 and "--force" in again.err  # never overwrites silently
    (tmp_path / "bad.s").write_text("BSTART.SFU TSORT, FP32\nB.DIM zero, 99999999, ->LB0\n")
    bad = cli("asm", tmp_path / "bad.s", "--hex")
    assert bad.code == 2 and "bad.s:2:" in bad.err and "99999999" in bad.err
    (tmp_path / "odd.bin").write_bytes(b"\x01\x00\x00")
    assert cli("disasm", tmp_path / "odd.bin").code == 2


def test_disasm_of_a_long_file_is_a_line_per_word_in_order(cli, tmp_path):
    # 40,003 words: several output chunks and a ragged last one; the worked words and illegal ones interleaved
    words = [WORKED[k % 6][0] if k % 3 else (0x9E3779B9 * k) & 0xFFFFFFFF for k in range(40_003)]
    (tmp_path / "long.bin").write_bytes(b"".join(w.to_bytes(4, "little") for w in words))
    lines = cli("disasm", tmp_path / "long.bin", "--show-hex").out.splitlines()
    assert len(lines) == len(words)
    assert [int(line.split()[0], 16) for line in lines] == words
    assert [line.split("  ", 1)[1] for line in lines] == asm.disassemble(words)
    assert lines[1].split("  ", 1)[1] == WORKED[1][1]
