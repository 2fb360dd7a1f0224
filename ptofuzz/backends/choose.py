"""Building a comparison's backends from what the user asked for (``--oracles``, ``--target``, the simulator
options), once, with one-line errors for whatever cannot be built."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ptofuzz.backends.base import ASLREF, BUNDLE, CPUSIM, REAL, SIMULATORS, TARGET, Backend, Backends
from ptofuzz.backends.model import ModelBackend
from ptofuzz.core import platforms
from ptofuzz.core.errors import UsageError

if TYPE_CHECKING:
    from ptofuzz.backends.aslref import AslrefSettings
    from ptofuzz.backends.cpusim.build import Settings
    from ptofuzz.backends.target import TargetBackend
    from ptofuzz.instructions.registry import Instruction


def oracle_name(oracle: str) -> str:
    """An oracle name with a platform alias replaced by the platform's table name (kirinX90 -> kirin9030)."""
    if oracle in REAL or oracle in platforms.names():
        return oracle
    try:
        return platforms.canonical(oracle)
    except UsageError:
        return oracle  # choose names it in its error


def available(inst: Instruction, aslref: AslrefSettings | None = None) -> tuple[str, ...]:
    """Every oracle that can run ``inst`` without options: its platforms, then bundle and cpusim if it has them,
    and aslref where its interpreter and model are (``aslref``, else the environment)."""
    from ptofuzz.backends.aslref import AslrefBackend
    from ptofuzz.backends.bundle import BundleBackend
    from ptofuzz.backends.cpusim.backend import ClangCpusimBackend, CpusimBackend

    asl = AslrefBackend() if aslref is None else AslrefBackend(aslref)
    real = [b.name for b in (BundleBackend(), CpusimBackend(), ClangCpusimBackend(), asl)
            if b.cannot_answer(inst) is None]
    return (*inst.platforms, *real)


def backend(inst: Instruction, name: str, *, sim: Settings | None = None, target: TargetBackend | None = None,
            aslref: AslrefSettings | None = None) -> Backend:
    """The backend called ``name`` for ``inst`` (a one-line UsageError when it has none)."""
    b: Backend
    if name == BUNDLE:
        from ptofuzz.backends.bundle import BundleBackend

        b = BundleBackend()
    elif name == ASLREF:
        from ptofuzz.backends.aslref import AslrefBackend

        b = AslrefBackend() if aslref is None else AslrefBackend(aslref)
    elif name in SIMULATORS:
        from ptofuzz.backends.cpusim.backend import ClangCpusimBackend, CpusimBackend
        from ptofuzz.backends.cpusim.build import Settings

        settings = sim or Settings()
        b = CpusimBackend(settings) if name == CPUSIM else ClangCpusimBackend(settings.with_clang())
    elif name == TARGET:
        if target is None:
            raise UsageError("--oracles target needs --target CMD (the command that runs one case folder)")
        b = target
    else:
        inst.support(name)  # an unknown platform, or no model of it: one-line error naming the choices
        b = ModelBackend(platforms.canonical(name))
    why = b.cannot_answer(inst)
    if why is not None:
        raise UsageError(why)
    return b


def choose(inst: Instruction, names: Sequence[str], *, sim: Settings | None = None,
           target: TargetBackend | None = None, aslref: AslrefSettings | None = None) -> Backends:
    """The backends of ``names`` (aliases resolved), each checked against ``inst``."""
    return Backends(tuple(backend(inst, oracle_name(n), sim=sim, target=target, aslref=aslref) for n in names))


def for_record(inst: Instruction, oracles: Sequence[str], finding_target: Mapping[str, Any] | None = None, *,
               sim: Settings | None = None, built: dict[Any, Backend] | None = None,
               aslref: AslrefSettings | None = None, usable: Sequence[str] | None = None) -> Backends:
    """The backends that run a saved record again: its oracles that need no command line (an external target
    is left out), the simulator as the finding was made (its sanitizers, planted bug and, when ``sim`` names no
    tree, its tree). ``built``: backends already made for earlier records (one simulator per settings);
    ``aslref``: where pto-spec's ASL model is (else the environment); ``usable``: :func:`available`'s answer
    when the caller has it."""
    from ptofuzz.backends.cpusim.build import Settings
    from ptofuzz.backends.cpusim.simulator import like

    usable = available(inst, aslref) if usable is None else usable
    names = [o for o in oracles if o in usable]
    settings = like(sim or Settings(), dict(finding_target or {})) if set(SIMULATORS) & set(names) else None
    if settings is not None and not settings.ops:  # the build need only hold this instruction
        settings = dataclasses.replace(settings, ops=(inst.name,))
    cache = built if built is not None else {}
    out = []
    for name in names:
        key = (name, settings) if name in SIMULATORS else name
        if key not in cache:
            cache[key] = backend(inst, name, sim=settings, aslref=aslref)
        out.append(cache[key])
    return Backends(tuple(out))
