"""TCVT's models: pto-spec's rules (ADR 0047, the hardware profile) and pto-isa's pages, hand-worked; what each
leaves open is classed and nothing next to it; the documented difference excuses its pair only."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ptofuzz.core.case import EXACT, NAN, UNDEFINED, Case, Tile
from ptofuzz.core.signature import Signature
from ptofuzz.instructions import registry

TCVT = registry.get("TCVT")


def f32(*xs: float) -> np.ndarray:
    return np.array([xs], dtype=np.float32).view(np.uint32)


def run(platform, src, dst, bits, rmode=1, sat=None):
    """The first row's valid elements of a 1x128 tile (a legal pto-spec descriptor of every type here)."""
    n = bits.shape[1]
    tile = Tile(1, 128, 1, n)
    case = Case("TCVT", platform, src, (("dst", tile), ("src", tile)), (("to", dst), ("rmode", rmode), ("sat", sat)))
    padded = np.zeros((1, 128), dtype=bits.dtype)
    padded[:, :n] = bits
    out = TCVT.evaluate(case, {"src": padded})
    assert out.kind == "ok", out.reason
    assert (out.classes["dst"][0, n:] == UNDEFINED).all()  # nothing outside the valid region
    return out.outputs["dst"][0, :n].tolist(), out.classes["dst"][0, :n].tolist()


I32 = lambda v: v & 0xFFFFFFFF  # noqa: E731


@pytest.mark.parametrize(("rmode", "want"), [(0, 2), (1, 2), (2, 3), (3, 2), (4, 3), (5, 2), (6, 3)])
def test_spec_rounds_2_5_to_int32_in_each_mode(rmode, want):
    """CAST_NONE from a float to an integer is toward zero (ADR 0047); CAST_ROUND ties away; CAST_ODD to odd."""
    assert run("spec", "float32", "int32", f32(2.5, -2.5), rmode)[0] == [want, I32(-want if rmode != 3 and rmode != 4
                                                                                 else {3: -3, 4: -2}[rmode])]


def test_spec_ranges_follow_the_hardware_profile_and_class_what_adr_0090_leaves_open():
    vals = f32(float("nan"), float("inf"), float("-inf"), 3e9, 7.0)
    off, off_cls = run("spec", "float32", "int32", vals, 1, 1)
    assert off[:3] == [0x80000000] * 3 and off[4] == 7  # invalid: the indefinite value (signed minimum)
    assert off_cls == [EXACT, EXACT, EXACT, UNDEFINED, EXACT]  # finite past the range, unsaturated: open
    on, on_cls = run("spec", "float32", "int32", vals, 1, 0)
    assert on == [0, 0x7FFFFFFF, 0x80000000, 0x7FFFFFFF, 7] and on_cls == [EXACT] * 5
    u8, _ = run("spec", "float32", "uint8", f32(float("-inf"), float("nan")), 1, 1)
    assert u8 == [0xFF, 0xFF]  # unsigned: the maximum
    nan16, cls16 = run("spec", "float32", "float16", np.array([[0xFF800001, 0x7F800000]], np.uint32), 1, 0)
    assert nan16[0] == 0x7E00 and cls16 == [EXACT, UNDEFINED]  # the canonical NaN; saturated infinity: open
    same, _ = run("spec", "float32", "float32", f32(2.5, -0.75))
    assert same == f32(2.5, -0.75)[0].tolist()  # the identity


def test_pages_none_mode_inexact_is_open_and_exact_is_not():
    got, cls = run("cpu", "float32", "int32", f32(2.5, 7.0, -3.0), 0)
    assert got[1:] == [7, I32(-3)] and cls == [UNDEFINED, EXACT, EXACT]


