"""Standalone fuzz targets: one crash identity (exception type, message, top frame) per disagreement signature."""

from __future__ import annotations

import importlib.util
import traceback
from pathlib import Path

import numpy as np
import pytest

from ptofuzz.core.case import EXACT
from ptofuzz.core.records import replace
from ptofuzz.engine import crashes
from ptofuzz.instructions import registry

ROOT = Path(__file__).resolve().parents[2]


def _harness():
    spec = importlib.util.spec_from_file_location("ptofuzz_fuzz_harness", ROOT / "fuzz" / "_harness.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def _planted(mask: int):
    """TPARTADD whose a5 model flips ``mask`` in the bits of a float32 case's first destination element when
    that is a finite non-zero number: a planted bug (the low bit: ulp-1; the sign: ulp-large)."""
    inst = registry.get("TPARTADD")
    sup = inst.platforms["a5"]

    def wrong(case, inputs):  # inputs with or without a leading batch axis
        out = sup.oracle(case, inputs)
        if out.kind != "ok" or case.dtype != "float32" or 0 in case.tile("dst").valid:
            return out
        dst = out.outputs["dst"].copy()
        value = dst[..., 0, 0].view(np.float32)
        hit = np.isfinite(value) & (value != 0) & (np.broadcast_to(out.classes["dst"], dst.shape)[..., 0, 0] == EXACT)
        dst[..., 0, 0] ^= np.where(hit, np.uint32(mask), np.uint32(0))
        return replace(out, outputs={"dst": dst})

    return replace(inst, platforms={**inst.platforms, "a5": replace(sup, oracle=wrong)})


def _crashes(target, n: int = 300) -> dict[tuple[str, str], str]:
    """(exception type, top frame) -> message, over n pseudo-random fuzzer inputs."""
    rng = np.random.default_rng(5)
    seen = {}
    for _ in range(n):
        data = rng.integers(0, 256, int(rng.integers(16, 400)), dtype=np.uint8).tobytes()
        try:
            target(data)
        except crashes.Disagreement as e:
            top = traceback.extract_tb(e.__traceback__)[-1].name
            seen[type(e).__name__, top] = str(e)
    return seen


@pytest.mark.slow
def test_two_planted_disagreements_are_two_crash_identities(monkeypatch):
    monkeypatch.delenv("PTOFUZZ_ALLOW", raising=False)
    monkeypatch.delenv("PTOFUZZ_FINDINGS", raising=False)
    harness = _harness()
    low = _crashes(harness.build_target(["TPARTADD"], [_planted(0x1)]))
    sign = _crashes(harness.build_target(["TPARTADD"], [_planted(0x80000000)]))
    assert low and sign and not set(low) & set(sign)
    for found in (low, sign):
        for (kind, top), message in found.items():
            key = message.split(": ", 1)[1].split(" (", 1)[0]
            ident = crashes.identity(key)
            assert kind == f"Disagreement_{ident}" and top == f"disagree_{ident}"  # both derived from the key
            assert "a5" in key.split("/")[2] and key.split("/")[3] == ("ulp-1" if found is low else "ulp-large")
    # one signature, one identity: each (type, frame) pair carries exactly one signature key
    keys = [m.split(": ", 1)[1].split(" (", 1)[0] for m in {**low, **sign}.values()]
    assert len(set(keys)) == len(keys)


def test_the_same_signature_is_always_the_same_crash():
    key = "TPARTADD/float/a5~spec/ulp-1/op/-"
    assert crashes.exception_type(key) is crashes.exception_type(key)
    assert crashes.identity(key) == crashes.identity(key) and crashes.identity(key) != crashes.identity(
        key.replace("ulp-1", "ulp-large"))
    with pytest.raises(crashes.exception_type(key), match=r"oracles disagree: TPARTADD/float/a5~spec/ulp-1/op/-"):
        crashes.raise_disagreement(key, "float32 dst 1x1")


def test_ptofuzz_allow_still_tolerates_a_signature(monkeypatch):
    monkeypatch.setenv("PTOFUZZ_ALLOW", "a5")  # a signature part: every pair with a5
    monkeypatch.delenv("PTOFUZZ_FINDINGS", raising=False)
    harness = _harness()
    assert _crashes(harness.build_target(["TPARTADD"], [_planted(0x1)]), n=100) == {}
