"""TSORT (pto-spec) and TSORT32 (pto-isa cpu, a2a3, a5): capabilities, layouts, canonical cases.

Facts from pto-spec-notes.md §2 and pto-isa-conventions.md §5 (pto-isa 3186c381). Semantics live in
``oracles/sort.py``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import UNDEFINED, Case, Outcome, OutcomeKind, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Profile, spec_physical
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import mrgsort as mrgsort_oracle
from ptofuzz.oracles import sort as oracles
from ptofuzz.oracles import sort_batch

if TYPE_CHECKING:
    from ptofuzz.core.signature import Signature
    from ptofuzz.instructions.registry import Redrawn

SPEC_DTYPES = ("float32", "float16", "bfloat16")  # BF16: contract header yes, executable model no (param)
CPU_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16")
NPU_DTYPES = ("float32", "float16")
PLAIN = {"float32": "float", "float16": "half", "bfloat16": "bf16"}
MAX_ROWS, MAX_COLS = 16, 300


# ---- TSORT (spec) ------------------------------------------------------------------------------------------

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


def _cols(source: Source) -> int:
    """Row lengths shorter than, equal to and longer than the usual group widths."""
    return int(source.choice((1, 2, 3, 13, 31, 32, 33, 63, 64, 65, 100, int(source.integers(1, MAX_COLS)))))


def _tsort_explicit(platform: str, opts: Mapping[str, Any]) -> Case:
    dt = opts.get("dtype") or "float32"
    vr, vc = opts.get("shape") or (1, 32)
    width = opts.get("sort_width")
    desc = opts.get("descending")
    return _tsort_case(dtypes.get(dt).name, vr, vc, sort_width=width or None,
                       descending=int(desc) if desc else None, contract=opts.get("contract"))


# ---- TSORT32 (pto-isa) -------------------------------------------------------------------------------------

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


def _tsort_flags(case: Case) -> str:
    src = case.tile("src")
    flags = {"sort_width": f" --sort-width {case.param('sort_width')}", "descending": " --descending",
             "contract": " --bf16-contract"}
    return f" --shape {src.valid_rows}x{src.valid_cols}" + "".join(flags[k] for k, v in case.params if v and k in flags)


def _tsort32_flags(case: Case) -> str:
    src = case.tile("src")
    return f" --shape {src.valid_rows}x{src.valid_cols}"


def _tsort32_geometry(case: Case) -> str:
    """Element width and whether a row spans more than one 32-wide block (what decides the cpu overlap)."""
    c = case.tile("src").valid_cols
    return f"{dtypes.get(case.dtype).bits}-bit,{'cols>32' if c > 32 else 'cols<=32'}"


def _tsort32_known(sig: Signature) -> str | None:
    """Intended TSORT32 differences (pto-isa-conventions §5): values and indices that differ where the cpu
    simulator's 16-bit block overlap moves records (not faults, not other kinds)."""
    sims = {"cpu", "cpusim"}  # the model and the real simulator share the overlap; an NPU or spec does not
    if sims & set(sig.oracles()) and not set(sig.oracles()) <= sims and sig.geometry == "16-bit,cols>32" \
            and sig.kind in ("int-value", "ordering"):
        return ("pto-isa cpu TSort32 writes block b of a 16-bit type at record 16*b, so later 32-wide blocks "
                "overwrite earlier ones when C > 32 (a cpu simulator bug, modelled); the NPUs place blocks at 32*b")
    return None


def _tsort32_explicit(platform: str, opts: Mapping[str, Any]) -> Case:
    dt = opts.get("dtype") or "float32"
    r, c = opts.get("shape") or (1, 32)
    return _tsort32_case(platform, dtypes.get(dt).name, r, c)


# ---- inputs ----------------------------------------------------------------------------------------------------

def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """Values over the whole source tile; TSORT32 indices are 0..R*C-1 row-major as in pto-isa's tests (a
    fifth of the time a random permutation, so that index order and position order differ); a2a3's tmp
    file is zeros."""
    return draw_many([(source, case)], mix)[0]


def draw_many(items: Sequence[tuple[Source, Case]], mix: values.ValueMix) -> list[dict[str, np.ndarray]]:
    """:func:`draw_inputs` of many cases, each from its own source (the values of a dtype's cases in one
    ``values.draw_many``)."""
    drawn = values.draw_mixed([(source, dtypes.get(case.dtype), case.tile("src").shape) for source, case in items],
                              mix)
    return [_with_indices(source, case, src) for (source, case), src in zip(items, drawn)]


def _with_indices(source: Source, case: Case, src: np.ndarray) -> dict[str, np.ndarray]:
    out = {"src": src}
    if case.op == "TSORT32":
        idx = case.tile("idx")
        n = idx.rows * idx.cols
        order = np.arange(n, dtype=np.uint32)
        if float(source.random(1)[0]) < 0.2:
            order = order[np.argsort(source.bits(32, n), kind="stable")].astype(np.uint32)
        out["idx"] = order.reshape(idx.shape)
        out["tmp"] = np.zeros(case.tile("tmp").shape, dtypes.get(case.dtype).bits_dtype)
    return out


def draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    """``n`` cases' inputs stacked on a leading axis, drawn as :func:`draw_inputs` draws one case's: values over
    the whole source tile; TSORT32 indices 0..R*C-1 row-major, each case's a random permutation a fifth of the
    time; a2a3's tmp zeros."""
    dt = dtypes.get(case.dtype)
    src = case.tile("src")
    out = {"src": values.draw(source, dt, (n, *src.shape), mix)}
    if case.op == "TSORT32":
        idx = case.tile("idx")
        k = idx.rows * idx.cols
        order = np.broadcast_to(np.arange(k, dtype=np.uint32), (n, k)).copy()
        shuffled = np.flatnonzero(source.random(n) < 0.2)
        if shuffled.size:
            keys = source.bits(32, shuffled.size * k).reshape(shuffled.size, k)
            order[shuffled] = np.argsort(keys, axis=1, kind="stable").astype(np.uint32)
        out["idx"] = order.reshape(n, *idx.shape)
        out["tmp"] = np.zeros((n, *case.tile("tmp").shape), dt.bits_dtype)
    return out


_STRUCTURAL: dict[tuple[Any, ...], np.ndarray] = {}
_STRUCTURAL_MAX = 4096  # geometries remembered (a random run repeats a few hundred of them)


def _remember(key: tuple[Any, ...], mask: np.ndarray) -> np.ndarray:
    """Keep a structural mask: it depends on the case and the inputs it keeps, not on the values it replaces,
    and a long ``gen --random`` run meets the same geometries again and again."""
    if len(_STRUCTURAL) >= _STRUCTURAL_MAX:
        _STRUCTURAL.clear()
    mask.setflags(write=False)
    _STRUCTURAL[key] = mask
    return mask


def _kept(inputs: Mapping[str, np.ndarray], replaced: tuple[str, ...]) -> tuple[tuple[str, str, bytes], ...]:
    return tuple((r, v.dtype.str, v.tobytes()) for r, v in sorted(inputs.items()) if r not in replaced)


def _structural_many(items: Sequence[tuple[Case, dict[str, np.ndarray]]],
                     key_of: Callable[[Case, dict[str, np.ndarray]], tuple[Any, ...]],
                     plains_of: Callable[[list[tuple[Case, dict[str, np.ndarray]]]], list[dict[str, np.ndarray]]]
                     ) -> list[np.ndarray]:
    """For each (case, inputs): where ``dst`` is undefined whatever the data, the classes for its plain inputs
    (``plains_of(items)``: plain, distinct, well-ordered values where the data is redrawn, the other inputs kept),
    remembered by ``key_of(case, inputs)``. Masks not remembered yet are evaluated together, under the
    instruction's shared work for the whole batch."""
    from ptofuzz.instructions import registry

    keys = [key_of(case, inputs) for case, inputs in items]
    missing: dict[tuple[Any, ...], tuple[Case, dict[str, np.ndarray]]] = {}
    for key, item in zip(keys, items):
        if key not in _STRUCTURAL and key not in missing:
            missing[key] = item
    todo = {key: (item[0], plain) for (key, item), plain in zip(missing.items(), plains_of(list(missing.values())))}
    known = {key: _STRUCTURAL[key] for key in keys if key in _STRUCTURAL}
    fresh: dict[tuple[Any, ...], np.ndarray] = {}
    if todo:
        inst = registry.get(next(iter(todo.values()))[0].op)
        with inst.sharing(list(todo.values())):
            fresh = {key: inst.evaluate(case, plain).classes["dst"] == UNDEFINED for key, (case, plain) in todo.items()}
    masks = [known[key] if key in known else fresh[key] for key in keys]
    for key, mask in fresh.items():
        _remember(key, mask)
    return masks


def _plain_inputs(case: Case, inputs: dict[str, np.ndarray], roles: tuple[str, ...]) -> dict[str, np.ndarray]:
    dt = dtypes.get(case.dtype)
    plain = dict(inputs)
    for role in roles:
        t = case.tile(role)
        n = t.rows * t.cols
        ramp = plain_stream(dt, n) if dt.is_float else np.arange(n).astype(dt.bits_dtype)
        plain[role] = ramp.reshape(t.shape)
    return plain


def seeded_plain() -> Source:
    from ptofuzz.generators.source import seeded

    return seeded(0, "structural")


_PLAIN_STREAMS: dict[str, np.ndarray] = {}


def plain_stream(dt: dtypes.DType, n: int) -> np.ndarray:
    """The first ``n`` of ``values.plain(seeded_plain(), dt, ...)``, read only: a plain draw is elementwise over
    the stream's raw words, so a longer draw begins with every shorter one, and one remembered draw per dtype
    serves every structural mask."""
    have = _PLAIN_STREAMS.get(dt.name)
    if have is None or have.size < n:
        have = values.plain(seeded_plain(), dt, max(n, 2 * (have.size if have is not None else 1024)))
        have.setflags(write=False)
        _PLAIN_STREAMS[dt.name] = have
    return have[:n]


def redraw_many(items: list[tuple[Source, Case, dict[str, np.ndarray], Outcome]]) -> list[Redrawn]:
    """For each TSORT32 case: plain values over the valid rows whose records are undefined because of the data
    (a NaN block, an ambiguous tie); records the geometry leaves undefined (an unwritten tail, overlapping cpu
    blocks) do not count, so rows with only those keep their special values. The geometry's masks of a batch
    are evaluated together; each case draws from its own source."""
    pending = []
    for k, (_, case, _, outcome) in enumerate(items):
        vr, vc = case.tile("src").valid
        undefined = outcome.classes["dst"][:vr, :2 * vc] == UNDEFINED
        if undefined.any():
            pending.append((k, undefined))
    masks = _structural_many([(items[k][1], items[k][2]) for k, _ in pending],
                             lambda case, inputs: ("sort", case, ("src",), _kept(inputs, ("src",))),
                             lambda many: [_plain_inputs(case, inputs, ("src",)) for case, inputs in many])
    out: list[Redrawn] = [None] * len(items)
    for (k, undefined), structural in zip(pending, masks):
        source, case, inputs, _ = items[k]
        vr, vc = case.tile("src").valid
        bad = np.flatnonzero((undefined & ~structural[:vr, :2 * vc]).any(axis=1))
        if bad.size:
            out[k] = _plain_rows(source, case, inputs, bad), None
    return out