def test_pages_saturation_on_clamps_off_and_default_leave_range_results_open():
    vals = f32(3e9, -3e9, float("inf"), float("nan"), 5.0)
    on, on_cls = run("cpu", "float32", "int32", vals, 1, 0)
    assert on[:3] == [0x7FFFFFFF, 0x80000000, 0x7FFFFFFF] and on[4] == 5
    assert on_cls == [EXACT, EXACT, EXACT, UNDEFINED, EXACT]  # NaN to an integer: no page says
    for sat in (1, None):
        _, cls = run("cpu", "float32", "int32", vals, 1, sat)
        assert cls == [UNDEFINED, UNDEFINED, UNDEFINED, UNDEFINED, EXACT]
    # a float destination: IEEE 754 overflow unsaturated, the largest finite saturated, default open; NaN is a NaN
    big = f32(1e6, float("nan"), 1.5)
    assert run("cpu", "float32", "float16", big, 1, 1) == ([0x7C00, 0x7E00, 0x3E00], [EXACT, NAN, EXACT])
    assert run("cpu", "float32", "float16", big, 1, 0)[0][0] == 0x7BFF
    assert run("cpu", "float32", "float16", big, 1, None)[1] == [UNDEFINED, NAN, EXACT]


def test_pages_f32_to_f32_is_round_only():
    vals = f32(2.5, -2.5, 3.7, -0.25, 1e30)
    assert run("a5", "float32", "float32", vals, 1)[0] == f32(2.0, -2.0, 4.0, -0.0, 1e30)[0].tolist()
    assert run("a5", "float32", "float32", vals, 2)[0] == f32(3.0, -3.0, 4.0, -0.0, 1e30)[0].tolist()
    assert run("a5", "float32", "float32", vals, 3)[0] == f32(2.0, -3.0, 3.0, -1.0, 1e30)[0].tolist()


def test_subnormals_are_open_on_the_npus_only():
    sub = np.array([[0x00000001, 0x3F800000]], np.uint32)  # the smallest float32 subnormal, 1.0
    assert run("a5", "float32", "float16", sub, 1, 1)[1] == [UNDEFINED, EXACT]
    assert run("cpu", "float32", "float16", sub, 1, 1) == ([0x0000, 0x3C00], [EXACT, EXACT])
    tiny = np.array([[0x0001, 0x3C00]], np.uint16)  # float16 subnormal -> float32: a normal, exact
    assert run("a2a3", "float16", "float32", tiny, 1)[1] == [UNDEFINED, EXACT]
    assert run("cpu", "float16", "float32", tiny, 1) == ([0x33800000, 0x3F800000], [EXACT, EXACT])


def test_pairs_per_platform():
    tile = Tile(1, 16, 1, 16)
    case = Case("TCVT", "a2a3", "bfloat16", (("dst", tile), ("src", tile)), (("to", "float16"), ("rmode", 1)))
    assert TCVT.evaluate(case, {"src": np.zeros((1, 16), np.uint16)}).kind == "unsupported"
    a5 = TCVT.evaluate(case.on("a5"), {"src": np.full((1, 16), 0x3F80, np.uint16)})
    assert (a5.classes["dst"] == UNDEFINED).all()  # TCVT.md converts, type-system.md reinterprets: open
    assert TCVT.evaluate(case.on("spec").replace(tiles=((
        "dst", Tile(1, 64, 1, 16)), ("src", Tile(1, 64, 1, 16)))), {"src": np.zeros((1, 64), np.uint16)}).kind == "ok"


def test_the_round_only_difference_excuses_float32_to_float32_against_spec_only():
    key = "TCVT/float/a5~spec/ulp-1/round-only/float32>float32"
    assert "round-only" in (TCVT.known_difference(Signature.from_key(key)) or "")
    assert TCVT.known_difference(Signature.from_key(key.replace("round-only", "convert"))) is None
    assert TCVT.known_difference(Signature.from_key(key.replace("a5~spec", "a5~cpu"))) is None
    tile = Tile(1, 16, 1, 16)
    case = Case("TCVT", "a5", "float32", (("dst", tile), ("src", tile)), (("to", "float32"), ("rmode", 1)))
    names, codes = TCVT.regions(case, "dst")
    assert {names[c] for c in codes.ravel()} == {"round-only"}
    names, codes = TCVT.regions(case.replace(params=(("to", "float16"), ("rmode", 1))), "dst")
    assert {names[c] for c in codes.ravel()} == {"convert"}


