"""Two 4-bit elements to a byte and back.

ptofuzz holds a 4-bit element (FP4 E2M1 and E1M2, int4) in a byte of its own, in the low nibble. Packed storage
(pto-spec's ``E2M1X2``, ``E1M2X2`` and ``S4X2``: two logical lanes to a byte; pto-isa's ``float4_e2m1x2_t``, and
A2/A3's ``int4b_t`` tiles) puts element ``2i`` in the low nibble and element ``2i + 1`` in the high nibble of byte
``i``. Packing runs along the last axis (a row); an odd count leaves the last byte's high nibble 0.
"""

from __future__ import annotations

import numpy as np


def pack(codes: np.ndarray) -> np.ndarray:
    """The elements of ``codes`` (uint8, one 4-bit code each, along the last axis) two to a byte."""
    codes = np.asarray(codes, dtype=np.uint8) & np.uint8(0xF)
    cols = codes.shape[-1]
    if cols % 2:
        codes = np.concatenate([codes, np.zeros((*codes.shape[:-1], 1), dtype=np.uint8)], axis=-1)
    out: np.ndarray = codes[..., 0::2] | (codes[..., 1::2] << np.uint8(4))
    return out


def unpack(packed: np.ndarray, count: int | None = None) -> np.ndarray:
    """The 4-bit codes of ``packed`` bytes (along the last axis), one a byte; the first ``count`` of each row
    (default: two per byte)."""
    packed = np.asarray(packed, dtype=np.uint8)
    out = np.empty((*packed.shape[:-1], packed.shape[-1] * 2), dtype=np.uint8)
    out[..., 0::2] = packed & np.uint8(0xF)
    out[..., 1::2] = packed >> np.uint8(4)
    if count is not None:
        if not 0 <= count <= out.shape[-1]:
            raise ValueError(f"{count} elements do not fit {packed.shape[-1]} packed bytes")
        out = out[..., :count]
    return out
