"""TQUANT to HiFloat4 (a6, ``docs/isa/TQUANT_HIF4.md``): BF16 source, on raw bits. What the page defines exactly
is pinned; the rest is open.

Roles (a6 cases only; :func:`ptofuzz.instructions.quant.derive_hif4`): ``src`` (bfloat16, rows x cols, cols a
multiple of 64), ``max4`` and ``max8`` (bfloat16, rows x cols/4 and rows x cols/8), ``ea`` (rows x cols/32 bytes),
``eb`` (rows x cols/64), ``ec`` (rows x cols/32), ``exp_cube`` (rows x cols/16), ``packed`` (rows x cols/2: the
e1m2 codes two a byte) and ``scale4`` (bfloat16, rows x cols/2): the files of pto-isa's a6 test, one element of a
role per element of its file.

Pinned, ``EXACT`` (TQUANT_HIF4.md section 1.3, and 2.1, where stage 1 reduces the BF16 source to its maxima per
64, 8 and 4, group i of 4 holding elements 4i..4i+3 of the contiguous source): ``Mc = max |x|`` over each group
of 4 consecutive elements and ``Mb`` over each group of 8, as BF16 (the maximum of BF16 magnitudes is one of
them: no rounding). ``|x|`` is IEEE 754's abs, the sign bit cleared: ``-0`` gives ``+0`` and ``-inf`` gives
``+inf``. In the file, group by group in source order (a row of ``cols`` elements holds whole groups).
Open, ``undefined``:

- a group holding a NaN: the page's ``max(|x|)`` names no NaN rule (IEEE 754 has both a NaN-propagating maximum
  and a NaN-ignoring maxNum), nor which NaN of several or its payload;
- a group whose maximum is subnormal: hardware may flush denormals to zero (type-system.md, "NaN and Inf
  Behavior"); a subnormal that is not the maximum changes nothing;
- ``ea``, ``eb``, ``ec``, ``exp_cube``, ``packed`` and ``scale4``, every element. The shared exponent Ea is
  defined twice and the two disagree: section 1.3 ``Ea = clamp(floor(log2(Ma)) + 38, 0, 63)``, an integer;
  sections 2.2 and 2.5 a round-to-nearest conversion of Ma to an 8-bit e6m2 value whose bias, range and
  special values the page never gives (2.5 only says the offset 38 lives in that bias, and calls Ea a rounded
  log2 of Ma). Eb, Ec, the scale and the e1m2 codes all derive from Ea. Section 3 also gives other layouts than
  the test's files: Ea one byte per block of 64 (the file holds 2), the scale one per group of 4 (the file holds
  each twice), no bit order for the packed Eb and Ec bits, no nibble order for the codes (section 2.4 says four a
  byte, section 3 two); and section 2.3 says the golden does not produce the cube layout of ``exp_cube`` at all.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.oracles import mx

HIF4 = "float4_e1m2"  # a HiFloat4 case's `to`: its data elements are e1m2 codes (TQUANT_HIF4.md 1.2)
BLOCK = 64  # the elements of one Ea (TQUANT_HIF4.md 1.1)
MAG = 0x7FFF  # a BF16's magnitude bits
INF = 0x7F80
MIN_NORMAL = 0x0080
#: role -> (elements of the source per element of the role's file, carrier type): rows x cols / k
ROLES: dict[str, tuple[int, type[np.generic]]] = {
    "max4": (4, np.uint16), "max8": (8, np.uint16), "ea": (32, np.uint8), "eb": (64, np.uint8),
    "ec": (32, np.uint8), "exp_cube": (16, np.uint8), "packed": (2, np.uint8), "scale4": (2, np.uint16)}

_EA = ("the shared exponent Ea, defined twice (TQUANT_HIF4.md 1.3: clamp(floor(log2(Ma)) + 38, 0, 63); 2.2 and 2.5: "
       "a round-to-nearest e6m2 value of Ma, e6m2 never defined)")
#: why each role's elements are open (the manifest's ``expected.open``, by role): the maxima in part, the rest whole
OPEN: dict[str, str] = {
    "max4": "a group holding a NaN (TQUANT_HIF4.md 1.3's max(|x|) has no NaN rule) or whose maximum is subnormal "
            "(flushed or not: type-system.md, NaN and Inf Behavior)",
    "max8": "as max4's, per 8",
    "ea": f"every element: {_EA}; section 3 gives one byte a block where the file holds two",
    "eb": f"every element: Eb compares Mb with {_EA}; section 3 gives no bit order",
    "ec": f"every element: Ec compares Mc with {_EA}; section 3 gives no bit order",
    "exp_cube": "every element: the cube layout of Ea, Eb and Ec, which section 2.3 says the golden does not produce",
    "packed": f"every element: the e1m2 codes of x times a scale from {_EA}; sections 2.4 and 3 disagree on the "
              "codes a byte and give no nibble order",
    "scale4": f"every element: 2^-(Ea + Eb + Ec) from {_EA}; section 3 gives it per 4, the file twice each",
}


def group_max(bits: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(BF16 bits of max |x| over each group of ``k`` consecutive elements of the last axis, whether the page
    defines it): ``bits`` (..., rows, cols) with ``cols`` a multiple of ``k``. Below NaN, BF16 magnitudes order
    as their 15-bit integers, so the maximum is an integer maximum of the sign-cleared bits."""
    mag = (np.asarray(bits).astype(np.uint16) & MAG).reshape(*bits.shape[:-1], bits.shape[-1] // k, k)
    m = mag.max(axis=-1)
    nan = m > INF  # the largest magnitude is a NaN's exactly when the group holds one
    defined = ~nan & ((m == 0) | (m >= MIN_NORMAL))
    return np.where(defined, m, 0).astype(np.uint16), defined


def quantize(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The HiF4 outcome: every role the instruction declares (undefined: an a6 case writes none of them) and the
    HiF4 roles, the maxima pinned."""
    rows, cols = case.tile("src").valid
    if cols % BLOCK:
        return Outcome.unsupported(f"HiFloat4 quantizes whole blocks of {BLOCK} elements (TQUANT_HIF4.md 1.1); "
                                   f"a row of {cols} holds no whole number of them")
    src = np.asarray(inputs["src"])
    lead = src.shape[:-2]
    outcome = Outcome(OutcomeKind.OK, outputs={}, classes={}, extra={"open": dict(OPEN)})
    roles: dict[str, tuple[int, type[np.generic]]] = {role: (0, dt) for role, dt in mx.ROLE_TYPES.items()}
    roles.update({"max_dn": (0, np.uint16), **ROLES})  # k = 0: a role no a6 file holds
    for role, (k, dt) in roles.items():
        t = case.tile(role)
        outcome.outputs[role] = np.zeros((*lead, *t.shape), dtype=np.dtype(dt))
        outcome.classes[role] = np.full((*lead, *t.shape), UNDEFINED, dtype=np.uint8)
        if k in (4, 8):
            m, defined = group_max(src[..., :rows, :cols], k)
            outcome.outputs[role][..., :rows, :cols // k] = m
            outcome.classes[role][..., :rows, :cols // k] = np.where(defined, np.uint8(EXACT), np.uint8(UNDEFINED))
    return outcome