def test_gen_check_and_bad_flags(cli, tmp_path):
    r = cli("gen", "tcvt", "--platform", "cpu", "--dtype", "float32", "--to", "int16", "--rmode", "2", "--sat", "on",
            "--dst", "4x16", "-o", tmp_path / "c", "--json")
    assert r.code == 0, r
    folder = next((tmp_path / "c").iterdir())
    assert sorted(p.name for p in folder.glob("*.bin")) == ["golden.bin", "x1_gm.bin"]
    assert (folder / "golden.bin").stat().st_size == 4 * 16 * 2 and (folder / "x1_gm.bin").stat().st_size == 4 * 16 * 4
    assert cli("check", tmp_path / "c", "--json").code == 0
    bad = cli("gen", "tcvt", "--platform", "a2a3", "--dtype", "bfloat16", "--to", "float16", "-o", tmp_path / "d")
    assert bad.code != 0 and "does not convert bfloat16 to float16" in bad.out + bad.err and "Traceback" not in bad.err
    bad = cli("gen", "tcvt", "--platform", "cpu", "--sat", "maybe", "-o", tmp_path / "e")
    assert bad.code != 0 and "--sat maybe" in bad.out + bad.err
    r = cli("fuzz", "tcvt", "--runs", "3000", "--batch", "64", "--seed", "1", "--json")
    assert r.code == 0, r
    assert all(not s["new"] for s in json.loads(r.out)["signatures"])


# ---- the 8-bit floats (TCVT.md's A5 column; pto-spec every pair) ------------------------------------------------

def test_fp8_pairs_are_a5_and_kirin_dev_only():
    from ptofuzz.instructions import conversion as inst

    for p in ("a5", "kirinDev0000"):
        assert set(inst.destinations(p, "float32")) >= {"float8_e4m3", "float8_e5m2", "hifloat8"}
        assert "hifloat8" in inst.destinations(p, "float16")
        assert "float8_e4m3" not in inst.destinations(p, "float16")  # TCVT.md: FP16 to FP8 not on A5
        assert all(inst.destinations(p, s) == ("float32",) for s in ("float8_e4m3", "float8_e5m2", "hifloat8"))
        assert inst.destinations(p, "float32")[-3:] == ("float8_e4m3", "float8_e5m2", "hifloat8")  # appended
    for p in ("a2a3", "kirin9030", "cpu"):  # the cpu's wait for its simulator's kernels
        assert not {"float8_e4m3", "float8_e5m2", "hifloat8"} & set(inst.destinations(p, "float32"))
    assert inst.SPELLING["hifloat8"] == "h8" and inst.SPELLING["float8_e4m3"] == "fp8_e4m3"


def u8(*codes: int) -> np.ndarray:
    return np.array([codes], dtype=np.uint8)


@pytest.mark.parametrize("platform", ("a5", "kirinDev0000", "spec"))
def test_8_bit_floats_to_float32_are_exact(platform):
    bits, cls = run(platform, "hifloat8", "float32", u8(0x18, 0x0A, 0x6E, 0xEF, 0x00, 0x80), 1, 1)
    assert bits[:5] == f32(0.5, 1.25, 32768.0, float("-inf"), 0.0)[0].tolist()
    assert cls == [EXACT] * 5 + ([EXACT] if platform == "spec" else [NAN])
    # the form without a saturation: an infinity clamps with it on, stays with it off: open on the pages
    assert run(platform, "hifloat8", "float32", u8(0xEF, 0x6E))[1] == [EXACT if platform == "spec" else UNDEFINED,
                                                                      EXACT]
    if platform == "spec":
        assert bits[5] == 0x7FC00000  # the canonical NaN
    bits, cls = run(platform, "float8_e4m3", "float32", u8(0x7E, 0xFE, 0x80, 0x7F))
    assert bits[:3] == f32(448.0, -448.0, -0.0)[0].tolist() and cls[:3] == [EXACT] * 3
    bits, _ = run(platform, "float8_e5m2", "float32", u8(0x7B, 0x7C, 0x01))
    assert bits == f32(57344.0, float("inf"), 2.0 ** -16)[0].tolist()


