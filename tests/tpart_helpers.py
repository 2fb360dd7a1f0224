"""Helpers shared by the TPART* oracle tests."""

from __future__ import annotations

from ptofuzz.case import Case, Tile


def case(op, platform, dtype, dst, src0, src1, shapes=None, inplace=None):
    """dst/src0/src1 are valid regions (r, c); each tile's physical shape is its valid region unless
    ``shapes[role]`` says otherwise."""
    shapes = shapes or {}
    tiles = []
    for role, (r, c) in (("dst", dst), ("src0", src0), ("src1", src1)):
        R, C = shapes.get(role, (r, c))
        tiles.append((role, Tile(R, C, r, c)))
    params = (("inplace", inplace),) if inplace else ()
    return Case(op, platform, dtype, tuple(tiles), params)
