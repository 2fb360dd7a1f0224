"""TSORT32 (pto-isa cpu, a2a3, a5, kirin): capabilities, layouts, the system tests' canonical cases, and the
documented differences; the semantics live in :mod:`ptofuzz.oracles.sort`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import Case, Outcome, Tile
from ptofuzz.core.layouts import Profile
from ptofuzz.generators.source import Source
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.instructions.sort_inputs import (
    CPU_DTYPES,
    MAX_ROWS,
    NPU_DTYPES,
    PLAIN,
    _checked,
    _cols,
    draw_batch,
    draw_inputs,
    draw_many,
    redraw_many,
)
from ptofuzz.oracles import sort as oracles
from ptofuzz.oracles import sort_batch

if TYPE_CHECKING:
    import numpy as np



def _tsort32_tiles(named: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
    src = named["src"]
    idx = named.get("idx", src)
    dst = Tile(src.rows, 2 * src.cols, src.valid_rows, 2 * src.valid_cols)  # records as pairs of u32 words
    tmp = Tile(1, src.cols, 1, src.valid_cols)
    return (("src", src), ("idx", idx), ("dst", dst), ("tmp", tmp))


def _tsort32_case(platform: str, dt: str, r: int, c: int, *, idx_rows: int | None = None,
                  form: int | None = None) -> Case:
    src = Tile(r, c, r, c)
    idx = Tile(idx_rows or r, c, idx_rows or r, c)
    return Case("TSORT32", platform, dtypes.get(dt).name, _tsort32_tiles({"src": src, "idx": idx}),
                (("form", form),))


CPU_CASES = (("test0", "float16", 16, 16), ("test1", "float32", 8, 32), ("test2", "float32", 7, 32),
             ("test3", "float16", 32, 16))


NPU_CASES = (("case1", "float32", 2, 32), ("case2", "float16", 4, 64), ("case3", "float32", 1, 8192),
             ("case4", "float32", 2, 13))


A5_EXTRA = (("case5", "float32", 1, 4164), ("case6", "float32", 2, 2084), ("case7", "float32", 2, 100))


# kirin9030's gen_data is a2a3's with every case float16 (its main.cpp runs case1-3; case4 is written too)
KIRIN_CASES = tuple((name, "float16", r, c) for name, _, r, c in NPU_CASES)


def _tsort32_profiles() -> dict[str, Profile]:
    def canon(platform: str, rows: tuple[tuple[str, str, int, int], ...]) -> tuple[tuple[str, Case], ...]:
        return tuple((name, _tsort32_case(platform, dt, r, c)) for name, dt, r, c in rows)

    common: dict[str, Any] = {"name_roles": ("src", "idx"), "compact": True, "spelling": PLAIN,
                              "param_tokens": (("form", "arg"),), "derive": _tsort32_tiles}
    npu_io = (("input_arr.bin", "src"), ("input_idx.bin", "idx"))
    return {
        "cpu": Profile("TSORT32", "cpu", "TSORT32Test", (("input0.bin", "src"), ("input1.bin", "idx")),
                       (("golden.bin", "dst"),), (("output.bin", "dst"),), canonical=canon("cpu", CPU_CASES),
                       note="tests/cpu/st/testcase/tsort32", **common),
        "a2a3": Profile("TSORT32", "a2a3", "TSort32Test", (*npu_io, ("input_tmp.bin", "tmp")),
                        (("golden_output.bin", "dst"),), (("output.bin", "dst"),),
                        canonical=canon("a2a3", NPU_CASES), note="tests/npu/a2a3/src/st/testcase/tsort32",
                        **common),
        "a5": Profile("TSORT32", "a5", "TSort32Test", npu_io, (("golden_output.bin", "dst"),),
                      (("output.bin", "dst"),), canonical=canon("a5", NPU_CASES + A5_EXTRA),
                      note="tests/npu/a5/src/st/testcase/tsort32", **common),
        # kirin: a2a3's files (a tmp tile loaded from input_tmp.bin) with a5's kernel; kirinDev0000 has no test
        **{p: Profile("TSORT32", p, "TSort32Test", (*npu_io, ("input_tmp.bin", "tmp")),
                      (("golden_output.bin", "dst"),), (("output.bin", "dst"),),
                      canonical=canon(p, KIRIN_CASES) if p == "kirin9030" else (),
                      note=f"{platforms.get(p).test_root}/testcase/tsort32" if p == "kirin9030" else
                      "no tsort32 test on kirinDev0000; kirin9030's layout", **common)
           for p in ("kirin9030", "kirinDev0000")},
    }


def _tsort32_random(source: Source, platform: str, constraints: Mapping[str, Any]) -> Case:
    npu = platforms.get(platform).is_npu
    choices = NPU_DTYPES if npu else CPU_DTYPES
    dt = constraints.get("dtype") or source.choice(choices)
    r, c = constraints.get("shape") or (int(source.integers(1, MAX_ROWS)), _cols(source))
    idx_rows = 1 if npu and float(source.random(1)[0]) < 0.2 else None
    form = 3 if npu and float(source.random(1)[0]) < 0.2 else None
    return _tsort32_case(platform, dt, r, c, idx_rows=idx_rows, form=form)


def _tsort32_flags(case: Case) -> str:
    src = case.tile("src")
    return f" --shape {src.valid_rows}x{src.valid_cols}"


def _tsort32_geometry(case: Case) -> str:
    """Element width and whether a row spans more than one 32-wide block (what decides the simulator's defect
    cpusim-tsort32-16bit-overlap)."""
    c = case.tile("src").valid_cols
    return f"{dtypes.get(case.dtype).bits}-bit,{'cols>32' if c > 32 else 'cols<=32'}"


def _tsort32_explicit(platform: str, opts: Mapping[str, Any]) -> Case:
    dt = opts.get("dtype") or "float32"
    r, c = opts.get("shape") or (1, 32)
    return _tsort32_case(platform, dtypes.get(dt).name, r, c)


def _tsort32_instruction() -> Instruction:
    profiles = _tsort32_profiles()

    def oracle(platform: str) -> Callable[[Case, Mapping[str, np.ndarray]], Outcome]:
        return lambda case, inputs: oracles.tsort32(case, inputs, platform)

    tsort32 = Instruction(
        name="TSORT32", family="irregular-and-complex",
        summary="sort each row in 32-wide blocks, descending, into 8-byte value/index records",
        inputs=("src", "idx"), outputs=("dst",),
        platforms={
            "cpu": PlatformSupport(CPU_DTYPES, oracle("cpu"), profiles["cpu"],
                                   notes="std::stable_sort; block b at record 32*b (the simulator's 16-bit "
                                         "blocks are not: defect cpusim-tsort32-16bit-overlap)"),
            "a2a3": PlatformSupport(NPU_DTYPES, oracle("a2a3"), profiles["a2a3"], notes="vbitsort"),
            "a5": PlatformSupport(NPU_DTYPES, oracle("a5"), profiles["a5"], notes="vbitsort"),
            "kirin9030": PlatformSupport(NPU_DTYPES, oracle("kirin9030"), profiles["kirin9030"],
                                         notes="a5's vbitsort kernel; pto-isa tests float16 only"),
            "kirinDev0000": PlatformSupport(NPU_DTYPES, oracle("kirinDev0000"), profiles["kirinDev0000"],
                                            has_system_test=False,
                                            notes="a5's vbitsort kernel (its own TSort32.hpp is included nowhere)"),
        },
        random_case=_tsort32_random, explicit_case=_checked(_tsort32_explicit), draw_inputs=draw_inputs,
        draw_many=draw_many,
        role_dtypes={"idx": "uint32", "dst": "uint32"}, options=("dtype", "shape"), redraw=redraw_many,
        replay_flags=_tsort32_flags, geometry_class=_tsort32_geometry, permutes=True,
        draw_batch=draw_batch, shared=sort_batch.shared_work)
    return tsort32


def instructions(names: Collection[str] = ("TSORT32",)) -> list[Instruction]:
    """TSORT32, when named (ptofuzz.instructions.registry.MODULES lists this module with it)."""
    return [_tsort32_instruction()] if "TSORT32" in names else []
