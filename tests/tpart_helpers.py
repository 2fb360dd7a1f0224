"""Helpers shared by the TPART* oracle tests."""

from __future__ import annotations

from ptofuzz.core import dtypes
from ptofuzz.core.case import Case, Outcome, Tile
from ptofuzz.core.layouts import spec_physical


def case(op, platform, dtype, dst, src0, src1, shapes=None, inplace=None):
    """dst/src0/src1 are valid regions (r, c); each tile's physical shape is its valid region (on spec: the
    smallest legal pto-spec descriptor holding it) unless ``shapes[role]`` says otherwise."""
    shapes = shapes or {}
    tiles = []
    for role, (r, c) in (("dst", dst), ("src0", src0), ("src1", src1)):
        default = spec_physical(r, c, dtypes.get(dtype)) if platform == "spec" else (r, c)
        R, C = shapes.get(role, default)
        tiles.append((role, Tile(R, C, r, c)))
    params = (("inplace", inplace),) if inplace else ()
    return Case(op, platform, dtype, tuple(tiles), params)


def cropped(out: Outcome, rows: int, cols: int) -> Outcome:
    """The outcome with its dst output and classes cut to ``rows x cols`` (the valid region of a spec tile
    whose physical shape is larger)."""
    if out.kind != "ok":
        return out
    return Outcome(out.kind, {k: v[..., :rows, :cols] for k, v in out.outputs.items()},
                   {k: v[..., :rows, :cols] for k, v in out.classes.items()}, out.flags, out.fault, out.reason)
