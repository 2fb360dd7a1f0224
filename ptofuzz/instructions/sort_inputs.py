"""The sort family's inputs: drawing values with their index tiles (one draw, many cases, a stacked batch), and
the redraw that replaces, with plain values, the elements whose special values leave a TSORT32 golden
undefined (structural masks remembered by geometry).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import UNDEFINED, Case, Outcome
from ptofuzz.core.errors import UsageError
from ptofuzz.generators import values
from ptofuzz.generators.source import Source

if TYPE_CHECKING:
    from ptofuzz.instructions.registry import Redrawn



SPEC_DTYPES = ("float32", "float16", "bfloat16")  # BF16: contract header yes, executable model no (param)


CPU_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16")


NPU_DTYPES = ("float32", "float16")


MAX_ROWS, MAX_COLS = 16, 300  # random sort tiles: rows below, columns up to
PLAIN = {"float32": "float", "float16": "half", "bfloat16": "bf16"}


def _cols(source: Source) -> int:
    """Row lengths shorter than, equal to and longer than the usual group widths."""
    return int(source.choice((1, 2, 3, 13, 31, 32, 33, 63, 64, 65, 100, int(source.integers(1, MAX_COLS)))))


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


def _checked(explicit: Any) -> Any:
    def build(platform: str, opts: Mapping[str, Any]) -> Case:
        shape = opts.get("shape")
        if shape is not None and (shape[0] < 0 or shape[1] < 0):
            raise UsageError(f"--shape {shape[0]}x{shape[1]} must not be negative")
        return explicit(platform, opts)
    return build
