"""Random geometries of the arithmetic expansions (TROWEXPAND{ADD,...}, TCOLEXPAND{ADD,...}), legal on each
platform.

The destination's valid region is drawn as the elementwise family's (:func:`ptofuzz.generators.elementwise.
valid_region`: edges preferred, empty now and then off the spec); the full-shape source has the destination's
valid region, the broadcast source follows the instruction's contract:

- spec: ``src0`` the destination's descriptor, ``src1`` pto-spec's broadcast source (TROWEXPAND*: one physical
  column, the destination's valid rows by one; TCOLEXPAND*: one valid row of the destination's valid columns at its
  physical columns), as TROWEXPAND's and TCOLEXPAND's (:mod:`ptofuzz.generators.expand`).
- cpu and the NPUs: whole 32-byte rows, a tile now and then wider or taller than its valid region. TROWEXPAND*'s
  expanded operand has the destination's valid rows and one valid column (Mode 1: a one-column tile, the bytes of
  a ColMajor one) or one 32-byte block (Mode 2); now and then it is ``src0`` (the role swap). TCOLEXPAND*'s
  ``src1`` has one valid row (now and then more) of the destination's valid columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ptofuzz.core import platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.dtypes import get
from ptofuzz.core.layouts import whole_rows
from ptofuzz.generators import expand
from ptofuzz.generators.elementwise import block, valid_region
from ptofuzz.generators.source import Source
from ptofuzz.generators.tpart import dimension

SWAP_RATE = 0.25  # TROWEXPAND*: how often src0 is the expanded operand
MODE2_RATE = 0.4  # TROWEXPAND*: how often the expanded operand is a 32-byte block a row


def _roll(source: Source) -> float:
    return float(source.random(1)[0])


def random_case(source: Source, op: str, platform: str, dtypes: tuple[str, ...], constraints: Mapping[str, Any]
                ) -> Case:
    """A case legal on ``platform`` (module docstring); ``constraints`` may fix ``dtype`` and ``shape`` (the
    destination's valid region)."""
    dt = get(constraints.get("dtype") or source.choice(dtypes))
    row = op.startswith("TROW")
    kind = platforms.get(platform).kind
    valid = valid_region(source, dt, allow_zero=kind != platforms.SPEC, shape=constraints.get("shape"))
    if kind == platforms.SPEC:
        copy = expand.random_case(source, "TROWEXPAND" if row else "TCOLEXPAND", platform, (dt.name,),
                                  {"dtype": dt.name, "shape": valid})
        d = copy.tile("dst")
        return Case(op, platform, dt.name, (("dst", d), ("src0", d), ("src1", copy.tile("src"))))
    dst = Tile(*expand.spare(source, whole_rows(*valid, dt), dt), *valid)
    full = Tile(*expand.spare(source, whole_rows(*valid, dt), dt), *valid)
    rows, cols = valid
    if row:
        k = block(dt) if _roll(source) < MODE2_RATE else 1
        shape = (rows, 1) if k == 1 else expand.spare(source, whole_rows(rows, k, dt), dt)
        bcast = Tile(max(shape[0], 1), shape[1], rows, k)
        pair = (("src0", bcast), ("src1", full)) if _roll(source) < SWAP_RATE else (("src0", full), ("src1", bcast))
        return Case(op, platform, dt.name, (("dst", dst), *pair))
    more = dimension(source, 4, 1) if _roll(source) < 0.2 else 1
    sv = (max(more, 1), cols)
    bcast = Tile(*expand.spare(source, whole_rows(*sv, dt), dt), *sv)
    return Case(op, platform, dt.name, (("dst", dst), ("src0", full), ("src1", bcast)))


ILLEGAL_RULES = ("full", *expand.ILLEGAL_RULES)  # which pto-spec rule an illegal spec case breaks


def illegal_spec_case(source: Source, op: str, dtypes: tuple[str, ...], constraints: Mapping[str, Any]) -> Case:
    """A spec case pto-spec rejects (Fault_TileLegality before any effect): the broadcast source breaks one of
    TROWEXPAND's (TCOLEXPAND's) rules (:func:`ptofuzz.generators.expand.illegal_spec_case`), or the full-shape
    source's physical shape is not the destination's (``full``)."""
    row = op.startswith("TROW")
    copy = "TROWEXPAND" if row else "TCOLEXPAND"
    if source.choice(ILLEGAL_RULES) == "full":
        dt = get(constraints.get("dtype") or source.choice(dtypes))
        legal = random_case(source, op, "spec", (dt.name,), {**constraints, "dtype": dt.name})
        d = legal.tile("dst")
        wider = Tile(d.rows, d.cols * 2, *d.valid)  # another physical shape (or no legal descriptor at all)
        return Case(op, "spec", dt.name, (("dst", d), ("src0", wider), ("src1", legal.tile("src1"))))
    bad = expand.illegal_spec_case(source, copy, dtypes, constraints)
    d = bad.tile("dst")
    return Case(op, "spec", bad.dtype, (("dst", d), ("src0", d), ("src1", bad.tile("src"))))
