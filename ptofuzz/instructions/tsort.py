"""TSORT (pto-spec): tiles, canonical cases, random and illegal cases; the semantics live in
:mod:`ptofuzz.oracles.sort`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from ptofuzz.core import dtypes
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.layouts import Profile, spec_physical
from ptofuzz.generators.source import Source
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.instructions.sort_inputs import MAX_ROWS, SPEC_DTYPES, _checked, _cols, draw_batch, draw_inputs, draw_many
from ptofuzz.oracles import sort as oracles


def _tsort_tiles(named: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
    src = named["src"]
    return (("src", src), ("dst", src), ("idx", src))


def _tsort_case(dt: str, vr: int, vc: int, **params: Any) -> Case:
    d = dtypes.get(dt)
    src = Tile(*spec_physical(vr, vc, d), vr, vc)
    return Case("TSORT", "spec", d.name, _tsort_tiles({"src": src}), tuple(params.items()))


def _tsort_canonical() -> tuple[tuple[str, Case], ...]:
    """The TSORT32 platforms' geometries (width 32, descending) plus the spec's own worked shapes."""
    cases = [_tsort_case(dt, r, c, descending=1) for dt, r, c in
             (("float16", 16, 16), ("float32", 8, 32), ("float32", 7, 32), ("float16", 32, 16),
              ("float32", 2, 32), ("float16", 4, 64), ("float32", 1, 8192), ("float32", 2, 13),
              ("float32", 1, 4164), ("float32", 2, 2084), ("float32", 2, 100))]
    cases += [_tsort_case("float32", 1, 4, sort_width=3), _tsort_case("float32", 2, 4, sort_width=3),
              _tsort_case("float32", 1, 2, sort_width=2), _tsort_case("float32", 1, 32),
              _tsort_case("float16", 4, 100, sort_width=64), _tsort_case("float32", 3, 50, sort_width=1),
              _tsort_case("float16", 5, 40, sort_width=7, descending=1),
              _tsort_case("bfloat16", 2, 8), _tsort_case("bfloat16", 2, 8, contract=1)]
    prof = _tsort_profile(())
    return tuple((prof.name(c)[len(prof.suite) + 1:], c) for c in cases)


def _tsort_profile(canonical: tuple[tuple[str, Case], ...]) -> Profile:
    return Profile("TSORT", "spec", "TSORTSpec", (("input0.bin", "src"),),
                   (("golden_val.bin", "dst"), ("golden_idx.bin", "idx")),
                   (("output_val.bin", "dst"), ("output_idx.bin", "idx")),
                   ("src",), compact=False, spelling={}, canonical=canonical, physical=spec_physical,
                   param_tokens=(("sort_width", "w"), ("descending", "desc"), ("contract", "contract")),
                   derive=_tsort_tiles,
                   note="ptofuzz full-tile layout; values and U32 indices in separate files")


def _tsort_random(source: Source, platform: str, constraints: Mapping[str, Any]) -> Case:
    dt = constraints.get("dtype") or source.choice(SPEC_DTYPES[:2])
    vr, vc = constraints.get("shape") or (int(source.integers(1, MAX_ROWS)), _cols(source))
    width = constraints.get("sort_width")
    if width is None:
        width = int(source.choice((0, 32, 1, 2, 3, 7, 16, 31, 33, 63, 64, int(source.integers(1, 64)))))
    desc = constraints.get("descending")
    if desc is None:
        desc = int(source.integers(0, 1))
    return _tsort_case(dt, vr, vc, sort_width=width or None, descending=desc or None)


TSORT_ILLEGAL = ("sort_width", "descending", "bfloat16", "empty")  # the rules an illegal TSORT case breaks


def _tsort_illegal(source: Source, constraints: Mapping[str, Any]) -> Case:
    """A TSORT case the sorting schema or the descending flag's check rejects (Fault_TileLegality at commit),
    breaking one rule of :data:`TSORT_ILLEGAL`: a sort width above 64, a flag other than 0 and 1, BF16 (the
    executable model's rule), an empty source."""
    rule = source.choice(TSORT_ILLEGAL)
    dt = "bfloat16" if rule == "bfloat16" else constraints.get("dtype") or source.choice(SPEC_DTYPES[:2])
    vr, vc = constraints.get("shape") or (int(source.integers(1, MAX_ROWS)), _cols(source))
    if rule == "empty":
        vr, vc = source.choice(((0, vc), (vr, 0)))
    width = int(source.integers(65, 65535)) if rule == "sort_width" else None
    desc = int(source.integers(2, 7)) if rule == "descending" else None
    return _tsort_case(dt, vr, vc, sort_width=width, descending=desc)


def _tsort_explicit(platform: str, opts: Mapping[str, Any]) -> Case:
    dt = opts.get("dtype") or "float32"
    vr, vc = opts.get("shape") or (1, 32)
    width = opts.get("sort_width")
    desc = opts.get("descending")
    return _tsort_case(dtypes.get(dt).name, vr, vc, sort_width=width or None,
                       descending=int(desc) if desc else None, contract=opts.get("contract"))


def _tsort_flags(case: Case) -> str:
    src = case.tile("src")
    flags = {"sort_width": f" --sort-width {case.param('sort_width')}", "descending": " --descending",
             "contract": " --bf16-contract"}
    return f" --shape {src.valid_rows}x{src.valid_cols}" + "".join(flags[k] for k, v in case.params if v and k in flags)


def _tsort_instruction() -> Instruction:
    tsort_prof = _tsort_profile(_tsort_canonical())
    tsort = Instruction(
        name="TSORT", family="irregular-and-complex",
        summary="sort each row in groups of sort_width, values and U32 in-group indices",
        inputs=("src",), outputs=("dst", "idx"),
        platforms={"spec": PlatformSupport(SPEC_DTYPES, oracles.tsort, tsort_prof, bad_dtype="fault",
                                           has_system_test=False,
                                           notes="BF16 illegal in the executable model; --contract accepts it")},
        random_case=_tsort_random, explicit_case=_checked(_tsort_explicit), draw_inputs=draw_inputs,
        draw_many=draw_many,
        role_dtypes={"idx": "uint32"}, options=("dtype", "shape", "sort_width", "descending", "contract"),
        random_options=("dtype", "shape", "sort_width", "descending"), replay_flags=_tsort_flags,
        bundle=True, permutes=True, draw_batch=draw_batch, illegal_case=_tsort_illegal)
    return tsort


def instructions(names: Collection[str] = ("TSORT",)) -> list[Instruction]:
    """TSORT, when named (ptofuzz.instructions.registry.MODULES lists this module with it)."""
    return [_tsort_instruction()] if "TSORT" in names else []
