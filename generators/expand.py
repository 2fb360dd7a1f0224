"""Random geometries of TROWEXPAND and TCOLEXPAND, legal on each platform.

The destination's valid region is drawn as the elementwise family's (:func:`ptofuzz.generators.elementwise.
valid_region`: edges preferred, empty now and then off the spec); the source's follows the instruction's contract:

- spec: pto-spec's broadcast source. TROWEXPAND: one physical column, the destination's valid rows by one column;
  TCOLEXPAND: one valid row of the destination's valid columns, at the destination's physical columns. Both tiles
  the smallest legal descriptors (now and then the destination one with rows to spare: a valid region smaller than
  its tile).
- cpu and the NPUs: whole 32-byte rows, a tile now and then wider or taller than its valid region (read at its own
  stride). TROWEXPAND's source has the destination's valid rows and one valid column, or (as the cpu system test)
  more; TCOLEXPAND's the destination's valid columns and one valid row, or more (as a5's int8 tests). On a2a3 and
  the cpu a TROWEXPAND source may have more valid rows than the destination, a TCOLEXPAND source more valid columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ptofuzz.core import platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.dtypes import DType, get
from ptofuzz.core.layouts import spec_physical, whole_rows
from ptofuzz.generators.elementwise import block, valid_region
from ptofuzz.generators.source import Source
from ptofuzz.generators.tpart import dimension

ROLES = ("dst", "src")


def _roll(source: Source) -> float:
    return float(source.random(1)[0])


def spare(source: Source, shape: tuple[int, int], dt: DType) -> tuple[int, int]:
    """A tile holding ``shape``: itself, or 1-2 more 32-byte blocks a row, or a few more rows."""
    r, c = shape
    roll = _roll(source)
    if roll < 0.2:
        return r, c + int(source.integers(1, 3)) * block(dt)
    if roll < 0.35:
        return r + int(source.integers(1, 4)), c
    return r, c


def source_valid(source: Source, row: bool, valid: tuple[int, int], *, lax: bool) -> tuple[int, int]:
    """The source's valid region for a destination valid region: what the formula reads (the destination's rows
    by one column, or one row by its columns), often more of the other extent, and (``lax``: a2a3, cpu) now and then
    more than the destination's extent."""
    rows, cols = valid
    if row:
        extra = dimension(source, 64, 8) if _roll(source) < 0.3 else 1
        more = int(source.integers(1, 3)) if lax and _roll(source) < 0.1 else 0
        return rows + more, extra
    extra = dimension(source, 8, 2) if _roll(source) < 0.3 else 1
    more = int(source.integers(1, 9)) if lax and _roll(source) < 0.1 else 0
    return extra, cols + more


def random_case(source: Source, op: str, platform: str, dtypes: tuple[str, ...], constraints: Mapping[str, Any]
                ) -> Case:
    """A case legal on ``platform`` (module docstring); ``constraints`` may fix ``dtype`` and ``shape`` (the
    destination's valid region)."""
    dt = get(constraints.get("dtype") or source.choice(dtypes))
    row = op == "TROWEXPAND"
    kind = platforms.get(platform).kind
    valid = valid_region(source, dt, allow_zero=kind != platforms.SPEC, shape=constraints.get("shape"))
    if kind == platforms.SPEC:
        phys = spec_physical(*valid, dt)
        if _roll(source) < 0.2 and phys[0] * 2 * phys[1] * dt.itemsize <= 64 * 1024:
            phys = (phys[0] * 2, phys[1])
        sv = (valid[0], 1) if row else (1, valid[1])
        sp = spec_physical(valid[0], 1, dt) if row else (spec_physical(1, phys[1], dt)[0], phys[1])
        return Case(op, platform, dt.name, (("dst", Tile(*phys, *valid)), ("src", Tile(*sp, *sv))))
    sv = source_valid(source, row, valid, lax=platform in ("cpu", "a2a3"))
    dst = spare(source, whole_rows(*valid, dt), dt)
    src = spare(source, whole_rows(*sv, dt), dt)
    return Case(op, platform, dt.name, (("dst", Tile(*dst, *valid)), ("src", Tile(*src, *sv))))


ILLEGAL_RULES = ("shape", "valid", "empty")  # which pto-spec rule an illegal spec case breaks


def illegal_spec_case(source: Source, op: str, dtypes: tuple[str, ...], constraints: Mapping[str, Any]) -> Case:
    """A spec case pto-spec rejects (Fault_TileLegality before any effect), breaking one rule of
    :data:`ILLEGAL_RULES`: the source's physical columns (TROWEXPAND: not one; TCOLEXPAND: not the destination's),
    its valid shape, or an empty destination valid region."""
    dt = get(constraints.get("dtype") or source.choice(dtypes))
    row = op == "TROWEXPAND"
    valid = valid_region(source, dt, allow_zero=False, shape=constraints.get("shape"))
    phys = spec_physical(*valid, dt)
    sv = (valid[0], 1) if row else (1, valid[1])
    sp = spec_physical(valid[0], 1, dt) if row else (spec_physical(1, phys[1], dt)[0], phys[1])
    rule = source.choice(ILLEGAL_RULES)
    if rule == "shape":
        sp = spec_physical(valid[0], 2, dt) if row else (sp[0], sp[1] * 2)
    elif rule == "valid":
        sv = _wrong_valid(row, sv, sp)
    else:
        valid = (0, valid[1]) if _roll(source) < 0.5 else (valid[0], 0)
    return Case(op, "spec", dt.name, (("dst", Tile(*phys, *valid)), ("src", Tile(*sp, *sv))))


def _wrong_valid(row: bool, sv: tuple[int, int], sp: tuple[int, int]) -> tuple[int, int]:
    """A source valid shape inside the source tile ``sp`` other than the legal ``sv``."""
    r, c = sv
    if row:
        return (r + 1, c) if r < sp[0] else (r - 1, c) if r > 1 else (r, 0)
    return (r, c - 1) if c > 1 else (r + 1, c) if sp[0] > 1 else (r, 0)
