"""TMRGSORT: pto-isa's record merge (cpu, a2a3, a5, kirin: multi-list, exhausted, single-list and the topk
kernel of its system tests) and pto-spec's two-list value merge; capabilities, layouts, canonical cases,
known differences. The semantics live in :mod:`ptofuzz.oracles.mrgsort` and :mod:`ptofuzz.oracles.sort`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import UNDEFINED, Case, Outcome, OutcomeKind, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Profile, spec_physical
from ptofuzz.core.records import replace
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.instructions.sort_inputs import NPU_DTYPES, PLAIN, _checked
from ptofuzz.instructions.tmrgsort_records import _fill_records, _is_spec_mrg, _mrg_redraw_many, _sorted_runs
from ptofuzz.oracles import mrgsort as mrgsort_oracle
from ptofuzz.oracles import sort as oracles
from ptofuzz.oracles import sort_batch

if TYPE_CHECKING:
    from ptofuzz.core.signature import Signature

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
    def oracle(platform: str) -> Callable[[Case, Mapping[str, np.ndarray]], Outcome]:
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


SPEC_MRG_CANONICAL = (("float32", 2, 2, 0), ("float32", 1, 1, 0), ("float16", 1, 1, 0), ("float32", 32, 32, 1),
                      ("float16", 64, 64, 1), ("float32", 13, 50, 1), ("float16", 100, 27, 0))


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
    return replace(prof, canonical=tuple((prof.name(c)[len(prof.suite) + 1:], c) for c in canonical))


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


def instructions(names: Collection[str] = ("TMRGSORT",)) -> list[Instruction]:
    """TMRGSORT, when named (ptofuzz.instructions.registry.MODULES lists this module with it)."""
    return [mrg_instruction()] if "TMRGSORT" in names else []