def test_float32_to_e4m3_rounds_in_the_mode_and_its_missing_infinity_is_open():
    vals = f32(1.9375, 448.0, 464.0, 465.0, 1e9, float("inf"), float("nan"), 1.0625)
    bits, cls = run("a5", "float32", "float8_e4m3", vals, 1, 1)  # CAST_RINT, saturation off
    # 1.9375 -> 2.0 (0x40); 464 ties to 448 (even); 465, 1e9 and +inf would be +inf: E4M3 has none, open
    assert [bits[i] for i in (0, 1, 2, 7)] == [0x40, 0x7E, 0x7E, 0x38]
    assert cls == [EXACT, EXACT, EXACT, UNDEFINED, UNDEFINED, UNDEFINED, NAN, EXACT]
    # toward zero the overflow is the largest finite value: IEEE 754's, exact; so is CAST_ROUND's tie away
    bits, cls = run("a5", "float32", "float8_e4m3", f32(1e9, -1e9, 1.0625), 5, 1)
    assert bits == [0x7E, 0xFE, 0x38] and cls == [EXACT] * 3
    assert run("a5", "float32", "float8_e4m3", f32(1.0625), 2, 1)[0] == [0x39]
    # saturation on: clamped to +-448, infinities too
    bits, cls = run("a5", "float32", "float8_e4m3", f32(1e9, float("-inf"), 0.001), 1, 0)
    assert bits == [0x7E, 0xFE, 0x01] and cls == [EXACT, EXACT, UNDEFINED]  # 2**-9 a subnormal: NPU-open
    assert run("spec", "float32", "float8_e4m3", f32(0.001), 1, 0) == ([0x01], [EXACT])  # the spec keeps it
    # the spec: the same open overflow; saturated infinity open (ADR 0090); NaN the canonical 0x7F
    bits, cls = run("spec", "float32", "float8_e4m3", f32(1e9, 464.0, float("nan")), 1, 1)
    assert bits[1:] == [0x7E, 0x7F] and cls == [UNDEFINED, EXACT, EXACT]
    assert run("spec", "float32", "float8_e4m3", f32(1e9, float("inf")), 1, 0)[1] == [EXACT, UNDEFINED]


def test_float32_to_e5m2_overflows_as_ieee():
    bits, cls = run("a5", "float32", "float8_e5m2", f32(57344.0, 61440.0, 61439.0, -1e6), 1, 1)
    assert bits == [0x7B, 0x7C, 0x7B, 0xFC] and cls == [EXACT] * 4  # the tie to even is +inf
    bits, cls = run("a5", "float32", "float8_e5m2", f32(1e6, float("-inf")), 1, 0)
    assert bits == [0x7B, 0xFB] and cls == [EXACT] * 2
    assert run("a5", "float32", "float8_e5m2", f32(1e6), 1)[1] == [UNDEFINED]  # default saturation: open


