"""``ptofuzz replay``: run recorded cases (findings, corpora) through their oracles again and report changes."""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ptofuzz.backends import choose
from ptofuzz.backends.base import ASLREF, Backend
from ptofuzz.core.case import TextEnum
from ptofuzz.core.errors import CaseFolderError
from ptofuzz.core.signature import FAILURE_KINDS
from ptofuzz.engine import differential
from ptofuzz.instructions import registry
from ptofuzz.io import records

if TYPE_CHECKING:
    from ptofuzz.backends.aslref import AslrefSettings
    from ptofuzz.backends.cpusim.build import Settings


class ReplayVerdict(TextEnum):
    """What replaying a record found."""

    SAME = "same"  # every oracle says what the record says
    CHANGED = "changed"  # an outcome or a signature differs from the record's
    ERROR = "error"  # the record could not be read, or an oracle it was made with cannot run here


@dataclasses.dataclass(frozen=True)
class ReplayResult:
    path: Path
    op: str
    verdict: ReplayVerdict
    changes: tuple[str, ...] = ()
    signatures: tuple[str, ...] = ()  # what the case shows now
    known: str | None = None  # when every signature it shows is a documented difference: the first reason
    failures: tuple[str, ...] = ()  # a real target that crashed or hung on it now: "cpusim crash: <first line>"

    @property
    def reproduce(self) -> str:
        return f"ptofuzz replay {shlex.quote(str(self.path))}"


def replay_record(rec: records.Record, inst: registry.Instruction, *, sim: Settings | None = None,
                  built: dict[Any, Backend] | None = None, aslref: AslrefSettings | None = None) -> ReplayResult:
    """Run one record through its oracles again (the simulator as the finding was made: ``sim`` for its tree
    and cache; ``built``: backends made for earlier records, shared)."""
    assert rec.path is not None
    usable = choose.available(inst, aslref)
    if ASLREF in rec.oracles and ASLREF not in usable:
        from ptofuzz.backends.aslref import AslrefBackend

        why = (AslrefBackend() if aslref is None else AslrefBackend(aslref)).cannot_answer(inst)
        return ReplayResult(rec.path, inst.name, ReplayVerdict.ERROR,
                            (f"made with the aslref oracle, which cannot run here: {why}",))
    backends = choose.for_record(inst, rec.oracles, rec.extra.get("finding", {}).get("target"), sim=sim,
                                 built=built, aslref=aslref, usable=usable)
    outcomes, sigs = differential.signatures_of(inst, rec.case, rec.inputs, backends)
    now = tuple(s.key for s in sigs)
    changes = []
    for oracle in rec.oracles:
        want = rec.expect.get(oracle)
        if oracle not in outcomes:
            changes.append(f"{oracle}: {inst.name} has no {oracle} model any more")
            continue
        got = records.describe(outcomes[oracle])
        if want is None:
            continue
        if want.get("outcome") != got["outcome"]:
            changes.append(f"{oracle}: outcome {want.get('outcome')} -> {got['outcome']}")
        elif want.get("digest") != got["digest"]:
            changes.append(f"{oracle}: outputs or element classes changed (digest {want.get('digest')} -> "
                           f"{got['digest']})")
    gone = sorted(set(rec.signatures) - set(now))
    new = sorted(set(now) - set(rec.signatures))
    changes += [f"no longer shows {k}" for k in gone] + [f"now also shows {k}" for k in new]
    assert rec.path is not None
    verdict = ReplayVerdict.CHANGED if changes else ReplayVerdict.SAME
    reasons = [differential.known_difference(inst, s, backends) for s in sigs]
    known = reasons[0] if reasons and all(reasons) else None
    failures = tuple(f"{o} {out.kind}: {out.reason}" for o, out in outcomes.items() if out.kind in FAILURE_KINDS)
    return ReplayResult(rec.path, inst.name, verdict, tuple(changes), now, known, failures)


def replay(paths: Sequence[str | Path], instructions: Mapping[str, registry.Instruction] | None = None, *,
           sim: Settings | None = None, aslref: AslrefSettings | None = None) -> list[ReplayResult]:
    """Replay every record under ``paths``; ``instructions`` may replace registry entries (tests plant bugs);
    ``sim``: the simulator's tree and cache for records made against cpusim; ``aslref``: where pto-spec's ASL
    model is, for records made against aslref."""
    built: dict[Any, Backend] = {}
    out = []
    for path in records.discover([Path(p) for p in paths]):
        try:
            rec = records.read(path)
            inst = (instructions or {}).get(rec.case.op) or registry.get(rec.case.op)
            out.append(replay_record(rec, inst, sim=sim, built=built, aslref=aslref))
        except CaseFolderError as e:
            out.append(ReplayResult(path, "?", ReplayVerdict.ERROR, (str(e),)))
    return out