def _plain_rows(source: Source, case: Case, inputs: dict[str, np.ndarray], bad: np.ndarray
                ) -> dict[str, np.ndarray]:
    """``inputs`` with plain values in the source rows ``bad``: first only what makes the order undocumented
    (NaNs, and on the NPUs signed zeros); the whole row when that is nothing (an ambiguous tie)."""
    vc = case.tile("src").valid_cols
    dt = dtypes.get(case.dtype)
    new = {role: bits.copy() for role, bits in inputs.items()}
    rows = new["src"][bad, :vc]
    odd = np.zeros(rows.shape, bool)
    if dt.is_float:
        from ptofuzz.oracles import ieee

        odd = ieee.is_nan(rows, dt) | (ieee.is_zero(rows, dt) if platforms.get(case.platform).is_npu else False)
    if not odd.any():
        odd[:] = True
    rows[odd] = values.plain(source, dt, int(odd.sum()))
    new["src"][bad, :vc] = rows
    return new


def _mrg_redraw_many(items: list[tuple[Source, Case, dict[str, np.ndarray], Outcome]]) -> list[Redrawn]:
    """For each pto-isa TMRGSORT case: NaNs, zeros and subnormals in the lists replaced by plain values (each run
    re-sorted), when the merge left records undefined that plain data would define (the NPUs' undocumented NaN
    and near-zero orders). The geometry's masks of a batch are evaluated together; each case draws from its own
    source. pto-spec defines every merged element: its cases are kept, and so are cases whose lists hold none of
    those values (replacing nothing, the redraw would give the same inputs back)."""
    pending = []
    for k, (_, case, _, outcome) in enumerate(items):
        undefined = outcome.classes["dst"] == UNDEFINED
        if not _is_spec_mrg(case) and undefined.any():
            pending.append((k, undefined))
    pending = [p for p, odd in zip(pending, _mrg_has_odd([items[k][1:3] for k, _ in pending])) if odd]
    masks = _structural_many([(items[k][1], items[k][2]) for k, _ in pending], _mrg_structural_key, _mrg_plain)
    redrawn = [k for (k, undefined), structural in zip(pending, masks) if (undefined & ~structural).any()]
    out: list[Redrawn] = [None] * len(items)
    for k, new in zip(redrawn, _mrg_plain_values([items[k][:3] for k in redrawn])):
        out[k] = new, None
    return out


def _mrg_sources(case: Case) -> tuple[str, ...]:
    return tuple(r for r, _ in case.tiles if r != "dst")


def _mrg_odd(values_bits: np.ndarray, dt: dtypes.DType) -> np.ndarray:
    """The NaNs, zeros and subnormals: the values whose merge order the NPUs leave undocumented."""
    from ptofuzz.oracles import ieee

    return ieee.is_nan(values_bits, dt) | ieee.is_zero_or_subnormal(values_bits, dt)


