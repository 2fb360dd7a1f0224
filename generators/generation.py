"""Random cases of the generation instructions (TEXPANDS, TCI, TTRI): a destination geometry and the scalar
parameters, legal on each platform.

The destination is drawn as the elementwise family's (:func:`ptofuzz.generators.elementwise.random_case` with the
one role ``dst``: a legal descriptor on spec, whole 32-byte rows elsewhere, empty regions now and then off the
spec). TCI's destination is one row (pto-isa requires ``Rows == 1``; pto-spec one valid row, in a descriptor of
as many physical rows as its capacity needs). The parameters lean on the edges:

- TCI's start: element bits with :data:`PARAM_SPECIAL_RATE` special values (extremes, so that a sequence runs off
  the type's range), or a start a few steps from an end of the range, toward it;
- TTRI's diagonal: mostly within a few rows and columns of the tile (all ones, all zeros and every split in
  between), sometimes pto-spec's bounds (+-65535, +-65536: its fault) and, off the spec, the ends of C++'s
  ``int``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ptofuzz.core import platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.dtypes import DType, get
from ptofuzz.core.layouts import spec_physical, whole_rows
from ptofuzz.generators import elementwise as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.generators.tpart import dimension
from ptofuzz.oracles.generation import DESCENDING, DIAGONAL, SPEC_DIAGONAL, START, UPPER

PARAM_SPECIAL_RATE = 0.3
NEAR_END_RATE = 0.2
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
TCI_MAX_COLS = 512


def _coin(source: Source, p: float = 0.5) -> bool:
    return float(source.random(1)[0]) < p


def start_bits(source: Source, dt: DType) -> int:
    """A TCI start: any element bits, special values often; for integers now and then a few steps from an end
    of the range."""
    if not dt.is_float and _coin(source, NEAR_END_RATE):
        steps = int(source.integers(0, 40))
        v = dt.int_max - steps if _coin(source) else dt.int_min + steps
        return v & ((1 << dt.bits) - 1)
    return int(values.draw(source, dt, (1,), PARAM_SPECIAL_RATE)[0])


def diagonal(source: Source, rows: int, cols: int, *, spec: bool) -> int:
    """A TTRI diagonal: near the tile mostly, pto-spec's bounds sometimes, ``int``'s ends off the spec."""
    roll = float(source.random(1)[0])
    if roll < 0.8:
        return int(source.integers(-rows - 2, cols + 2))
    if roll < 0.9 or spec:
        return int(source.choice((SPEC_DIAGONAL, -SPEC_DIAGONAL) if spec else
                                 (SPEC_DIAGONAL, -SPEC_DIAGONAL, SPEC_DIAGONAL + 1, -SPEC_DIAGONAL - 1)))
    return int(source.choice((INT_MIN, INT_MAX, INT_MIN + 1, INT_MAX - 1, INT_MAX - rows, INT_MIN + cols)))


def dst_case(source: Source, op: str, platform: str, dtypes: tuple[str, ...], constraints: Mapping[str, Any]
             ) -> Case:
    """The destination geometry alone (as the elementwise family draws it)."""
    return gen.random_case(source, op, platform, dtypes, constraints, ("dst",))


def tci_case(source: Source, platform: str, dtypes: tuple[str, ...], constraints: Mapping[str, Any]) -> Case:
    """A TCI case: one valid row of 1..:data:`TCI_MAX_COLS` columns (``shape`` fixes the valid region: a spec
    case of other than one row is then pto-spec's fault), a start and a direction."""
    dt = get(constraints.get("dtype") or source.choice(dtypes))
    block = gen.block(dt)
    rows, cols = constraints.get("shape") or (1, dimension(source, TCI_MAX_COLS, block))
    if platforms.get(platform).kind == platforms.SPEC:
        tile = Tile(*spec_physical(max(rows, 1), cols, dt), rows, cols)
    else:
        r, c = whole_rows(1, cols, dt)
        tile = Tile(r, c + int(source.integers(0, 2)) * block, min(rows, 1), cols)
    params = ((START, start_bits(source, dt)), (DESCENDING, int(_coin(source))))
    return Case("TCI", platform, dt.name, (("dst", tile),), params)


def ttri_case(source: Source, platform: str, dtypes: tuple[str, ...], constraints: Mapping[str, Any]) -> Case:
    """A TTRI case: the elementwise family's destination, an orientation and a diagonal."""
    c = dst_case(source, "TTRI", platform, dtypes, constraints)
    rows, cols = c.tile("dst").valid
    spec = platforms.get(platform).kind == platforms.SPEC
    return c.replace(params=((UPPER, int(_coin(source))), (DIAGONAL, diagonal(source, rows, cols, spec=spec))))


def spec_breaks(source: Source, case: Case) -> Case:
    """A spec case pto-spec rejects, from a legal one: an empty valid region, and for TCI more than one valid
    row, for TTRI a diagonal past +-65535."""
    d = case.tile("dst")
    rule = source.choice(("empty", "param"))
    if rule == "empty":
        return case.replace(tiles=(("dst", Tile(d.rows, d.cols, 0, d.valid_cols)),) + case.tiles[1:])
    if case.op == "TCI":
        rows = 2 if d.rows >= 2 else 0
        return case.replace(tiles=(("dst", Tile(d.rows, d.cols, rows, d.valid_cols)),) + case.tiles[1:])
    if case.op == "TTRI":
        big = int(source.choice((SPEC_DIAGONAL + 1, -SPEC_DIAGONAL - 1, INT_MAX, INT_MIN)))
        return case.replace(params=tuple((k, big if k == DIAGONAL else v) for k, v in case.params))
    return case.replace(tiles=(("dst", Tile(d.rows, d.cols, d.valid_rows, 0)),) + case.tiles[1:])


def scalars(source: Source, dt: DType, n: int, mix: values.ValueMix) -> np.ndarray:
    """``n`` TEXPANDS scalars as (n, 1, 1) bits, with at least :data:`PARAM_SPECIAL_RATE` special values of the
    mix's element kinds (every kind then meets the operation often)."""
    kinds = tuple(k for k in mix.kinds if k in values.ELEMENT_KINDS)
    rate = max(mix.rate, PARAM_SPECIAL_RATE) if mix.rate and kinds else 0.0
    return values.draw(source, dt, (n, 1, 1), values.ValueMix(rate, kinds))


# ---- batches: per-item parameters of one class --------------------------------------------------------------
# A batch (``Instruction.batch_params``) draws TCI's start and TTRI's diagonal per item, each from the draws above
# kept to the batch case's own class, so that every item has the case's geometry class and regions: TCI's
# sequence wraps for all items or for none, a TTRI diagonal is inside pto-spec's bound for all or for none and
# its rows reaching the end of ``int`` are the case's. Item 0 is the case's own value.

def _signed(bits: np.ndarray, dt: DType) -> np.ndarray:
    if dt.kind != "int":
        return bits
    return np.where(bits >> (dt.bits - 1) == 1, bits - (1 << dt.bits), bits)


def tci_wraps(starts: np.ndarray, dt: DType, cols: int, descending: bool) -> np.ndarray:
    """Whether a TCI sequence of ``cols`` elements from each start (bits) leaves the integer type's range."""
    last = _signed(starts, dt) + (-(cols - 1) if descending else cols - 1)
    out: np.ndarray = (last < dt.int_min) | (last > dt.int_max)
    return out


def _start_candidates(source: Source, dt: DType, m: int) -> np.ndarray:
    """``m`` starts drawn as :func:`start_bits` draws one, as int64 bits."""
    drawn = values.draw(source, dt, (m,), PARAM_SPECIAL_RATE).astype(np.int64)
    if dt.is_float:
        return drawn
    near = source.random(m) < NEAR_END_RATE
    steps = source.integers(0, 40, m).astype(np.int64)
    end = np.where(source.random(m) < 0.5, dt.int_max - steps, dt.int_min + steps) & ((1 << dt.bits) - 1)
    out: np.ndarray = np.where(near, end, drawn)
    return out


def tci_starts(source: Source, case: Case, n: int) -> np.ndarray:
    """``n`` TCI starts (int64 bits, shape (n, 1, 1)) of the case's class: integer sequences that wrap when the
    case's does (each start of the range's last ``columns - 1`` toward the direction), none otherwise."""
    dt = get(case.dtype)
    own = int(case.param(START, 0))
    cols, desc = case.tile("dst").valid_cols, bool(case.param(DESCENDING))
    if dt.is_float or n <= 1:
        out = _start_candidates(source, dt, n)
    elif tci_wraps(np.array([own]), dt, cols, desc)[0]:
        j = source.integers(0, cols - 2, n).astype(np.int64)  # the wrap zone: cols - 1 starts
        out = np.where(desc, dt.int_min + j, dt.int_max - j) & ((1 << dt.bits) - 1)
    else:
        pool = _start_candidates(source, dt, 4 * n)
        pool = pool[~tci_wraps(pool, dt, cols, desc)][:n]
        out = np.concatenate([pool, np.full(n - len(pool), own, dtype=np.int64)])
    out[:1] = own
    return out.reshape(n, 1, 1)


FAR_ITEMS = 8  # diagonals past pto-spec's bound: as many as :func:`ttri_diagonals` has kinds of them
TCI_ITEMS = 64  # starts per batch: a sequence's arithmetic is the same away from the range's ends, so more starts
#                  per geometry test little; the geometries (columns, direction, rows, descriptor) then vary too


def tci_batch_limit(case: Case) -> int:
    """:data:`TCI_ITEMS` starts per batch."""
    return TCI_ITEMS


def ttri_batch_limit(case: Case) -> int:
    """How many diagonals of the case's class differ in what they test: within pto-spec's bound about one per
    row and column (every split of the triangle, all ones, all zeros), past it :data:`FAR_ITEMS`; 1 (no batch)
    when the case's diagonal brings a row to the end of ``int`` (there the diagonal alone sets which rows do, so
    no other diagonal keeps the case's regions)."""
    rows, cols = case.tile("dst").valid
    d = int(case.param(DIAGONAL, 0))
    if d + rows - 1 >= INT_MAX:
        return 1
    return rows + cols + 2 if abs(d) <= SPEC_DIAGONAL else FAR_ITEMS


def ttri_diagonals(source: Source, case: Case, n: int) -> np.ndarray:
    """``n`` TTRI diagonals (int64, shape (n, 1, 1)) of the case's class: within pto-spec's bound as
    :func:`diagonal` draws them when the case's is, else past it and short of the end of ``int``."""
    rows, cols = case.tile("dst").valid
    own = int(case.param(DIAGONAL, 0))
    if abs(own) <= SPEC_DIAGONAL:
        near = source.integers(-rows - 2, cols + 2, n).astype(np.int64)
        bound = np.where(source.random(n) < 0.5, SPEC_DIAGONAL, -SPEC_DIAGONAL)
        out = np.where(source.random(n) < 0.8, near, bound)
    else:
        top = INT_MAX - max(rows, 1)  # rows + top - 1 < INT_MAX
        fixed = np.array([SPEC_DIAGONAL + 1, -SPEC_DIAGONAL - 1, INT_MIN, INT_MIN + 1, INT_MIN + cols, top],
                         dtype=np.int64)
        wide = np.where(source.random(n) < 0.5, source.integers(SPEC_DIAGONAL + 1, top, n),
                        source.integers(INT_MIN, -SPEC_DIAGONAL - 2, n)).astype(np.int64)
        out = np.where(source.random(n) < 0.5, fixed[source.integers(0, len(fixed) - 1, n)], wide)
    out[:1] = own
    return out.reshape(n, 1, 1)
