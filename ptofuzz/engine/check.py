"""``ptofuzz check``: recompute each case folder's golden from its inputs and compare its files bit for bit."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ptofuzz.backends.base import Backend, Pooled
from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import EXACT, Outcome, OutcomeKind
from ptofuzz.core.errors import CaseFolderError
from ptofuzz.core.records import replace
from ptofuzz.engine.compare import Verdict, compare, pto_isa_eps
from ptofuzz.engine.verdicts import CaseVerdict, FileVerdict
from ptofuzz.instructions import registry
from ptofuzz.io import casefolder


def check(paths: Sequence[str | Path], platform: str | None = None, oracle: Backend | None = None
          ) -> list[CaseVerdict]:
    """Recompute each case folder's golden from its inputs and compare golden.bin (and output.bin if there).

    ``oracle``: a real backend that recomputes the folders of its platform instead of the model: the cpusim
    simulator cpu folders, pto-spec's ASL model (aslref) spec folders, all of those in one run.
    Errors that concern one folder (wrong file size, unparseable name) give that folder the verdict
    ``error``; errors in the request itself (missing path) raise UsageError.
    """
    if platform is not None:
        platform = platforms.canonical(platform)
    verdicts = []
    folders = casefolder.discover([Path(p) for p in paths])
    ready = _pooled(folders, platform, oracle) if oracle is not None else {}
    for path in folders:
        try:
            verdicts.append(_check_one(path, platform, oracle, ready.get(path)))
        except CaseFolderError as e:
            verdicts.append(CaseVerdict(path, path.name, "?", platform or "?", "?", "?", Verdict.ERROR, message=str(e),
                                        oracle=oracle.name if oracle is not None else ""))
    return verdicts


def check_case(path: Path, platform: str | None = None) -> CaseVerdict:
    """One case folder's verdict (CaseFolderError when it cannot be read)."""
    return _check_one(path, platform, None)


def _loosened(real: Outcome, model: Outcome) -> Outcome:
    """The real simulator's bits, free wherever the model (which wrote the golden) leaves an element free ("some
    NaN", "some zero", undefined): a golden only promises its defined elements."""
    if real.kind is not OutcomeKind.OK or model.kind is not OutcomeKind.OK:
        return real
    classes = {role: np.where(model.classes[role] != EXACT, model.classes[role], real.classes[role])
               for role in real.classes}
    return replace(real, classes=classes)


def _answers(oracle: Backend, lc: casefolder.LoadedCase) -> bool:
    """Whether ``oracle`` recomputes this folder: one of its platform's kind, of an instruction it runs."""
    kind = platforms.get(oracle.platform).kind
    return platforms.get(lc.case.platform).kind == kind and oracle.cannot_answer(lc.inst) is None


Ready = tuple[casefolder.LoadedCase, dict[str, np.ndarray], Outcome]  # a folder loaded, its inputs, the answer


def _pooled(folders: Sequence[Path], platform: str | None, oracle: Backend) -> dict[Path, Ready]:
    """A :class:`Pooled` oracle's outcomes of every folder it answers (with the folder loaded and its inputs, so
    that :func:`_check_one` reads nothing twice), each instruction's in one go (aslref: one interpreter run); a
    folder that does not load is left to :func:`_check_one`, which reports it."""
    if not isinstance(oracle, Pooled):
        return {}
    todo: dict[str, list[tuple[Path, casefolder.LoadedCase, dict[str, np.ndarray]]]] = {}
    for path in folders:
        try:
            lc = casefolder.load(path, platform)
            if _answers(oracle, lc):
                todo.setdefault(lc.case.op, []).append((path, lc, casefolder.read_inputs(lc)))
        except CaseFolderError:
            continue
    out: dict[Path, Ready] = {}
    for group in todo.values():
        inst = group[0][1].inst
        got = oracle.evaluate_all(inst, [(lc.case.on(oracle.name), inputs) for _, lc, inputs in group])
        out.update((path, (lc, inputs, o)) for (path, lc, inputs), o in zip(group, got))
    return out


