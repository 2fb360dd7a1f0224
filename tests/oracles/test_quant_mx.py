"""TQUANT's MX models (docs/isa/TQUANT.md's three stages, ND groups of 32 columns): shared exponents
biasedExp(max) - emax (8 for E4M3, 2 for E2M1), hand-worked; E4M3 and E2M1 codes where the product is exact
(or clipped to 448 or 6), checked against ml_dtypes; MXFP4's packed bytes; what the page leaves open (the
stochastic cast of other values, NaN groups, exponents below E8M0's range, NV, scratch tiles, A5's subnormals) on
both sides; the NZ and ZZ file layouts; A5 only."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ptofuzz.core.case import EXACT, UNDEFINED
from ptofuzz.instructions import quant, registry

TQUANT = registry.get("TQUANT")


def run(values: np.ndarray, dtype: str = "float32", nv: bool = False, nz: bool = False, platform: str = "a5",
        to: str = quant.MXFP8, dn: bool = False):
    rows, cols = values.shape
    case = quant.make_case(platform, dtype, to, (rows, cols), nv=nv, nz=nz, dn=dn)
    if dtype == "float32":
        bits = values.astype(np.float32).view(np.uint32)
    elif dtype == "float16":
        bits = values.astype(np.float16).view(np.uint16)
    else:
        bits = values.astype(ml_dtypes.bfloat16).view(np.uint16)
    out = TQUANT.evaluate(case, {"src": bits, "scale": np.zeros((rows, 1), np.uint32),
                                 "offset": np.zeros((rows, 1), np.uint32)})
    return out


def e4m3(*xs: float) -> list[int]:
    return np.array(xs, dtype=ml_dtypes.float8_e4m3fn).view(np.uint8).tolist()


def test_hand_worked_groups_exponents_and_exact_codes():
    """Group 0: max 300 (2^8 * 1.17: biased 135), shared exponent 127, scaling 1; group 1: max 1000 (biased 136),
    exponent 128, scaling 1/2, 1000 / 2 clipped to 448."""
    x = np.zeros((1, 64))
    x[0, :7] = [1.0, 3.0, -0.5, 300.0, 0.1, 256.0, -0.0]
    x[0, 32:36] = [1000.0, -1000.0, 3.0, 0.75]
    out = run(x)
    assert out.outputs["exp"][0, :2].tolist() == [127, 128] and (out.classes["exp"][0, :2] == EXACT).all()
    dst, cls = out.outputs["dst"][0], out.classes["dst"][0]
    exact = [0, 1, 2, 5, 6, 32, 33, 34, 35]
    assert dst[exact].tolist() == e4m3(1.0, 3.0, -0.5, 256.0, -0.0, 448.0, -448.0, 1.5, 0.375)
    assert (cls[exact] == EXACT).all()
    assert cls[3] == UNDEFINED and cls[4] == UNDEFINED  # 300 and 0.1: no E4M3 value, the cast is stochastic
    assert (cls[7:32] == EXACT).all() and (dst[7:32] == 0).all()  # zeros are exact
    assert (out.classes["scaling"] == UNDEFINED).all() and (out.classes["index"] == UNDEFINED).all()


def test_nan_groups_and_exponents_below_e8m0_are_open_their_neighbours_not():
    x = np.zeros((4, 64))
    x[0, 3], x[0, 40] = np.nan, 2.0  # group 0 holds a NaN; group 1's max 2 (biased 128): exponent 120
    x[1, 0] = 2.0 ** -120  # biased exponent 7: 7 - 8 is no E8M0 code
    x[1, 32] = 2.0 ** -119  # biased 8: exponent 0, scaling 2^127: 2^8
    x[2, 0], x[2, 1], x[2, 2] = np.inf, -np.inf, 1.0  # an infinite maximum: biased 255, exponent 247
    out = run(x)
    ecls, exp = out.classes["exp"], out.outputs["exp"]
    assert ecls[0].tolist() == [UNDEFINED, EXACT] and exp[0, 1] == 120
    assert (out.classes["dst"][0, :32] == UNDEFINED).all() and out.classes["dst"][0, 40] == EXACT
    assert out.outputs["dst"][0, 40] == e4m3(2.0 * 2.0 ** 7)[0]  # 2 * 2^(127 - 120) = 256
    assert ecls[1].tolist() == [UNDEFINED, EXACT] and exp[1, 1] == 0
    assert out.outputs["dst"][1, 32] == e4m3(256.0)[0] and out.classes["dst"][1, 0] == UNDEFINED
    assert exp[2, 0] == 247 and ecls[2, 0] == EXACT
    assert out.outputs["dst"][2, :2].tolist() == e4m3(448.0, -448.0)
    assert out.classes["dst"][2, 2] == UNDEFINED and out.classes["dst"][2, 3] == EXACT  # 2^-120: open; 0: 0
    assert ecls[3].tolist() == [UNDEFINED, UNDEFINED]  # all zeros: biasedExp 0


def test_sixteen_bit_sources_take_the_fp32_exponent_and_pad_to_whole_groups():
    x = np.zeros((1, 40))
    x[0, :3] = [1.0, -0.5, 0.3]
    x[0, 32:34] = [6.0, 0.25]
    for dtype in ("float16", "bfloat16"):
        out = run(x, dtype)
        assert out.outputs["exp"][0].tolist() == [119, 121]  # biased 127 and 129, minus 8
        assert out.outputs["dst"][0, [0, 1, 32, 33]].tolist() == e4m3(256.0, -128.0, 384.0, 16.0)
        assert out.classes["dst"][0, 2] == UNDEFINED  # 0.3 (rounded to the source type) * 256: not E4M3


def e2m1(*xs: float) -> list[int]:
    return np.array(xs, dtype=ml_dtypes.float4_e2m1fn).view(np.uint8).tolist()


def test_mxfp4_takes_emax_2_and_packs_two_codes_a_byte():
    """Max 3 (biased 128): exponent 126, scaling 2: 3 -> 6, 0.25 -> 0.5, -1 -> -2, 0.3 -> 0.6 (no E2M1 value);
    a second group of max 100 (biased 133): exponent 131, scaling 2^-4: 40 -> 2.5 (open), 48 -> 3, -100 -> -6.25
    clipped to -6."""
    x = np.zeros((1, 64))
    x[0, :4] = [3.0, 0.25, -1.0, 0.3]
    x[0, 32:35] = [40.0, 48.0, -100.0]
    for dtype in ("float16", "bfloat16"):
        out = run(x, dtype, to=quant.MXFP4)
        assert out.outputs["exp"][0].tolist() == [126, 131] and (out.classes["exp"] == EXACT).all()
        dst, cls = out.outputs["dst"][0], out.classes["dst"][0]
        assert dst[[0, 1, 2, 33, 34]].tolist() == e2m1(6.0, 0.5, -2.0, 3.0, -6.0)
        assert cls[3] == UNDEFINED and cls[32] == UNDEFINED and cls[35] == EXACT
        packed, pcls = out.outputs["packed"][0], out.classes["packed"][0]
        assert packed[0] == dst[0] | dst[1] << 4 and pcls[0] == EXACT  # two exact codes
        assert pcls[1] == UNDEFINED and pcls[16] == UNDEFINED  # 0.6 and 2.5 leave their bytes open
        assert packed[17] == dst[34] | dst[35] << 4 and pcls[17] == EXACT
    assert run(x, "float32", to=quant.MXFP4).kind == "unsupported"  # TQUANT.md:116: FP16/BF16 only


def test_nv_is_open_and_mx_is_a5_only():
    x = np.ones((2, 32))
    out = run(x, nv=True)
    assert (out.classes["dst"][:, :32] == UNDEFINED).all() and (out.classes["exp"] == UNDEFINED).all()
    assert (run(x).classes["exp"] == EXACT).all()
    assert run(x, platform="a2a3").kind == "unsupported"


def test_subnormal_sources_are_open_on_a5():
    x = np.zeros((1, 32))
    x[0, 0], x[0, 1] = 2.0 ** -127, 2.0 ** -118  # an FP32 subnormal beside a normal maximum
    out = run(x)
    assert out.classes["dst"][0, 0] == UNDEFINED and out.classes["dst"][0, 1] == EXACT


def test_nz_and_zz_are_permutations_of_the_nd_files():
    rng = np.random.default_rng(3)
    x = rng.integers(-64, 64, (32, 128)) / 4.0
    nd, nz = run(x), run(x, nz=True)
    want = nd.outputs["dst"].reshape(32, 4, 32).transpose(1, 0, 2).reshape(32, 128)
    assert np.array_equal(nz.outputs["dst"], want)
    zz = nd.outputs["exp"].reshape(2, 16, 2, 2).transpose(0, 2, 1, 3).reshape(32, 4)
    assert np.array_equal(nz.outputs["exp"], zz)
    assert not np.array_equal(zz, nd.outputs["exp"])


def test_dn_groups_rows_and_lays_its_exponents_out_as_tquant_dn_md_says():
    """DN: the groups are 32 rows of a column (TQUANT_DN.md); column j's values are the ND groups' of the
    transposed tile: hat_M x N exponents, E_FLAT[p, 2c + d] = E_DN[2p + d, c] interleaved and
    E_ZZ[cb, p, q, d] = E_DN[2p + d, 16 cb + q]."""
    rng = np.random.default_rng(7)
    x = np.ldexp(rng.integers(1, 8, (128, 32)), rng.integers(-4, 8, (128, 32))).astype(np.float64)
    dn = run(x, dn=True)
    nd = run(np.ascontiguousarray(x.T))  # 32 x 128: its ND groups are DN's, transposed
    e = dn.outputs["exp_dn"]
    assert np.array_equal(e, nd.outputs["exp"].T) and (dn.classes["exp_dn"] == EXACT).all()
    assert np.array_equal(dn.outputs["dst"], nd.outputs["dst"].T)
    il = dn.outputs["exp_il"]
    assert il.shape == (2, 64) and il[1, 2 * 5 + 1] == e[3, 5] and il[0, 2 * 7] == e[0, 7]
    zz = dn.outputs["exp_zz"].reshape(2, 2, 16, 2)  # [cb, p, q, d]
    assert zz[1, 0, 3, 1] == e[1, 19] and zz[0, 1, 15, 0] == e[2, 15]
    nzb = dn.outputs["nz"].reshape(1, 128, 32)  # [ceil(32 / 32), 128, 32]
    assert np.array_equal(nzb[0], dn.outputs["dst"])
    assert (dn.classes["max_dn"] == UNDEFINED).all()
    assert (nd.classes["exp_dn"] == UNDEFINED).all() and (dn.classes["exp"] == UNDEFINED).all()


def test_gen_writes_a5_s_folders_and_check_passes_them(cli, tmp_path):
    assert cli("gen", "tquant", "--platform", "a5", "-o", tmp_path / "a").code == 0
    names = {p.name for p in (tmp_path / "a").iterdir()}
    assert len(names) == 95 and sum(n.startswith("TQUANTDNTest.") for n in names) == 6
    fp4 = tmp_path / "a" / "TQUANTTEST.case_mxfp4_e2m1_bf16_2x128_mixed_nd"
    assert {p.name: p.stat().st_size for p in fp4.glob("*.bin")} == {
        "golden_e8m0.bin": 8, "golden_fp4.bin": 128, "input.bin": 512, "scaling_e2m1.bin": 32}
    nz = tmp_path / "a" / "TQUANTTEST.case_mxfp8_fp32_64x512_nz"
    assert {p.name: p.stat().st_size for p in nz.glob("*.bin")} == {
        "golden_e8m0.bin": 1024, "golden_fp8.bin": 32768, "index_vselr_b16.bin": 1024, "input.bin": 131072,
        "scaling_e4m3.bin": 4096}
    assert cli("check", tmp_path / "a").code == 0
