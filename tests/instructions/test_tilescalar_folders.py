"""Tile-scalar case folders: the scalar file as each pto-isa test carries it (a 4-byte float32, or one element; a5's
64-bit cases the element), read back as the element the kernel receives; a golden computed from a scalar its
float32 file does not hold is named wrong with its reason; tmins/a2a3's TMIN folders."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ptofuzz import api
from ptofuzz.core import dtypes
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.instructions import registry
from ptofuzz.io import casefolder
from ptofuzz.oracles import ieee, integer


def _value(bits: np.ndarray, dt: dtypes.DType) -> float:
    return float(ieee.to_float64(bits, dt).ravel()[0]) if dt.is_float else int(integer.values(bits, dt).ravel()[0])


def _scalar_file(folder: Path) -> tuple[str, bytes, dict]:
    manifest = json.loads((folder / "ptofuzz.json").read_text())
    (entry,) = [f for f in manifest["files"] if f["role"] == "scalar"]
    return entry["name"], (folder / entry["name"]).read_bytes(), entry


@pytest.mark.parametrize(("op", "platform", "case", "fname", "size", "as_dtype"), [
    ("tadds", "a5", "TADDSTest.case3", "divider.bin", 4, "float32"),  # int32 in a float32
    ("tadds", "a5", "TADDSTest.case2", "divider.bin", 4, "float32"),  # float16 in a float32
    ("tadds", "a5", "TADDSTest.case_int64_4x16", "divider.bin", 8, "int64"),  # a5's 64-bit: the element
    ("tsubs", "a2a3", "TSUBSTest.case4", "scalar.bin", 4, "float32"),  # int16 in a float32, named scalar.bin
    ("tsubs", "cpu", "TSUBSTest.case_int16_64x64_64x64_64x64", "scalar.bin", 2, "int16"),  # one element
    ("tmaxs", "a5", "TMAXSTest.case_int8_32x128_32x128_32x128", "input_scalar.bin", 1, "int8"),
    ("tlrelu", "kirin9030", "TLRELUTest.case2", "divider.bin", 4, "float32"),
])
def test_the_scalar_file_is_carried_as_the_test_reads_it(op, platform, case, fname, size, as_dtype, tmp_path):
    """The file's bytes are the scalar the golden uses, written as the test's main.cpp reads it."""
    api.generate(op, platform, tmp_path)
    folder = tmp_path / case
    name, data, entry = _scalar_file(folder)
    assert (name, len(data), entry["dtype"]) == (fname, size, as_dtype)
    lc = casefolder.load(folder, None)
    element = casefolder.read_inputs(lc)["scalar"]
    dt = lc.inst.dtype_of(lc.case, "scalar")
    stored_dt = dtypes.get(entry["dtype"])
    assert _value(np.frombuffer(data, stored_dt.bits_dtype), stored_dt) == _value(element, dt)
    assert api.check([folder])[0].verdict == "pass"
    (folder / "ptofuzz.json").unlink()
    assert api.check([folder], platform)[0].verdict == "pass"


def test_a_scalar_its_float32_file_cannot_hold_is_refused_when_written(tmp_path):
    """a5's TADDS carries the scalar as a float32: an int32 scalar of 2**24 + 1 has no exact float32, so no
    folder is written with a file that would give the kernel another scalar than the golden's."""
    inst = registry.get("TADDS")
    t = Tile(1, 8, 1, 8)
    case = Case("TADDS", "a5", "int32", (("dst", t), ("src0", t), ("scalar", Tile(1, 1, 1, 1))))
    inputs = {"src0": np.zeros((1, 8), np.uint32), "scalar": np.array([[2 ** 24 + 1]], np.uint32)}
    outcome = inst.evaluate(case, inputs)
    with pytest.raises(UsageError, match=r"divider.bin cannot hold .*16777217 has no exact float32"):
        casefolder.build(inst, case, inputs, outcome, name="x", seed=0, mix=None, replay="")
    inputs["scalar"][0, 0] = 2 ** 24 + 2
    content = casefolder.build(inst, case, inputs, inst.evaluate(case, inputs), name="x", seed=0, mix=_Mix(),
                               replay="")
    assert np.frombuffer(content.files["divider.bin"], np.float32).tolist() == [2 ** 24 + 2]