def _check_one(path: Path, platform: str | None, oracle: Backend | None, ready: Ready | None = None
               ) -> CaseVerdict:
    lc = casefolder.load(path, platform) if ready is None else ready[0]
    case, prof = lc.case, lc.profile
    dt = dtypes.get(case.dtype)
    if oracle is not None:
        if not _answers(oracle, lc):
            covered = [n for n, i in registry.all_instructions().items() if oracle.cannot_answer(i) is None]
            raise CaseFolderError(f"--oracle {oracle.name} recomputes {oracle.platform} case folders of "
                                  f"{', '.join(covered)}; this folder is {case.op} on {case.platform}")
        if ready is not None:
            _, inputs, outcome = ready
        else:
            inputs = casefolder.read_inputs(lc)
            outcome = oracle.evaluate(lc.inst, case.on(oracle.name), inputs)
        if outcome.kind is OutcomeKind.UNSUPPORTED:  # the build cannot answer it: skipped, not a damaged folder
            return CaseVerdict(path, path.name, case.op, case.platform, dt.name, outcome.kind, Verdict.SKIP,
                               message=f"{oracle.name} cannot run this case: {outcome.reason}", oracle=oracle.name)
        outcome = _loosened(outcome, lc.inst.evaluate(case, inputs))
    else:
        inputs = casefolder.read_inputs(lc)
        outcome = lc.inst.evaluate(case, inputs)
    base: dict[str, Any] = dict(path=path, name=path.name, op=case.op, platform=case.platform, dtype=dt.name,
                                outcome=outcome.kind, oracle=oracle.name if oracle is not None else "")
    messages = []
    for entry in (lc.manifest or {}).get("files", []):
        fpath = path / entry.get("name", "")
        if casefolder.present(fpath):
            why = casefolder.unlike_manifest(fpath, entry)
            if why:
                messages.append(f"{entry['name']} is not the file ptofuzz wrote ({why})")
    expected = (lc.manifest or {}).get("expected", {})
    if expected and expected.get("outcome") != outcome.kind:
        messages.append(f"manifest expects outcome {expected.get('outcome')!r}, recomputed {outcome.kind!r}"
                        + (f" ({outcome.reason})" if outcome.reason else ""))
    if expected.get("executed") is not None and outcome.extra.get("executed") != expected["executed"]:
        messages.append(f"manifest executed counts {expected['executed']} differ from recomputed "
                        f"{outcome.extra.get('executed')}")
    if outcome.kind is OutcomeKind.OK and expected.get("flags") is not None and outcome.flags is not None \
            and list(outcome.flags) != list(expected["flags"]):
        messages.append(f"manifest flags {expected['flags']} differ from recomputed {list(outcome.flags)}")
    files = []
    goldens: dict[str, np.ndarray] = {}
    golden = prof.goldens(case)
    for fname, role in (*golden, *prof.outputs):
        fpath = path / fname
        is_golden = (fname, role) in golden
        if outcome.kind is not OutcomeKind.OK:
            if casefolder.present(fpath):
                files.append(FileVerdict(fname, None, f"present, but the case's outcome is {outcome.kind}: "
                                                      f"{outcome.reason}"))
            continue
        tile = case.tile(role)
        shape = prof.file_shape(tile)
        if not casefolder.present(fpath):
            if is_golden and shape[0] * shape[1] > 0:
                files.append(FileVerdict(fname, None, "missing"))
            continue
        fdt = lc.inst.dtype_of(case, role)
        actual = casefolder.read_tile_file(fpath, fdt, shape, prof.packs(fdt.name))
        r, c = shape
        regions = None
        if lc.inst.regions is not None and role in lc.inst.outputs:
            names, codes = lc.inst.regions(case, role)
            regions = (names, codes[:r, :c])
        eps = pto_isa_eps(case.op, case.platform)
        bound = outcome.bounds.get(role)
        bound = None if bound is None else bound[:r, :c]
        cmp = compare(outcome.outputs[role][:r, :c], outcome.classes[role][:r, :c], actual, fdt,
                      valid=(min(tile.valid_rows, r), min(tile.valid_cols, c)), regions=regions, eps=eps,
                      half_as_bits=platforms.get(case.platform).half_as_bits, bounds=bound)
        files.append(FileVerdict(fname, cmp, dtype=fdt.name, shape=(r, c),
                                 valid=(min(tile.valid_rows, r), min(tile.valid_cols, c))))
        if is_golden and not files[-1].ok:
            goldens[role] = actual
        listed = expected.get("classes")
        if oracle is None and is_golden and isinstance(listed, dict) and \
                listed.get(fname, {}) != casefolder.class_masks(outcome.classes[role][:r, :c], bound):
            messages.append(f"ptofuzz.json lists other non-exact elements of {fname} than recomputed; regenerate "
                            "the folder (ptofuzz gen ... --force)")
    if goldens and lc.inst.explain is not None:
        why = lc.inst.explain(case, inputs, goldens)
        if why:
            messages.append(why)
    verdict = Verdict.PASS if not messages and all(f.ok for f in files) else Verdict.FAIL
    unjudged = outcome.extra.get(oracle.name) if oracle is not None and outcome.kind is OutcomeKind.OK else None
    if verdict is Verdict.PASS and unjudged:  # aslref's placeholders: the outcome agrees, the values are not judged
        verdict, messages = Verdict.SKIP, [str(unjudged)]
    return CaseVerdict(**base, verdict=verdict, files=tuple(files), message="; ".join(messages))
