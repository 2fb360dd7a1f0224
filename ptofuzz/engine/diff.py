"""``ptofuzz diff``: two raw tile files, or two oracles' outputs of a saved finding, element by element."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ptofuzz.backends import choose
from ptofuzz.core import case as case_mod
from ptofuzz.core import dtypes
from ptofuzz.core.case import BOUNDED, EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.errors import CaseFolderError, PtofuzzError, UsageError
from ptofuzz.core.signature import FAILURE_KINDS, Signature
from ptofuzz.instructions import registry
from ptofuzz.io import casefolder

if TYPE_CHECKING:  # the comparison engine and the verdicts are imported by check and diff, not by gen
    from ptofuzz.engine.compare import Mode
    from ptofuzz.engine.verdicts import DiffResult


def diff_files(golden: str | Path, output: str | Path, dtype: str, shape: tuple[int, int], *,
               valid: tuple[int, int] | None = None, mode: Mode | None = None, eps: float | None = None,
               half_as_bits: bool = False) -> DiffResult:
    """Compare two raw little-endian files of ``shape`` elements of ``dtype``."""
    import shlex

    from ptofuzz.engine.compare import Mode, compare
    from ptofuzz.engine.verdicts import DiffResult

    mode = mode or Mode()
    for f in (golden, output):
        if not Path(f).is_file():
            raise UsageError(f"{str(f)!r} is no file")
    dt = dtypes.get(dtype)
    r, c = shape
    if r < 0 or c < 0 or r * c > case_mod.MAX_TILE_ELEMENTS:
        raise UsageError(f"--shape {r}x{c} is no tile ptofuzz handles (up to {case_mod.MAX_TILE_ELEMENTS:,} elements)")
    v = valid or shape
    if v[0] > r or v[1] > c:
        raise UsageError(f"--valid {v[0]}x{v[1]} is larger than --shape {r}x{c}")
    try:
        exp = casefolder.read_tile_file(Path(golden), dt, shape)
        act = casefolder.read_tile_file(Path(output), dt, shape)
    except CaseFolderError as e:
        raise UsageError(str(e)) from None
    cmp = compare(exp, None, act, dt, mode=mode, valid=v, eps=eps, half_as_bits=half_as_bits)
    flags = _mode_flags(mode, eps, half_as_bits) + (f" --valid {v[0]}x{v[1]}" if valid else "")
    return DiffResult(f"{golden} vs {output}", dt.name, shape, v, cmp,
                      f"ptofuzz diff {shlex.quote(str(golden))} {shlex.quote(str(output))} --dtype {dt.name} "
                      f"--shape {r}x{c}{flags}")


def _mode_flags(mode: Mode, eps: float | None = None, half_as_bits: bool = False) -> str:
    out = "" if mode.kind == "bits" else f" --mode {mode.kind}"
    out += f" --eps {eps:g}" if eps is not None else ""
    out += " --half-as-bits" if half_as_bits else ""
    out += f" --ulp {mode.ulp}" if mode.kind == "ulp" else ""
    out += f" --rtol {mode.rtol:g}" if mode.rtol is not None else ""
    out += f" --atol {mode.atol:g}" if mode.atol is not None else ""
    out += " --nan any" if mode.nan == "any" else ""
    out += " --zeros unsigned" if mode.zeros == "unsigned" else ""
    return out


class OracleFailed(PtofuzzError):
    """The finding asked about is an oracle that crashed or hung (a real target): there are no values to compare,
    but what happened is the answer (``ptofuzz diff`` shows it and exits 1)."""

    def __init__(self, oracle: str, kind: str, reason: str, reproduce: str) -> None:
        super().__init__(f"{oracle} {kind} on this case: {reason}")
        self.oracle, self.kind, self.reason, self.reproduce = oracle, kind, reason, reproduce


def diff_record(path: str | Path, oracles: Sequence[str] | None = None, *, mode: Mode | None = None,
                eps: float | None = None, half_as_bits: bool = False) -> list[DiffResult]:
    """Compare two oracles' outputs of a saved case record (a fuzz finding): by default the pair of its
    signature, the first oracle's output taken as the expected side. A crash or hang finding (one oracle) raises
    :class:`OracleFailed` with what the oracle did, while it still does."""
    from ptofuzz.engine import differential
    from ptofuzz.engine.compare import Mode, compare
    from ptofuzz.engine.verdicts import DiffResult
    from ptofuzz.io import records

    mode = mode or Mode()

    found = records.discover([Path(path)])
    if len(found) != 1:
        raise UsageError(f"{str(path)!r} holds {len(found)} records; name one finding folder or record file")
    rec = records.read(found[0])
    inst = registry.get(rec.case.op)
    if oracles:
        pair = list(oracles)
    else:
        key = (rec.extra.get("finding") or {}).get("signature") or (rec.signatures[0] if rec.signatures else "")
        try:
            pair = list(Signature.from_key(str(key)).oracles()) if key else list(rec.oracles[:2])
        except ValueError as e:
            raise UsageError(f"{str(path)!r}: {e}; pass --oracles A,B") from None
    pair = [o for o in pair if o]  # a crash or hang finding names one oracle: the one that failed
    usable = choose.available(inst)
    if not 1 <= len(pair) <= 2 or (len(pair) == 1 and oracles) or any(o not in usable for o in pair):
        raise UsageError(f"--oracles {','.join(pair)}: name two of {', '.join(usable)}")
    backends = choose.for_record(inst, pair, rec.extra.get("finding", {}).get("target"))
    outcomes = differential.run_oracles(inst, rec.case, rec.inputs, backends)
    for o in pair:
        out = outcomes[o]
        if out.kind in FAILURE_KINDS:
            raise OracleFailed(o, out.kind, out.reason, f"ptofuzz replay {shlex.quote(str(path))}")
        if out.kind is not OutcomeKind.OK:
            raise UsageError(f"{o} gives no values for this case ({out.kind}: {out.reason}); its disagreement is "
                             "the outcome itself")
    if len(pair) == 1:
        raise UsageError(f"{str(path)!r} is a {pair[0]} failure that no longer happens: {pair[0]} gives values now "
                         f"(`ptofuzz replay {path!s}` says what changed); pass --oracles A,B to compare two")
    a, b = (outcomes[o] for o in pair)
    results = []
    for role in inst.outputs:
        tile = rec.case.tile(role)
        regions = inst.regions(rec.case, role) if inst.regions is not None else None
        dt = inst.dtype_of(rec.case, role)
        # elements either oracle leaves undefined are not compared
        classes = np.where(b.classes[role] == UNDEFINED, np.uint8(UNDEFINED), a.classes[role]).astype(np.uint8)
        bounds = _bounds(role, a, b, classes)
        cmp = compare(a.outputs[role], classes, b.outputs[role], dt, mode=mode, valid=tile.valid, regions=regions,
                      eps=eps, half_as_bits=half_as_bits, bounds=bounds)
        beside = tuple(_element_row(inst, rec.case, rec.inputs, {o: outcomes[o] for o in pair}, e.row, e.col)
                       for e in cmp.first) if role in inst.index_roles else ()
        results.append(DiffResult(f"{pair[0]} (expected) vs {pair[1]}: {role}", dt.name, tile.shape, tile.valid, cmp,
                                  f"ptofuzz diff {shlex.quote(str(path))} --oracles {pair[0]},{pair[1]}"
                                  f"{_mode_flags(mode, eps, half_as_bits)}", beside))
    return results


def _element_row(inst: registry.Instruction, case: Case, inputs: Mapping[str, np.ndarray],
                 outcomes: Mapping[str, Outcome], r: int, c: int) -> dict[str, str]:
    """One element, value and index side by side (an index role is named ``<value role>_idx``): each source's
    (``-`` outside its valid region), then each oracle's result. Which source a differing index came from,
    next to the values that decided it."""
    def shown(bits: np.ndarray, role: str, inside: bool = True) -> str:
        return dtypes.format_bits(int(bits[r, c]), inst.dtype_of(case, role)) if inside else "-"

    row = {"element": f"row {r}, col {c}"}
    for role in inst.inputs:
        if f"{role}_idx" in inst.inputs:
            t = case.tile(role)
            inside = r < min(t.valid_rows, t.rows) and c < min(t.valid_cols, t.cols)
            row[role] = f"{shown(inputs[role], role, inside)} / {shown(inputs[role + '_idx'], role + '_idx', inside)}"
    for role in inst.outputs:
        if f"{role}_idx" in inst.outputs:
            for o, out in outcomes.items():
                row[f"{o} {role}"] = (f"{shown(out.outputs[role], role)} / "
                                      f"{shown(out.outputs[role + '_idx'], role + '_idx')}")
    return row


def _bounds(role: str, a: Outcome, b: Outcome, classes: np.ndarray) -> np.ndarray | None:
    """The ULP bound of each element either side states one for (the larger where both do); ``classes`` becomes
    BOUNDED where only ``b`` bounds an element ``a`` pins."""
    if role not in a.bounds and role not in b.bounds:
        return None
    limit = np.zeros(classes.shape, dtype=np.int64)
    for out in (a, b):
        if role in out.bounds:
            limit = np.maximum(limit, np.where(out.classes[role] == BOUNDED, out.bounds[role], 0))
    classes[(b.classes[role] == BOUNDED) & (classes == EXACT)] = BOUNDED
    return limit