class _Mix:
    def describe(self) -> dict:
        return {"rate": 0.0, "kinds": []}


def _pto_isa_style(folder: Path, scalar_in_file: float, scalar_in_golden: int) -> None:
    """Rewrite a5's TADDSTest.case3 as pto-isa's gen_data.py writes it: divider.bin the float32, golden.bin the
    sum with the integer the script drew (wrapped), no manifest."""
    (folder / "ptofuzz.json").unlink(missing_ok=True)
    (folder / "divider.bin").write_bytes(np.float32(scalar_in_file).tobytes())
    src = np.fromfile(folder / "input.bin", np.int32).reshape(31, 128)
    golden = np.zeros((31, 256), np.int32)
    with np.errstate(over="ignore"):
        golden[:, :128] = src + np.int32(scalar_in_golden)
    golden.tofile(folder / "golden.bin")


def test_check_names_a_golden_computed_before_the_float32_rounded_its_scalar(tmp_path):
    """tadds/a5 case3's script drew 678664624, whose float32 is 678664640: the kernel adds 678664640, the golden
    678664624. check fails it and says so; with the scalar the kernel receives the same folder passes."""
    api.generate("tadds", "a5", tmp_path)
    folder = tmp_path / "TADDSTest.case3"
    _pto_isa_style(folder, 678664624, 678664624)
    (v,) = api.check([folder], "a5")
    assert v.verdict == "fail" and v.message == (
        "golden.bin was computed with the scalar 678664624, but the kernel receives 678664640: the scalar file is a "
        "float32, which holds no int32 678664624 (integers of 2**24 and more lose their low bits), so the golden is "
        "wrong")
    _pto_isa_style(folder, 678664640, 678664640)
    (v,) = api.check([folder], "a5")
    assert v.verdict == "pass" and v.message == ""


def test_a_float32_file_no_integer_scalar_can_come_from_is_an_error(tmp_path):
    """A NaN, or 3e9, in an int32 test's divider.bin: the kernel's float-to-int conversion is undefined, so the
    folder cannot be checked (error, naming the file)."""
    api.generate("tadds", "a5", tmp_path)
    folder = tmp_path / "TADDSTest.case3"
    (folder / "ptofuzz.json").unlink()
    for bad in (float("nan"), 3e9):
        (folder / "divider.bin").write_bytes(np.float32(bad).tobytes())
        (v,) = api.check([folder], "a5")
        assert v.verdict == "error" and "divider.bin" in v.message and "int32" in v.message


def test_tmins_on_a2a3_writes_the_tmin_folders_its_test_reads(tmp_path):
    """Two whole tiles (input1.bin, input2.bin) and TMIN's golden: min(input1, input2) over the valid region."""
    api.generate("tmins", "a2a3", tmp_path)
    folder = tmp_path / "TMINSTest.case_int16_16x200_PAD_VALUE_MIN"
    a = np.fromfile(folder / "input1.bin", np.int16).reshape(20, 512)
    b = np.fromfile(folder / "input2.bin", np.int16).reshape(16, 256)
    g = np.fromfile(folder / "golden.bin", np.int16).reshape(16, 256)
    assert np.array_equal(g[:, :200], np.minimum(a[:16, :200], b[:, :200]))
    assert json.loads((folder / "ptofuzz.json").read_text())["params"] == {"kernel": "TMIN"}
    (folder / "ptofuzz.json").unlink()
    assert api.check([folder], "a2a3")[0].verdict == "pass"
    g[3, 7] ^= 1
    g.tofile(folder / "golden.bin")
    assert api.check([folder], "a2a3")[0].verdict == "fail"
