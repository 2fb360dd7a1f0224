"""TQUANT's microscaling (MX) forms, ND grouping: MXFP8 (E4M3 elements) and MXFP4 (E2M1 elements), each with
E8M0 shared exponents, on raw bits.

Roles: ``src`` (float32, bfloat16 or float16: the case's dtype; MXFP4 takes FP16 and BF16 only, TQUANT.md:116),
``dst`` (the element codes, one a byte), ``packed`` (MXFP4: two codes a byte, element ``2i`` in the low nibble,
rows x ceil(cols / 2): the tests' file), ``exp`` (E8M0 codes, one per group: rows x G, G = ceil(cols / 32)),
``scaling`` (float32 per group) and ``index`` (uint16, NZ folders' gather indices). Params: ``to``
(float8_e4m3 or float4_e2m1), ``nv`` (1: the NV scale algorithm, else OCP) and ``nz`` (1: the files in the
cube's layouts: E4M3 data NZ ``[G, rows, 32]``, exponents ZZ ``[rows/16, G/2, 16, 2]``).

``documented`` (A5; TQUANT.md:16-31 and 155-163): groups of 32 consecutive columns of the valid region,
zero-padded to whole groups (TQUANT.md:141). Stage 1, ``m = max |x|`` over the group; stage 2, the shared exponent
``s = biasedExp(m) - emax`` as an E8M0 code, ``emax`` "the max destination exponent" (TQUANT.md:28: E4M3's 8,
and E2M1's 2, where the page's parenthesis says 1: its own definition decides, E2M1's largest value being
1.5 * 2^2) and the scaling ``2^(254 - s)``, which ptofuzz reads as the E8M0 code ``254 - s`` (the value
``2^(127 - s)``, the reciprocal of the shared scale ``2^(s - 127)``: the literal power overflows every FP
type); stage 3, ``clip(x * scaling, -Vmax, Vmax)`` (448 for E4M3, 6 for E2M1) cast to the element format "with
stochastic rounding". What that leaves open, ``undefined``:

- the cast of a value the format does not hold (stochastic rounding picks either neighbour): only exactly
  representable products (and the clipped +-Vmax) are defined, their sign included; a packed byte is defined
  when both its codes are;
- a group holding a NaN (its maximum), and one whose ``s`` is no E8M0 code (``biasedExp(m) < 8``: a zero, tiny or
  FP32-subnormal maximum), with its elements; ``biasedExp`` is read as the FP32 (E8M0, bias 127) exponent of the
  value (the page upcasts BF16/FP16 to FP32; FP16's own field would give a meaningless scale); an infinite
  maximum's is 255;
- a NaN element;
- the NV algorithm: the page names it (TQUANT.md:13, 55) but gives only the one exponent rule: every NV element
  and exponent;
- ``scaling`` and ``index``: the page calls the scaling tile scratch; the gather indices are no TQUANT output;
- A5 flushes denormals (type-system.md): an element whose source is subnormal in its own format.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core import nibbles
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import get
from ptofuzz.oracles import convert, ieee

GROUP = 32
F32 = get("float32")
#: element format -> (emax, Vmax, the source types it takes)
FORMATS = {"float8_e4m3": (8, 448.0, ("float32", "bfloat16", "float16")),
           "float4_e2m1": (2, 6.0, ("bfloat16", "float16"))}
SOURCES = ("float32", "bfloat16", "float16")


def groups(cols: int) -> int:
    return -(-cols // GROUP)


def shared_exponents(x: np.ndarray, emax: int) -> tuple[np.ndarray, np.ndarray]:
    """(E8M0 code ``biasedExp(max |x|) - emax`` of each group of the last axis (padded to whole groups with zeros),
    whether the page defines it) of float64 values ``x`` (..., rows, cols)."""
    cols = x.shape[-1]
    g = groups(cols)
    padded = np.zeros((*x.shape[:-1], g * GROUP))
    padded[..., :cols] = x
    grouped = padded.reshape(*x.shape[:-1], g, GROUP)
    has_nan = np.isnan(grouped).any(axis=-1)
    with np.errstate(invalid="ignore"):
        m = np.nanmax(np.abs(np.where(np.isnan(grouped), 0.0, grouped)), axis=-1)
    _, e = np.frexp(np.where(np.isfinite(m), m, 1.0))
    biased = np.where(np.isinf(m), 255, np.where(m >= 2.0 ** -126, e - 1 + 127, 0))
    s = biased - emax
    return np.clip(s, 0, 254).astype(np.int64), ~has_nan & (s >= 0)


def quantize(case: Case, inputs: Mapping[str, np.ndarray], npu: bool = True) -> Outcome:
    fmt = get(case.param("to"))
    emax, vmax, sources = FORMATS[fmt.name]
    src_dt = get(case.dtype)
    if src_dt.name not in sources:
        return Outcome.unsupported(f"TQUANT to {fmt.name} quantizes {' or '.join(sources)} (TQUANT.md:116 and 157-160)")
    d = case.tile("dst")
    rows, cols = d.valid
    g = groups(cols)
    bits = np.asarray(inputs["src"])[..., :rows, :cols]
    lead = bits.shape[:-2]
    with np.errstate(invalid="ignore"):
        x = ieee.to_float64(bits, src_dt)
    s, s_defined = shared_exponents(x, emax)
    per_col = np.arange(cols) // GROUP
    alpha = np.ldexp(1.0, (127 - s)[..., per_col].astype(np.int32))
    with np.errstate(all="ignore"):
        v = np.clip(x * alpha, -vmax, vmax)
        v32 = v.astype(np.float32)
    codes, status = convert.convert(v32.view(np.uint32), F32, fmt, convert.RNE)
    defined = (status == convert.EXACT_RESULT) & (v32.astype(np.float64) == v) & s_defined[..., per_col]
    if npu:
        defined &= ~ieee.is_subnormal(bits, src_dt)
    exp_defined = s_defined
    if case.param("nv"):
        defined = np.zeros_like(defined)
        exp_defined = np.zeros_like(exp_defined)
    dst = np.zeros((*lead, *d.shape), dtype=np.uint8)
    dcls = np.full((*lead, *d.shape), UNDEFINED, dtype=np.uint8)
    ecls = np.where(exp_defined, np.uint8(EXACT), np.uint8(UNDEFINED))
    dvals = np.where(defined, codes, 0).astype(np.uint8)
    cls = np.where(defined, np.uint8(EXACT), np.uint8(UNDEFINED))
    evals = np.where(exp_defined, s, 0).astype(np.uint8)
    if case.param("nz"):  # the cube's layouts, each as a rows x cols (rows x G) array in file order
        dvals, cls = (a.reshape(*lead, rows, g, GROUP).swapaxes(-3, -2).reshape(*lead, rows, cols)
                      for a in (dvals, cls))
        evals, ecls = (a.reshape(*lead, rows // 16, 16, g // 2, 2).swapaxes(-3, -2).reshape(*lead, rows, g)
                       for a in (evals, ecls))
    dst[..., :rows, :cols], dcls[..., :rows, :cols] = dvals, cls
    outputs = {"dst": dst}
    classes = {"dst": dcls}
    t = case.tile("packed")
    outputs["packed"] = np.zeros((*lead, *t.shape), dtype=np.uint8)
    classes["packed"] = np.full((*lead, *t.shape), UNDEFINED, dtype=np.uint8)
    if fmt.bits == 4:
        half = nibbles.pack(cls == UNDEFINED)  # a byte with an open nibble is open
        outputs["packed"][..., :rows, :half.shape[-1]] = nibbles.pack(dvals)
        classes["packed"][..., :rows, :half.shape[-1]] = np.where(half == 0, np.uint8(EXACT), np.uint8(UNDEFINED))
    for role, dt, values, vcls in (("exp", np.uint8, evals, ecls),
                                   ("scaling", np.uint32, np.ldexp(1.0, 127 - s).astype(np.float32).view(np.uint32),
                                    None)):
        t = case.tile(role)
        out = np.zeros((*lead, *t.shape), dtype=dt)
        c = np.full((*lead, *t.shape), UNDEFINED, dtype=np.uint8)
        out[..., :rows, :g] = values
        if vcls is not None:
            c[..., :rows, :g] = vcls
        outputs[role], classes[role] = out, c
    t = case.tile("index")
    outputs["index"] = np.zeros((*lead, *t.shape), dtype=np.uint16)
    classes["index"] = np.full((*lead, *t.shape), UNDEFINED, dtype=np.uint8)
    return Outcome(OutcomeKind.OK, outputs=outputs, classes=classes)
