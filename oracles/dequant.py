"""TDEQUANT: ``dst[i, j] = (src[i, j] - offset[i]) * scale[i]`` over the valid region, FP32, on raw bits.

Roles: ``dst`` (float32), ``src`` (int8 or int16: the case's dtype), ``scale`` and ``offset`` (float32 parameter
tiles: row ``i`` of the valid region reads their row ``i``, column ``min(j, max(1, ValidCol) - 1)``).

``documented`` (cpu and the NPUs): pto-isa's ``docs/isa/TDEQUANT.md``: the formula per element; its
implementation notes give the arithmetic: the source converted to FP32 (exact for 8- and 16-bit integers), then
``vsub`` (minus the offset) and ``vmul`` (times the scale), each an FP32 operation rounded to nearest even. A NaN
result is some NaN (``nan``: the pages fix no payload). type-system.md says A2/A3 and A5 flush denormals by
default and no more: on the NPUs an element whose difference, parameter or result is subnormal is ``undefined``.
Outside the valid region: undefined.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import EXACT, NAN, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import get
from ptofuzz.oracles import ieee

F32 = get("float32")
SOURCES = ("int8", "int16")


def parameter_columns(case: Case, cols: int) -> np.ndarray:
    """The parameter column each of ``cols`` destination columns reads: ``min(j, max(1, scale.ValidCol) - 1)``."""
    para = max(1, case.tile("scale").valid_cols)
    return np.minimum(np.arange(cols), para - 1)


def _outcome(case: Case, inputs: Mapping[str, np.ndarray], npu: bool) -> Outcome:
    d = case.tile("dst")
    rows, cols = d.valid
    src_dt = get(case.dtype)
    src = np.asarray(inputs["src"])
    lead = src.shape[:-2]
    q = src[..., :rows, :cols].view(f"<i{src_dt.itemsize}").astype(np.float32).view(np.uint32)
    pc = parameter_columns(case, cols)
    scale = np.asarray(inputs["scale"])[..., :rows, :][..., pc].astype(np.uint32)
    offset = np.asarray(inputs["offset"])[..., :rows, :][..., pc].astype(np.uint32)
    neg_offset = offset ^ np.uint32(F32.sign_mask)  # a - b as a + (-b): exact negation, also of a NaN
    diff, _, _ = ieee.add_mul_fast("add", q, neg_offset, F32)
    prod, _, nan = ieee.add_mul_fast("mul", diff, scale, F32)
    cls = np.where(nan, np.uint8(NAN), np.uint8(EXACT)).astype(np.uint8)
    if npu:
        tiny = ieee.is_subnormal(diff, F32) | ieee.is_subnormal(prod, F32) | ieee.is_subnormal(scale, F32) | \
            ieee.is_subnormal(offset, F32)
        cls = np.where(tiny, np.uint8(UNDEFINED), cls).astype(np.uint8)
    out = np.zeros((*lead, *d.shape), dtype=np.uint32)
    classes = np.full((*lead, *d.shape), UNDEFINED, dtype=np.uint8)
    out[..., :rows, :cols] = prod
    classes[..., :rows, :cols] = cls
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes})


def cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return _outcome(case, inputs, npu=False)


def npu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return _outcome(case, inputs, npu=True)