@pytest.mark.parametrize("src", ("float32", "float16"))
def test_to_hifloat8_its_overflow_threshold_is_open_to_nearest(src):
    dt = np.float32 if src == "float32" else np.float16
    raw = "<u4" if src == "float32" else "<u2"

    def vals(*xs):
        return np.array([xs], dtype=dt).view(raw)

    x = vals(0.5, 1.25, 32768.0, 36864.0, 40960.0, 45056.0, 49152.0, 60000.0, float("nan"), -1e-30 if src ==
             "float32" else -0.0)
    bits, cls = run("a5", src, "hifloat8", x, 1, 1)
    assert bits[:3] == [0x18, 0x0A, 0x6E] and bits[6:9] == [0x6F, 0x6F, 0x80] and bits[9] == 0x00
    assert cls[:3] == [EXACT] * 3 and cls[3:6] == [UNDEFINED] * 3 and cls[6:8] == [EXACT] * 2 and cls[8] == NAN
    assert cls[9] == EXACT  # a negative value rounding to zero: HiFloat8's one zero, 0x00
    bits, cls = run("a5", src, "hifloat8", x, 2, 1)  # CAST_ROUND: the same band open
    assert cls[3:6] == [UNDEFINED] * 3 and cls[2] == cls[6] == EXACT
    bits, cls = run("a5", src, "hifloat8", x, 5, 1)  # toward zero: 32768, exact
    assert bits[3:8] == [0x6E] * 5 and cls[3:8] == [EXACT] * 5
    bits, cls = run("a5", src, "hifloat8", x, 4, 1)  # toward +inf: past 32768 is +inf
    assert bits[3:8] == [0x6F] * 5 and cls[3:8] == [EXACT] * 5
    bits, cls = run("a5", src, "hifloat8", x, 1, 0)  # saturated: 32768 either way
    assert bits[3:8] == [0x6E] * 5 and cls[3:8] == [EXACT] * 5
    bits, cls = run("spec", src, "hifloat8", x, 1, 1)
    assert cls[3:6] == [UNDEFINED] * 3 and cls[6] == EXACT and bits[8] == 0x80


def test_random_8_bit_cases_run_everywhere():
    from ptofuzz.generators import values
    from ptofuzz.generators.stream import Stream

    for p in ("a5", "kirinDev0000", "spec"):
        for src, dst in (("float32", "hifloat8"), ("float8_e4m3", "float32"), ("hifloat8", "float32"),
                         ("float32", "float8_e5m2")):
            case = TCVT.random_case(Stream(5), p, {"dtype": src, "to": dst})
            inputs = TCVT.draw_inputs(Stream(6), case, values.ValueMix(0.2))
            out = TCVT.evaluate(case, inputs)
            assert out.kind in ("ok", "fault"), (p, src, dst, out.reason)


def test_shared_work_gives_each_platform_its_own_outcome_computed_once(monkeypatch):
    """Inside the instruction's shared context the conversion core runs once per batch piece, pair and
    direction for all platforms; every platform's outputs and classes are those it gets alone."""
    from ptofuzz.generators import values
    from ptofuzz.generators.stream import Stream
    from ptofuzz.oracles import conversion as model
    from ptofuzz.oracles import convert as cv

    source = Stream(9)
    case = TCVT.random_case(source, "cpu", {"dtype": "float32", "to": "int16", "shape": (4, 64)})
    batch = TCVT.draw_batch(source, case, values.ValueMix(0.2), 300)["src"]
    alone = {p: TCVT.evaluate(case.on(p), {"src": batch}) for p in ("spec", "cpu", "a5", "a2a3")}
    calls = []
    monkeypatch.setattr(cv, "decode", lambda *a, _d=cv.decode: calls.append(1) or _d(*a))
    with TCVT.sharing([]):
        together = {p: TCVT.evaluate(case.on(p), {"src": batch}) for p in alone}
    for p, out in alone.items():
        assert np.array_equal(out.outputs["dst"], together[p].outputs["dst"]), p
        assert np.array_equal(out.classes["dst"], together[p].classes["dst"]), p
    rows, cols = case.tile("dst").valid
    pieces = -(-300 // max(1, model.CHUNK // max(rows * cols, 1)))
    assert pieces > 1 and len(calls) == pieces  # one conversion per piece for the four platforms


# ---- the 4-bit types (TCVT.md: A2A3's FP16 to and from S4, A5's BF16 to and from FP4_E1M2X2 and FP4_E2M1X2) ---

def bf16(*xs: float) -> np.ndarray:
    import ml_dtypes

    return np.array([xs], dtype=np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)


def half(*xs: float) -> np.ndarray:
    return np.array([xs], dtype=np.float16).view(np.uint16)


E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)  # the codes 0..7; 8..15 the same negated
E1M2 = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75)
NAN_, INF = float("nan"), float("inf")