def _mrg_has_odd(items: Sequence[tuple[Case, dict[str, np.ndarray]]]) -> list[bool]:
    """Whether each case's lists hold an odd value (:func:`_mrg_odd`); a dtype's lists looked at together."""
    from ptofuzz.oracles import mrgsort

    out = [False] * len(items)
    by_dtype: dict[str, list[int]] = {}
    for j, (case, _) in enumerate(items):
        by_dtype.setdefault(case.dtype, []).append(j)
    for dtype, members in by_dtype.items():
        rows = [[items[j][1][role][0] for role in _mrg_sources(items[j][0])] for j in members]
        words = np.concatenate([w for row in rows for w in row])  # whole records: value words at even positions
        odd = np.zeros(words.size // 2 + 1, np.int64)
        np.cumsum(_mrg_odd(mrgsort.split_records(words, dtype)[0], dtypes.get(dtype)), out=odd[1:])
        ends = np.cumsum([sum(w.size for w in row) // 2 for row in rows])
        for j, count in zip(members, np.diff(odd[np.concatenate([[0], ends])]).tolist()):
            out[j] = count > 0
    return out


def _mrg_plain_values(items: list[tuple[Source, Case, dict[str, np.ndarray]]]) -> list[dict[str, np.ndarray]]:
    """Each case's ``inputs`` with the lists' odd values (:func:`_mrg_odd`) replaced by plain values drawn from its
    source, each run re-sorted (all the lists' runs in one sort)."""
    from ptofuzz.oracles import mrgsort

    split: dict[str, list[tuple[int, str, np.ndarray, np.ndarray]]] = {}  # by dtype: each list's values, indices
    for j, (_, case, inputs) in enumerate(items):
        dt = dtypes.get(case.dtype)
        for role in _mrg_sources(case):
            vals, idx = mrgsort.split_records(inputs[role][0], dt)  # fresh arrays: changed in place below
            split.setdefault(case.dtype, []).append((j, role, vals.astype(dt.bits_dtype, copy=False), idx))
    lists = []
    for dtype, entries in split.items():
        dt = dtypes.get(dtype)
        odd_all = _mrg_odd(np.concatenate([vals for _, _, vals, _ in entries]), dt)
        sizes = [vals.size for _, _, vals, _ in entries]
        for (j, role, vals, idx), odd in zip(entries, np.split(odd_all, np.cumsum(sizes)[:-1])):
            count = int(np.count_nonzero(odd))
            if count:  # each case's plain values from its own source, list by list
                vals[odd] = values.plain(items[j][0], dt, count)
            lists.append((j, role, items[j][1], vals, idx))
    out = [dict(inputs) for _, _, inputs in items]
    _fill_records(out, lists)
    return out


def _fill_records(out: list[dict[str, np.ndarray]], lists: Sequence[tuple[int, str, Case, np.ndarray, np.ndarray]]
                  ) -> None:
    """``out[j][role]`` = the record row of each list (j, role, case, value bits, indices): :func:`_record_rows`."""
    for (j, role, *_), row in zip(lists, _record_rows([(c, v, i) for _, _, c, v, i in lists])):
        out[j][role] = row


def _record_rows(lists: Sequence[tuple[Case, np.ndarray, np.ndarray]]) -> list[np.ndarray]:
    """The record row (1, 2k) of each (case, value bits (k,), indices (k,)): the values sorted descending
    (numbers, then NaNs) within each run of the case's run length, joined with the indices, 16-bit pad bytes
    zero. The lists of a dtype are sorted together, each run its own segment of one sort."""
    from ptofuzz.oracles import mrgsort

    out: list[np.ndarray | None] = [None] * len(lists)
    by_dtype: dict[str, list[int]] = {}
    for j, (case, _, _) in enumerate(lists):
        by_dtype.setdefault(case.dtype, []).append(j)
    for dtype, members in by_dtype.items():
        dt = dtypes.get(dtype)
        sizes = np.array([lists[j][1].size for j in members], np.int64)
        runs = np.array([_run_records(lists[j][0], lists[j][1].size) for j in members], np.int64)
        starts = np.cumsum(sizes) - sizes
        # each list one row of runs (a partial last one included), numbered on from list to list
        seg = oracles.batch_block_ids(sizes, np.maximum(sizes, 1), runs)
        vals = np.concatenate([lists[j][1] for j in members]).astype(dt.bits_dtype)
        words = mrgsort.join_records(vals[oracles.segment_order(vals, seg, dt, descending=True)],
                                     np.concatenate([lists[j][2] for j in members]), dt)
        for j, lo, k in zip(members, starts, sizes):
            out[j] = words[None, 2 * lo:2 * (lo + k)]
    return oracles.filled(out)


def _run_records(case: Case, n: int) -> int:
    """The records a TMRGSORT list of ``n`` records is sorted in runs of: the whole list of a multi-list merge,
    ``block`` records for the single-list form, 32 for the topk kernel."""
    return max(1, n if case.param("lists", 1) > 1 else (case.param("block") or TOPK_RUN_RECORDS))


def _sorted_runs(vals: np.ndarray, case: Case, dt: Any) -> np.ndarray:
    """``vals`` (..., n) sorted descending (numbers, then NaNs) within each run of the case's run length."""
    n = vals.shape[-1]
    return oracles.group_sort(vals, n, _run_records(case, n), dt, descending=True)[0]


def _mrg_structural_key(case: Case, inputs: dict[str, np.ndarray]) -> tuple[Any, ...]:
    """What a merge's structural mask depends on: the case alone (a record's class follows from the values and
    the geometry; the indices it carries decide none)."""
    return ("mrgsort", case)


def _mrg_plain(items: list[tuple[Case, dict[str, np.ndarray]]]) -> list[dict[str, np.ndarray]]:
    """Plain, distinct, sorted lists of each case's lengths, with the indices the generator gives (0.. over the
    lists in order)."""
    lists = []
    for j, (case, _) in enumerate(items):
        dt = dtypes.get(case.dtype)
        base = 0
        for role in _mrg_sources(case):
            n = case.tile(role).cols // 2
            lists.append((j, role, case, plain_stream(dt, n), np.arange(base, base + n, dtype=np.uint32)))
            base += n
    out: list[dict[str, np.ndarray]] = [{} for _ in items]
    _fill_records(out, lists)
    return out


def _checked(explicit: Any) -> Any:
    def build(platform: str, opts: Mapping[str, Any]) -> Case:
        shape = opts.get("shape")
        if shape is not None and (shape[0] < 0 or shape[1] < 0):
            raise UsageError(f"--shape {shape[0]}x{shape[1]} must not be negative")
        return explicit(platform, opts)
    return build


NAMES = ("TSORT", "TSORT32", "TMRGSORT")  # ptofuzz.instructions.registry.MODULES lists the same, in this order


def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The sort instructions named (all by default), in :data:`NAMES` order."""
    build = {"TSORT": _tsort_instruction, "TSORT32": _tsort32_instruction, "TMRGSORT": mrg_instruction}
    return [build[n]() for n in NAMES if n in names]


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


def _tsort32_instruction() -> Instruction:
    profiles = _tsort32_profiles()

    def oracle(platform: str):
        return lambda case, inputs: oracles.tsort32(case, inputs, platform)

    tsort32 = Instruction(
        name="TSORT32", family="irregular-and-complex",
        summary="sort each row in 32-wide blocks, descending, into 8-byte value/index records",
        inputs=("src", "idx"), outputs=("dst",),
        platforms={
            "cpu": PlatformSupport(CPU_DTYPES, oracle("cpu"), profiles["cpu"],
                                   notes="std::stable_sort; 16-bit blocks overlap when C > 32"),
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
        known_difference=_tsort32_known, draw_batch=draw_batch, shared=sort_batch.shared_work)
    return tsort32


# ---- TMRGSORT (pto-isa) ----------------------------------------------------------------------------------------

MRG_ROLES = ("dst", "src0", "src1", "src2", "src3")
# name, dtype, valid records per list, records per input file, dst valid records (topk), golden records
MULTI = (("case_multi1", "float32", (64, 64, 64, 64), 64, 256, 256, None),
         ("case_multi2", "float16", (64, 64, 64, 64), 64, 256, 256, None),
         ("case_multi3", "float32", (64, 64, 64, 32), 64, 224, 256, None),
         ("case_multi4", "float32", (64, 64, 32), 64, 64, 192, None),
         ("case_exhausted1", "float32", (32, 32), 32, 64, 64, 1),
         ("case_exhausted2", "float16", (128, 128, 128), 128, 384, 384, 1))
# name, dtype, records, block records
SINGLE = (("case_single1", "float32", 128, 32), ("case_single2", "float32", 160, 32),
          ("case_single3", "float32", 256, 32), ("case_single4", "float32", 320, 32),
          ("case_single5", "float16", 128, 32), ("case_single6", "float16", 160, 32),
          ("case_single7", "float16", 256, 32), ("case_single8", "float16", 512, 128))
# name, dtype, records, kept (topk) records
TOPK = (("case_topk1", "float32", 1024, 512), ("case_topk2", "float32", 1024, 1024),
        ("case_topk3", "float32", 640, 256), ("case_topk4", "float16", 1024, 512),
        ("case_topk5", "float16", 1024, 1024), ("case_topk6", "float16", 640, 256))
CPU_MRG = {"case_multi1", "case_multi2", "case_exhausted1", "case_exhausted2", "case_single1", "case_single3",
           "case_single5", "case_single7", "case_single8", "case_topk2", "case_topk5"}
MRG_NOTES = {"cpu": "cpu: strict > merge",
             **{p: "a5's vmrgsort4 kernel; pto-isa's main.cpp runs the 9 float16 cases"
                for p in ("kirin9030", "kirinDev0000")}}
TOPK_RUN_RECORDS = 32  # pto-isa's topk inputs are pre-sorted in runs of 32 records


def _row(records: int, valid: int) -> Tile:
    return Tile(1, 2 * records, 1, 2 * valid)  # one row of 8-byte records as uint32 words


def _mrg_case(platform: str, dt: str, tiles: dict[str, Tile], **params: Any) -> Case:
    return Case("TMRGSORT", platform, dtypes.get(dt).name, tuple((r, tiles[r]) for r in MRG_ROLES if r in tiles),
                tuple(params.items()))


def _mrg_canonical(platform: str) -> tuple[tuple[str, Case], ...]:
    out = []
    for name, dt, lists, file_recs, keep, golden, exhausted in MULTI:
        tiles = {"dst": _row(golden, keep)} | {f"src{i}": _row(file_recs, n) for i, n in enumerate(lists)}
        out.append((name, _mrg_case(platform, dt, tiles, lists=len(lists), exhausted=exhausted)))
    for name, dt, recs, block in SINGLE:
        out.append((name, _mrg_case(platform, dt, {"dst": _row(recs, recs), "src0": _row(recs, recs)},
                                    lists=1, block=block)))
    for name, dt, recs, keep in TOPK:
        out.append((name, _mrg_case(platform, dt, {"dst": _row(recs, keep), "src0": _row(recs, recs)},
                                    lists=1, topk=1)))
    keep_names = None if platforms.get(platform).is_npu else CPU_MRG
    return tuple(sorted((n, c) for n, c in out if keep_names is None or n in keep_names))


def _mrg_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """Each list pre-sorted descending (numbers, then NaNs) in runs (whole lists, ``block`` records, or 32
    records for the topk kernel), indices 0.. over all lists in order, 16-bit pad bytes zero."""
    return _mrg_draw_many([(source, case)], mix)[0]


def _mrg_draw_many(items: Sequence[tuple[Source, Case]], mix: values.ValueMix) -> list[dict[str, np.ndarray]]:
    """:func:`_mrg_inputs` of many cases, each from its own source: the values drawn case by case, then the
    runs of all the lists sorted and joined into records together."""
    out: list[dict[str, np.ndarray]] = [{} for _ in items]
    wanted: list[tuple[int, str, Case, Source, int, int]] = []  # the lists to draw
    for j, (source, case) in enumerate(items):
        if _is_spec_mrg(case):
            out[j] = {role: rows[0] for role, rows in _spec_mrg_batch(source, case, mix, 1).items()}
            continue
        base = 0  # indices 0.. over the case's lists in order
        for role, tile in case.tiles:
            if role != "dst":
                wanted.append((j, role, case, source, tile.cols // 2, base))
                base += tile.cols // 2
    drawn = values.draw_mixed([(source, dtypes.get(case.dtype), (1, k)) for _, _, case, source, k, _ in wanted], mix)
    _fill_records(out, [(j, role, case, vals[0], np.arange(base, base + k, dtype=np.uint32))
                        for (j, role, case, _, k, base), vals in zip(wanted, drawn)])
    return out


def _mrg_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    """``n`` cases' lists as :func:`_mrg_inputs` draws one case's, stacked on a leading axis."""
    from ptofuzz.oracles import mrgsort

    dt = dtypes.get(case.dtype)
    if _is_spec_mrg(case):
        return _spec_mrg_batch(source, case, mix, n)
    out = {}
    base = 0
    for role, tile in case.tiles:
        if role == "dst":
            continue
        k = tile.cols // 2
        vals = _sorted_runs(values.draw(source, dt, (n, k), mix), case, dt)
        out[role] = mrgsort.join_records(vals, np.arange(base, base + k, dtype=np.uint32), dt)[:, None, :]
        base += k
    return out


def _mrg_random(source: Source, platform: str, constraints: Mapping[str, Any]) -> Case:
    if platform == "spec":
        return _spec_mrg_random(source, constraints)
    dt = constraints.get("dtype") or source.choice(NPU_DTYPES)
    kind = source.choice(("multi", "multi", "single"))
    if kind == "single":
        block = 32 if platforms.get(platform).is_npu else int(source.choice((8, 16, 32)))
        recs = block * 4 * int(source.integers(1, 3)) + int(source.choice((0, 0, block)))
        return _mrg_case(platform, dt, {"dst": _row(recs, recs), "src0": _row(recs, recs)}, lists=1, block=block)
    lists = int(source.integers(2, 4))
    lens = [int(source.choice((0, 1, 8, 16, 32, 64, int(source.integers(1, 64))))) for _ in range(lists)]
    file_recs = max(max(lens), 1)
    total = sum(lens)
    keep = total if float(source.random(1)[0]) < 0.6 else int(source.integers(0, total))
    exhausted = 1 if float(source.random(1)[0]) < 0.3 else None
    tiles = {"dst": _row(total, keep)} | {f"src{i}": _row(file_recs, n) for i, n in enumerate(lens)}
    return _mrg_case(platform, dt, tiles, lists=lists, exhausted=exhausted)


def _mrg_explicit(platform: str, opts: Mapping[str, Any]) -> Case:
    """``--lists N --shape 1xR [--exhausted]``: N lists of R records merged into N*R; ``--blocks B --shape 1xR``:
    the single-list form over R records (groups of 4 blocks of B records; a partial group stays unwritten)."""
    d = dtypes.get(opts.get("dtype") or "float32")
    dt = d.name
    lists = opts.get("lists")
    blocks = opts.get("blocks")
    shape = opts.get("shape")
    if platform == "spec":
        return _spec_mrg_explicit(dt, opts)
    if opts.get("descending") is not None:
        raise UsageError("--descending applies to pto-spec's TMRGSORT (--platform spec); pto-isa's merges descend")
    if shape is not None and (shape[0] != 1 or shape[1] < 1):
        raise UsageError(f"--shape {shape[0]}x{shape[1]}: TMRGSORT lists are one row of at least one record; "
                         "use --shape 1xRECORDS")
    if lists is not None and blocks is not None:
        raise UsageError("--lists and --blocks describe different TMRGSORT forms; pass one of them")
    if blocks is not None:  # single-list form: 4 blocks of --blocks records each per group
        if blocks < 1:
            raise UsageError(f"--blocks {blocks} must be at least 1 record")
        per_record = 8 // d.itemsize
        if platforms.get(platform).is_npu and (blocks * per_record) % 64:
            raise UsageError(f"--blocks {blocks}: {platform}'s vmrgsort needs blockLen a multiple of 64 elements "
                             f"({64 // per_record} {dt} records)")
        if opts.get("exhausted"):
            raise UsageError("--exhausted applies to merges of --lists, not to the single-list form")
        recs = shape[1] if shape else 4 * blocks
        return _mrg_case(platform, dt, {"dst": _row(recs, recs), "src0": _row(recs, recs)}, lists=1, block=blocks)
    lists = lists or 2
    if not 2 <= lists <= 4:
        raise UsageError(f"--lists {lists} must be 2, 3 or 4")
    per = shape[1] if shape else 32
    tiles = {"dst": _row(per * lists, per * lists)} | {f"src{i}": _row(per, per) for i in range(lists)}
    return _mrg_case(platform, dt, tiles, lists=lists, exhausted=1 if opts.get("exhausted") else None)


def _mrg_flags(case: Case) -> str:
    """The explicit flags that describe a TMRGSORT case again (records, not words)."""
    if _is_spec_mrg(case):
        return f" --lists 2 --shape 1x{case.tile('src0').valid_cols}" + (" --descending" if case.param("descending")
                                                                          else "")
    if case.param("lists", 1) == 1 and case.param("block"):
        return f" --blocks {case.param('block')} --shape 1x{case.tile('src0').cols // 2}"
    flags = f" --lists {case.param('lists')} --shape 1x{case.tile('src0').valid_cols // 2}"
    return flags + (" --exhausted" if case.param("exhausted") else "")


def _mrg_tiles(named: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
    return tuple((r, named[r]) for r in MRG_ROLES if r in named)


def _mrg_profile(platform: str) -> Profile:
    return Profile("TMRGSORT", platform, "TMRGSORTTest",
                   tuple((f"input{i}.bin", f"src{i}") for i in range(4)), (("golden.bin", "dst"),),
                   (("output.bin", "dst"),), MRG_ROLES, compact=False, spelling=PLAIN,
                   canonical=_mrg_canonical(platform), variable_roles=True,
                   param_tokens=(("lists", "l"), ("block", "b"), ("exhausted", "x"), ("topk", "k")),
                   derive=_mrg_tiles,
                   note=f"{platforms.get(platform).test_root}/testcase/tmrgsort")


def mrg_instruction() -> Instruction:
    def oracle(platform: str):
        def run(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
            if _is_spec_mrg(case):
                return _records_model_on_values(case, inputs, platform)
            return mrgsort_oracle.tmrgsort(case, inputs, platform)
        return run

    def spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
        if not _is_spec_mrg(case):
            return Outcome.unsupported("a pto-isa TMRGSORT case (8-byte records): pto-spec merges value tiles")
        return oracles.tmrgsort(case, inputs)

    spec_support = PlatformSupport(oracles.MRG_DTYPES, spec, _spec_mrg_profile(), bad_dtype="fault",
                                   has_system_test=False, role_dtypes={},
                                   notes="two sorted value rows, stable, left first; --descending or ascending")
    isa = {p: PlatformSupport(NPU_DTYPES, oracle(p), _mrg_profile(p), notes=MRG_NOTES.get(p, "vmrgsort4"))
           for p in ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")}

    def records(case: Case) -> bool:  # what the pto-isa models would be asked: a batch computes it up front
        return case.platform in isa and case.dtype in isa[case.platform].dtypes and not _is_spec_mrg(case)

    return Instruction(
        name="TMRGSORT", family="irregular-and-complex",
        summary="merge pre-sorted lists of 8-byte records (2-4 lists, or groups of 4 blocks of one list); spec: "
                "two sorted value rows",
        inputs=("src0",), outputs=("dst",),
        platforms={"spec": spec_support, **isa},
        random_case=_mrg_random, explicit_case=_checked(_mrg_explicit), draw_inputs=_mrg_inputs,
        draw_many=_mrg_draw_many,
        draw_batch=_mrg_batch, shared=functools.partial(sort_batch.shared_work, merges=records),
        redraw=_mrg_redraw_many,
        role_dtypes={r: "uint32" for r in MRG_ROLES},
        options=("dtype", "shape", "lists", "blocks", "exhausted", "descending"),
        replay_flags=_mrg_flags, permutes=True, bundle=True,
        known_difference=_mrg_known, illegal_case=_spec_mrg_illegal, fault_class=_mrg_fault_class)


# ---- TMRGSORT (pto-spec): two one-row value tiles, either direction ---------------------------------------------
# asl/tile/model/execution/sorting.asl (TMRGSORT), asl/tile/model/legality/sorting.asl; its cases always carry the
# descending param (0 or 1), which pto-isa's record cases never do: that tells the two forms apart on any platform

SPEC_MRG_CANONICAL = (("float32", 2, 2, 0), ("float32", 1, 1, 0), ("float16", 1, 1, 0), ("float32", 32, 32, 1),
                      ("float16", 64, 64, 1), ("float32", 13, 50, 1), ("float16", 100, 27, 0))


def _is_spec_mrg(case: Case) -> bool:
    return case.param("descending") is not None


def _spec_mrg_case(dt: str, n0: int, n1: int, descending: int) -> Case:
    d = dtypes.get(dt)
    tiles = (("dst", Tile(*spec_physical(1, n0 + n1, d), 1, n0 + n1)),
             ("src0", Tile(*spec_physical(1, n0, d), 1, n0)), ("src1", Tile(*spec_physical(1, n1, d), 1, n1)))
    return Case("TMRGSORT", "spec", d.name, tiles, (("descending", descending),))


def _spec_mrg_profile() -> Profile:
    canonical = tuple(_spec_mrg_case(*row) for row in SPEC_MRG_CANONICAL)
    prof = Profile("TMRGSORT", "spec", "TMRGSORTSpec", (("input0.bin", "src0"), ("input1.bin", "src1")),
                   (("golden.bin", "dst"),), (("output.bin", "dst"),), ("dst", "src0", "src1"), compact=False,
                   spelling={}, physical=spec_physical, param_tokens=(("descending", "desc"),),
                   note="ptofuzz full-tile layout; two one-row value tiles merged into one")
    return dataclasses.replace(prof, canonical=tuple((prof.name(c)[len(prof.suite) + 1:], c) for c in canonical))


def _spec_mrg_random(source: Source, constraints: Mapping[str, Any]) -> Case:
    dt = constraints.get("dtype") or source.choice(oracles.MRG_DTYPES)
    if constraints.get("shape"):
        n0 = n1 = constraints["shape"][1]
    else:
        n0, n1 = (int(source.choice((1, 2, 8, 32, 64, int(source.integers(1, 200))))) for _ in range(2))
    return _spec_mrg_case(dt, n0, n1, int(source.integers(0, 1)))


SPEC_MRG_ILLEGAL = ("bfloat16", "descending", "empty")  # the rules an illegal pto-spec TMRGSORT case breaks


def _spec_mrg_illegal(source: Source, constraints: Mapping[str, Any]) -> Case:
    """A pto-spec TMRGSORT case rejected at commit (Fault_TileLegality), breaking one rule of
    :data:`SPEC_MRG_ILLEGAL`: BF16 values, a flag other than 0 and 1, an empty source row."""
    case = _spec_mrg_random(source, constraints)
    rule = source.choice(SPEC_MRG_ILLEGAL)
    n0, n1 = case.tile("src0").valid_cols, case.tile("src1").valid_cols
    if rule == "bfloat16":
        return _spec_mrg_case("bfloat16", n0, n1, case.param("descending"))
    if rule == "descending":
        return _spec_mrg_case(case.dtype, n0, n1, int(source.integers(2, 7)))
    return _spec_mrg_case(case.dtype, 0, n1, case.param("descending")) if source.choice((0, 1)) else \
        _spec_mrg_case(case.dtype, n0, 0, case.param("descending"))


def _spec_mrg_explicit(dt: str, opts: Mapping[str, Any]) -> Case:
    """``--shape 1xN [--descending]``: two sorted rows of N values (pto-spec merges exactly two)."""
    if opts.get("lists") not in (None, 2) or opts.get("blocks") is not None or opts.get("exhausted"):
        raise UsageError("pto-spec's TMRGSORT merges two lists: pass --shape 1xN [--descending] (or --lists 2)")
    shape = opts.get("shape") or (1, 32)
    if shape[0] != 1 or shape[1] < 1:
        raise UsageError(f"--shape {shape[0]}x{shape[1]}: pto-spec TMRGSORT lists are one non-empty row; use 1xN")
    return _spec_mrg_case(dt, shape[1], shape[1], 1 if opts.get("descending") else 0)


def _spec_mrg_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    """Values over each whole source tile, each list's valid row sorted in the case's direction (numbers, then
    NaNs), as pto-spec requires; ``n`` cases stacked on a leading axis."""
    dt = dtypes.get(case.dtype)
    out = {}
    for role in ("src0", "src1"):
        t = case.tile(role)
        bits = values.draw(source, dt, (n, *t.shape), mix)
        row = bits[:, 0, :t.valid_cols]
        keys = oracles.sort_keys(row, dt, descending=bool(case.param("descending")))
        bits[:, 0, :t.valid_cols] = np.take_along_axis(row, np.argsort(keys, axis=-1, kind="stable"), axis=-1)
        out[role] = bits
    return out


def _mrg_fault_class(case: Case) -> str:
    """Which pto-spec rule a TMRGSORT case breaks, for fault signatures ("-": none of these)."""
    if not _is_spec_mrg(case):
        return "-"
    if 0 in (case.tile("src0").valid_cols, case.tile("src1").valid_cols):
        return "empty-source"
    return "flag" if case.param("descending") not in (0, 1) else "-"


def _mrg_known(sig: Signature) -> str | None:
    """The documented TMRGSORT differences between pto-spec and pto-isa: where a NaN goes in a merge (against
    pto-isa's cpu merge), and an empty list (pto-spec rejects it, pto-isa merges it)."""
    pair = set(sig.oracles())
    if pair == {"cpu", "spec"} and sig.kind == "ordering":
        return ("pto-spec orders every NaN after every number (TileSortLeftBefore); pto-isa's cpu merge compares "
                "with a strict > and takes a NaN head where it meets it (checked against the real simulator)")
    if "spec" in pair and not pair & {"bundle", "cpusim"} and sig.kind == "fault-vs-value" and \
            sig.geometry == "empty-source":
        return ("pto-spec's TMRGSORT needs two non-empty sources (TileOperandsLegal_TMRGSORT: Fault_TileLegality); "
                "pto-isa's kernels merge an empty list")
    return None


def _records_model_on_values(case: Case, inputs: Mapping[str, np.ndarray], platform: str) -> Outcome:
    """A pto-isa platform's merge of a pto-spec TMRGSORT case: the two value rows as records (indices 0.. over
    both lists, as pto-isa's tests number them), merged by the platform's model, the values read back into the
    case's value tile; index words are not part of pto-spec's result. pto-isa merges descending only."""
    from ptofuzz.oracles import mrgsort

    if case.param("descending") != 1:
        return Outcome.unsupported(f"pto-isa's TMRGSORT on {platform} merges descending lists only")
    dt = dtypes.get(case.dtype)
    n0, n1 = case.tile("src0").valid_cols, case.tile("src1").valid_cols
    rows = {"src0": inputs["src0"][..., 0, :n0], "src1": inputs["src1"][..., 0, :n1]}
    rec_inputs = {r: mrgsort.join_records(v, np.arange(base, base + v.shape[-1], dtype=np.uint32), dt)[..., None, :]
                  for (r, v), base in zip(rows.items(), (0, n0))}
    rec_case = _mrg_case(platform, dt.name, {"dst": _row(n0 + n1, n0 + n1), "src0": _row(n0, n0),
                                              "src1": _row(n1, n1)}, lists=2)
    merged = mrgsort_oracle.tmrgsort(rec_case, rec_inputs, platform)
    if merged.kind is not OutcomeKind.OK:
        return merged
    n = n0 + n1
    words, word_cls = merged.outputs["dst"][..., 0, 0:2 * n:2], merged.classes["dst"][..., 0, 0:2 * n:2]
    lead = words.shape[:-1]
    out = np.zeros((*lead, *case.tile("dst").shape), dt.bits_dtype)
    classes = np.full(out.shape, UNDEFINED, np.uint8)
    out[..., 0, :n] = words.astype(dt.bits_dtype)
    classes[..., 0, :n] = word_cls
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes})
