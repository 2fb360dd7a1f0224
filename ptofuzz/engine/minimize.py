"""``ptofuzz minimize``: shrink a disagreement while its signature stays the same.

Greedy passes, repeated until none makes progress (or the evaluation budget is spent), each change kept only
when the case still shows the signature:

1. smaller tiles: the same rows or columns deleted from every tile (halves, quarters, ... single ones), then
   one tile's valid region reduced at a time;
2. fewer non-zero input elements: chunks of elements set to zero, halving the chunk size (delta debugging);
3. simpler values: remaining elements replaced by 1 (1.0 for floats), so that only the values the
   disagreement needs (an sNaN, -0, a large exponent) stay special.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ptofuzz.backends import choose
from ptofuzz.backends.base import Backends
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.engine import differential
from ptofuzz.instructions import registry
from ptofuzz.io import records

if TYPE_CHECKING:
    from ptofuzz.backends.cpusim.build import Settings

BUDGET = 4000  # oracle evaluations (each runs every oracle of the record once)


@dataclasses.dataclass(frozen=True)
class MinimizeResult:
    source: Path
    path: Path
    signature: str
    before: str  # tiles, e.g. "dst 16x16 (valid 16x16), ..."
    after: str
    nonzero_before: int
    nonzero_after: int
    evaluations: int
    record: records.Record


def _tiles(case: Case) -> str:
    return ", ".join(f"{r} {t.rows}x{t.cols}"
                     + ("" if t.valid == t.shape else f" (valid {t.valid_rows}x{t.valid_cols})")
                     for r, t in case.tiles)


def _nonzero(inputs: dict[str, np.ndarray]) -> int:
    return sum(int(np.count_nonzero(v)) for v in inputs.values())


def _cut(t: Tile, axis: int, start: int, width: int) -> Tile:
    """``t`` without rows (axis 0) or columns (axis 1) ``start .. start+width-1``."""
    def less(n: int) -> int:
        return n - max(0, min(n, start + width) - start) if start < n else n
    if axis == 0:
        return Tile(less(t.rows), t.cols, less(t.valid_rows), t.valid_cols)
    return Tile(t.rows, less(t.cols), t.valid_rows, less(t.valid_cols))


def _targets(n: int) -> list[int]:
    return sorted({k for k in (0, 1, 2, 4, n // 2, n - 1) if 0 <= k < n})


def _widths(n: int) -> list[int]:
    out, w = [], n // 2
    while w >= 1:
        out.append(w)
        w //= 2
    return out


def shrink_candidates(case: Case, inputs: dict[str, np.ndarray]) -> Iterator[tuple[Case, dict[str, np.ndarray]]]:
    """Smaller versions of ``case`` and its inputs: rows or columns deleted from every tile at once (halves,
    quarters, ... single ones; elementwise relations between the tiles stay), then one tile's valid region
    reduced at a time."""
    for axis in (0, 1):
        extent = max(t.shape[axis] for _, t in case.tiles)
        for width in _widths(extent):
            for start in range(extent - width, -1, -width):  # from the far end: clipping first
                tiles = tuple((r, _cut(t, axis, start, width)) for r, t in case.tiles)
                if any(0 in t.shape for _, t in tiles):
                    continue
                cut = {}
                for role, bits in inputs.items():
                    n = bits.shape[axis] if bits.ndim == 2 else 0
                    idx = [i for i in range(start, start + width) if i < n]
                    cut[role] = np.delete(bits, idx, axis=axis) if idx else bits.copy()
                yield case.replace(tiles=tiles), cut
    for i, (role, t) in enumerate(case.tiles):
        for vr, vc in [(k, t.valid_cols) for k in _targets(t.valid_rows)] + \
                      [(t.valid_rows, k) for k in _targets(t.valid_cols)]:
            cut_tiles = list(case.tiles)
            cut_tiles[i] = (role, Tile(t.rows, t.cols, vr, vc))
            yield case.replace(tiles=tuple(cut_tiles)), {r: v.copy() for r, v in inputs.items()}


def _derived(inst: registry.Instruction, platform: str) -> Callable[..., Iterator[tuple[Case, dict[str, np.ndarray]]]]:
    """The generic candidates, with the tiles an instruction derives from others (TSORT32's record tile from its
    source) rebuilt after each cut, so that no candidate is an impossible case."""
    sup = inst.platforms.get(platform)
    if sup is None or sup.profile.derive is None:
        return shrink_candidates
    derive = sup.profile.derive
    named = sup.profile.name_roles

    def candidates(case: Case, inputs: dict[str, np.ndarray]) -> Iterator[tuple[Case, dict[str, np.ndarray]]]:
        for cand, cand_inputs in shrink_candidates(case, inputs):
            tiles = dict(cand.tiles)
            rebuilt = cand.replace(tiles=derive({r: tiles[r] for r in named if r in tiles}))
            roles = dict(rebuilt.tiles)
            yield rebuilt, {role: _fit(bits, roles[role].shape) if role in roles and bits.ndim == 2 else bits
                            for role, bits in cand_inputs.items()}

    return candidates


def _fit(bits: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """``bits`` cut or zero-padded to ``shape``."""
    out = np.zeros(shape, dtype=bits.dtype)
    r, c = min(shape[0], bits.shape[0]), min(shape[1], bits.shape[1])
    out[:r, :c] = bits[:r, :c]
    return out


def minimize(inst: registry.Instruction, rec: records.Record, key: str, budget: int = BUDGET, *,
             backends: Backends | None = None) -> tuple[Case, dict[str, np.ndarray], int]:
    """The smallest case found that still shows signature ``key``, its inputs, and the evaluations spent
    (``backends``: the record's oracles, by default as :func:`ptofuzz.backends.choose.for_record` makes them)."""
    if backends is None:
        backends = choose.for_record(inst, rec.oracles, rec.extra.get("finding", {}).get("target"))
    spent = 0

    def shows(case: Case, inputs: dict[str, np.ndarray]) -> bool:
        nonlocal spent
        spent += 1
        try:
            _, sigs = differential.signatures_of(inst, case, inputs, backends)
        except Exception:  # noqa: BLE001 - a candidate the models cannot even evaluate is no smaller case
            return False
        return any(s.key == key for s in sigs)

    case, inputs = rec.case, {r: v.copy() for r, v in rec.inputs.items()}
    if not shows(case, inputs):
        where = f"{str(rec.path)!r}: " if rec.path is not None else ""
        raise UsageError(f"{where}the case does not show {key!r} (any more) with oracles "
                         f"{','.join(rec.oracles)}; replay it to see what it shows")
    shrink = inst.shrink or _derived(inst, case.platform)
    progress = True
    while progress and spent < budget:
        progress = False
        for cand, cand_inputs in shrink(case, inputs):
            if spent >= budget:
                break
            if shows(cand, cand_inputs):
                case, inputs, progress = cand, cand_inputs, True
                break
        if progress:
            continue
        for role in sorted(inputs):
            for replacement in (0, _one(inst, case, role)):
                if spent < budget and _simplify(inputs, role, replacement, functools.partial(shows, case),
                                                lambda: spent >= budget):
                    progress = True
    return case, inputs, spent


def _one(inst: registry.Instruction, case: Case, role: str) -> int:
    dt = inst.dtype_of(case, role)
    return dt.one


def _simplify(inputs: dict[str, np.ndarray], role: str, value: int,
              shows: Callable[[dict[str, np.ndarray]], bool], out_of_budget: Callable[[], bool]) -> bool:
    """Set chunks of ``role``'s elements (those not already 0 or ``value``) to ``value`` while the signature
    stays; True when anything changed."""
    changed = False
    flat = inputs[role].reshape(-1)
    todo = np.flatnonzero((flat != value) & (flat != 0))
    chunk = max(1, todo.size // 2)
    while todo.size and not out_of_budget():
        kept = []
        for start in range(0, todo.size, chunk):
            if out_of_budget():
                kept.append(todo[start:])
                break
            part = todo[start:start + chunk]
            trial = {r: v.copy() for r, v in inputs.items()}
            trial[role].reshape(-1)[part] = value
            if shows(trial):
                inputs[role] = trial[role]
                changed = True
            else:
                kept.append(part)
        todo = np.concatenate(kept) if kept else todo[:0]
        if chunk == 1:
            break
        chunk = max(1, chunk // 2)
    return changed


def minimize_path(path: Path, *, signature: str | None = None, force: bool = False,
                  instruction: registry.Instruction | None = None, budget: int = BUDGET,
                  sim: Settings | None = None) -> MinimizeResult:
    """Minimize the record at ``path`` and write it next to it as ``<folder>.min`` (a record folder)."""
    found = records.discover([path])
    if len(found) != 1:
        raise UsageError(f"{str(path)!r} holds {len(found)} records; name one finding folder or record file")
    rec = records.read(found[0])
    inst = instruction or registry.get(rec.case.op)
    key = signature or (rec.extra.get("finding") or {}).get("signature") or (rec.signatures[0] if rec.signatures
                                                                              else None)
    if not key:
        raise UsageError(f"{str(path)!r} shows no disagreement to keep; pass --signature")
    backends = choose.for_record(inst, rec.oracles, rec.extra.get("finding", {}).get("target"), sim=sim)
    case, inputs, spent = minimize(inst, rec, key, budget, backends=backends)
    outcomes, sigs = differential.signatures_of(inst, case, inputs, backends)
    source = found[0].parent if found[0].name == records.RECORD else found[0]
    target = source.with_name(source.name + ".min") if found[0].name == records.RECORD else \
        source.with_name(source.stem + ".min")
    extra = {"finding": {**(rec.extra.get("finding") or {}), "signature": key, "minimized_from": source.name},
             "replay": f"ptofuzz replay {target.name}"}  # relative to the folder holding both
    small = records.Record(case, inputs, rec.oracles, {o: records.describe(out) for o, out in outcomes.items()},
                           tuple(s.key for s in sigs), extra)
    if os.path.lexists(target):
        if not force:
            raise UsageError(f"{str(target)!r} already exists; pass --force to overwrite")
        if target.is_symlink() or not target.is_dir():
            raise UsageError(f"{str(target)!r} is no record folder: --force replaces only an earlier minimized "
                             "record; move it away")
        foreign = sorted(p.name for p in target.iterdir() if p.name != records.RECORD and p.suffix != ".bin")
        if foreign:
            raise UsageError(f"{str(target)!r} holds {foreign[0]!r}, which no record folder holds: --force replaces "
                             "only what ptofuzz wrote; move it away")
    written = records.write(small, inst, target, outcomes=outcomes, force=True)
    small.path = written
    return MinimizeResult(source, target, key, _tiles(rec.case), _tiles(case), _nonzero(rec.inputs),
                          _nonzero(inputs), spent, small)