def test_4_bit_pairs_are_a2a3_s_and_a5_s_only():
    from ptofuzz.instructions import conversion as inst

    assert inst.destinations("a2a3", "float16")[-1] == "int4" and inst.destinations("a2a3", "int4") == ("float16",)
    assert inst.destinations("a5", "bfloat16")[-2:] == ("float4_e1m2", "float4_e2m1")
    assert inst.destinations("a5", "float4_e1m2") == inst.destinations("a5", "float4_e2m1") == ("bfloat16",)
    for p in ("cpu", "kirin9030", "kirinDev0000", "a5"):
        assert "int4" not in inst.destinations(p, "float16")
        assert inst.destinations(p, "int4") == (("float32",) if p == "cpu" else ())  # the cpu's own test's pair
    for p in ("cpu", "kirin9030", "kirinDev0000", "a2a3"):
        assert not {"float4_e1m2", "float4_e2m1"} & set(inst.destinations(p, "bfloat16"))
    tile = Tile(1, 64, 1, 64)
    case = Case("TCVT", "kirinDev0000", "bfloat16", (("dst", tile), ("src", tile)), (("to", "float4_e2m1"),
                                                                                     ("rmode", 1)))
    assert TCVT.evaluate(case, {"src": np.zeros((1, 64), np.uint16)}).kind == "unsupported"
    assert TCVT.evaluate(case.on("a5"), {"src": np.zeros((1, 64), np.uint16)}).kind == "ok"


def test_bf16_to_e2m1_rounds_in_the_mode_and_what_has_no_infinity_is_open():
    """Ties to even (0.25 to 0, 0.75 to 1, 2.5 to 2, 5 to 4, -1.25 to -1); 6.5 to 6 (inexact, in range); 7 ties to
    8, past the largest: with the default saturation (on and off differ) and off toward the infinity, open;
    saturation on clamps to +-6 (infinities too); a NaN has no FP4 to become: open whatever the saturation."""
    x = bf16(0.25, 0.75, 2.5, 5.0, -1.25, 6.5, 7.0, 9.0, -9.0, NAN_, -INF)
    got, cls = run("a5", "bfloat16", "float4_e2m1", x, 1)
    assert got[:6] == [0x0, 0x2, 0x4, 0x6, 0xA, 0x7] and cls[:6] == [EXACT] * 6
    assert cls[6:] == [UNDEFINED] * 5
    got, cls = run("a5", "bfloat16", "float4_e2m1", x, 1, 0)
    assert got[:9] == [0x0, 0x2, 0x4, 0x6, 0xA, 0x7, 0x7, 0x7, 0xF] and got[10] == 0xF
    assert cls == [EXACT] * 9 + [UNDEFINED, EXACT]
    got, cls = run("a5", "bfloat16", "float4_e2m1", x, 5, 1)  # toward zero: the largest finite, IEEE's too
    assert got[5:9] == [0x7, 0x7, 0x7, 0xF] and cls[5:9] == [EXACT] * 4 and cls[9:] == [UNDEFINED] * 2
    got, cls = run("a5", "bfloat16", "float4_e2m1", x, 4, 1)  # toward +inf: 9 would be +inf, -9 is -6
    assert cls[7:9] == [UNDEFINED, EXACT] and got[8] == 0xF


