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


#: roles only the MX forms write, with their carrier types (``max_dn``: the source's)
ROLE_TYPES: dict[str, type[np.generic]] = {
    "dst": np.uint8, "packed": np.uint8, "exp": np.uint8, "scaling": np.uint32, "index": np.uint16,
    "exp_dn": np.uint8, "exp_il": np.uint8, "exp_zz": np.uint8, "nz": np.uint8, "nz4": np.uint8}


def nz_bytes(b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A byte matrix (..., R, W) and its classes in the NZ order ``[ceil(W/32), roundup(R, 16), 32]`` (TMOV
    ND->NZ, TQUANT.md:149), as (..., roundup(R, 16), 32 * ceil(W/32)); the padding undefined."""
    r, w = b.shape[-2:]
    pm, g = -(-r // 16) * 16, -(-w // GROUP)
    vals = np.zeros((*b.shape[:-2], pm, g * GROUP), dtype=np.uint8)
    cls = np.full(vals.shape, UNDEFINED, dtype=np.uint8)
    vals[..., :r, :w], cls[..., :r, :w] = b, c
    order = [np.moveaxis(a.reshape(*a.shape[:-1], g, GROUP), -2, -3).reshape(a.shape) for a in (vals, cls)]
    return order[0], order[1]


def quantize(case: Case, inputs: Mapping[str, np.ndarray], npu: bool = True) -> Outcome:
    fmt = get(case.param("to"))
    emax, vmax, sources = FORMATS[fmt.name]
    src_dt = get(case.dtype)
    if src_dt.name not in sources:
        return Outcome.unsupported(f"TQUANT to {fmt.name} quantizes {' or '.join(sources)} (TQUANT.md:116 and 157-160)")
    dn = bool(case.param("dn"))
    d = case.tile("dst")
    rows, cols = d.valid
    bits = np.asarray(inputs["src"])[..., :rows, :cols]
    lead = bits.shape[:-2]
    with np.errstate(invalid="ignore"):
        x = ieee.to_float64(bits, src_dt)
    if dn:  # groups of 32 rows of a column (TQUANT_DN.md): exponents hat_M x N
        s, s_defined = (a.swapaxes(-1, -2) for a in shared_exponents(x.swapaxes(-1, -2), emax))
        s_el, sd_el = (a[..., np.arange(rows) // GROUP, :] for a in (s, s_defined))
    else:
        s, s_defined = shared_exponents(x, emax)
        s_el, sd_el = (a[..., np.arange(cols) // GROUP] for a in (s, s_defined))
    alpha = np.ldexp(1.0, (127 - s_el).astype(np.int32))
    with np.errstate(all="ignore"):
        v = np.clip(x * alpha, -vmax, vmax)
        v32 = v.astype(np.float32)
    codes, status = convert.convert(v32.view(np.uint32), F32, fmt, convert.RNE)
    defined = (status == convert.EXACT_RESULT) & (v32.astype(np.float64) == v) & sd_el
    if npu:
        defined &= ~ieee.is_subnormal(bits, src_dt)
    exp_defined = s_defined
    if case.param("nv"):
        defined = np.zeros_like(defined)
        exp_defined = np.zeros_like(exp_defined)
    outputs: dict[str, np.ndarray] = {}
    classes: dict[str, np.ndarray] = {}
    types: dict[str, np.dtype] = {role: np.dtype(dt) for role, dt in ROLE_TYPES.items()}
    types["max_dn"] = np.dtype(src_dt.bits_dtype)
    for role, dt in types.items():
        t = case.tile(role)
        outputs[role] = np.zeros((*lead, *t.shape), dtype=dt)
        classes[role] = np.full((*lead, *t.shape), UNDEFINED, dtype=np.uint8)

    def put(role: str, values: np.ndarray, cls: np.ndarray) -> None:
        r, c = values.shape[-2:]
        outputs[role][..., :r, :c], classes[role][..., :r, :c] = values, cls

    ecls = np.where(exp_defined, np.uint8(EXACT), np.uint8(UNDEFINED))
    dvals = np.where(defined, codes, 0).astype(np.uint8)
    cls = np.where(defined, np.uint8(EXACT), np.uint8(UNDEFINED))
    evals = np.where(exp_defined, s, 0).astype(np.uint8)
    packed = pcls = None
    if fmt.bits == 4:
        half = nibbles.pack(cls == UNDEFINED)  # a byte with an open nibble is open
        packed, pcls = nibbles.pack(dvals), np.where(half == 0, np.uint8(EXACT), np.uint8(UNDEFINED))
        put("packed", packed, pcls)
    if dn:
        put("dst", dvals, cls)
        put("exp_dn", evals, ecls)
        hat = evals.shape[-2]
        pairs = -(-hat // 2)
        il = np.zeros((*lead, pairs * 2, cols), dtype=np.uint8)
        ilc = np.full(il.shape, EXACT, dtype=np.uint8)  # a missing last group: zero (TQUANT_DN.md:98)
        il[..., :hat, :], ilc[..., :hat, :] = evals, ecls
        put("exp_il", *(np.moveaxis(a.reshape(*lead, pairs, 2, cols), -2, -1).reshape(*lead, pairs, 2 * cols)
                        for a in (il, ilc)))
        if hat % 2 == 0 and cols % 16 == 0:  # E_ZZ[cb, p, q, d] = E_DN[2p + d, 16 cb + q] (TQUANT_DN.md:148)
            put("exp_zz", *(a.reshape(*lead, hat // 2, 2, cols // 16, 16).transpose(
                *range(len(lead)), -2, -4, -1, -3).reshape(*lead, hat, cols) for a in (evals, ecls)))
        if packed is not None and pcls is not None:
            put("nz4", *nz_bytes(packed, pcls))
        else:
            put("nz", *nz_bytes(dvals, cls))
        return Outcome(OutcomeKind.OK, outputs=outputs, classes=classes)
    g = groups(cols)
    if case.param("nz"):  # the cube's layouts, each as a rows x cols (rows x G) array in file order
        dvals, cls = (a.reshape(*lead, rows, g, GROUP).swapaxes(-3, -2).reshape(*lead, rows, cols)
                      for a in (dvals, cls))
        evals, ecls = (a.reshape(*lead, rows // 16, 16, g // 2, 2).swapaxes(-3, -2).reshape(*lead, rows, g)
                       for a in (evals, ecls))
    put("dst", dvals, cls)
    put("exp", evals, ecls)
    outputs["scaling"][..., :rows, :g] = np.ldexp(1.0, 127 - s).astype(np.float32).view(np.uint32)
    return Outcome(OutcomeKind.OK, outputs=outputs, classes=classes)