def test_bf16_to_e1m2_and_its_small_values_are_no_subnormals():
    """E1M2 in steps of 0.25 up to 1.75: 0.3 to 0.25, 1.7 and 1.8 to 1.75, 1.875 ties to 2 (past the largest:
    open), -0.125 ties to -0; pto-spec's E1M2X2 has no subnormals, so 0.25 is exact on the NPUs (which flush
    denormals)."""
    got, cls = run("a5", "bfloat16", "float4_e1m2", bf16(0.3, 1.7, 1.8, 1.875, -0.125, 0.25, -0.75), 1)
    assert got[:3] == [0x1, 0x7, 0x7] and got[4:] == [0x8, 0x1, 0xB]
    assert cls == [EXACT, EXACT, EXACT, UNDEFINED, EXACT, EXACT, EXACT]


@pytest.mark.parametrize(("fmt", "grid"), [("float4_e2m1", E2M1), ("float4_e1m2", E1M2)])
def test_fp4_to_bf16_is_exact_for_every_code(fmt, grid):
    got, cls = run("a5", fmt, "bfloat16", np.arange(16, dtype=np.uint8)[None, :], 1)
    assert got == bf16(*grid, *(-v for v in grid))[0].tolist() and cls == [EXACT] * 16
    assert got[8] == 0x8000  # -0


def test_fp16_to_int4_and_back():
    """CAST_RINT to int4 (range -8..7): -8.4 to -8, -8.5 ties to -8, -1 to 0xF; 7.5 rounds to 8 and 8 is 8: past
    the range, open with the default saturation, clamped to 7 with it on; a NaN to an integer: open. int4 to fp16
    is exact for each of the 16 codes, in CAST_NONE too."""
    x = half(-8.4, -8.5, -1.0, 7.4, 7.5, 8.0, NAN_)
    got, cls = run("a2a3", "float16", "int4", x, 1)
    assert got[:4] == [0x8, 0x8, 0xF, 0x7] and cls == [EXACT] * 4 + [UNDEFINED] * 3
    got, cls = run("a2a3", "float16", "int4", x, 1, 0)
    assert got[:6] == [0x8, 0x8, 0xF, 0x7, 0x7, 0x7] and cls == [EXACT] * 6 + [UNDEFINED]
    got, cls = run("a2a3", "int4", "float16", np.arange(16, dtype=np.uint8)[None, :], 0)
    assert got == half(*range(8), *range(-8, 0))[0].tolist() and cls == [EXACT] * 16


def test_spec_converts_the_4_bit_pairs_and_no_dtype_fault_is_excused():
    """pto-spec converts to and from its S4X2, E2M1X2 and E1M2X2 lanes: a bf16 to FP4 case on a legal FP4 tile
    (1x256 lanes: 128 bytes) rounds as the pages do; a 1x128 FP4 tile (64 bytes) is no legal descriptor; and a
    spec fault on a type is no known difference."""
    tile = Tile(1, 256, 1, 4)
    case = Case("TCVT", "spec", "bfloat16", (("dst", tile), ("src", tile)), (("to", "float4_e2m1"), ("rmode", 1)))
    src = np.zeros((1, 256), np.uint16)
    src[0, :4] = bf16(0.25, 0.75, 5.0, -1.25)[0]
    got = TCVT.evaluate(case, {"src": src})
    assert got.kind == "ok" and got.outputs["dst"][0, :4].tolist() == [0x0, 0x2, 0x6, 0xA]
    small = case.replace(tiles=(("dst", Tile(1, 128, 1, 4)), ("src", Tile(1, 128, 1, 4))))
    assert TCVT.evaluate(small, {"src": src[:, :128]}).kind == "fault"
    key = "TCVT/float/a5~spec/fault-vs-value/-/dtype"
    assert TCVT.known_difference(Signature.from_key(key)) is None
