"""The real pto-isa CPU simulator as a backend (oracle ``cpusim``): cpu cases through ptofuzz's harness.

:data:`ADAPTERS` names, per instruction, the function that turns its cases into harness requests; an
instruction without one is not in the harness (``cannot_answer`` says so).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ptofuzz.backends.base import CPUSIM, CPUSIM_CLANG
from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.simulator import Simulator, flags
from ptofuzz.core.case import UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.errors import UsageError
from ptofuzz.core.records import replace

if TYPE_CHECKING:
    import numpy as np

    from ptofuzz.instructions.registry import Instruction

Adapter = Callable[[Simulator, Case, "Mapping[str, np.ndarray]"], Outcome]


def _tpart(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import tpart

    return tpart.evaluate(sim, case, inputs)


def _tpartarg(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import tpart

    return tpart.evaluate_arg(sim, case, inputs)


def _unary(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import unary

    return unary.evaluate(sim, case, inputs)


def _tilescalar(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import tilescalar

    return tilescalar.evaluate(sim, case, inputs)


def _generation(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import generation

    return generation.evaluate(sim, case, inputs)


def _cmpsel(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import cmpsel

    return cmpsel.evaluate(sim, case, inputs)


def _tsort32(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import sort

    return sort.evaluate(sim, case, inputs)


def _tmrgsort(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    if case.param("descending") is not None:
        return Outcome.unsupported("a pto-spec TMRGSORT case (value tiles): the simulator merges records")
    from ptofuzz.backends.cpusim import mrgsort

    return mrgsort.evaluate(sim, case, inputs)


#: instruction -> its harness adapter (the harness compiles build.OPS)
ADAPTERS: dict[str, Adapter] = {
    "TPARTADD": _tpart, "TPARTMUL": _tpart, "TPARTMAX": _tpart, "TPARTMIN": _tpart,
    "TPARTARGMAX": _tpartarg, "TPARTARGMIN": _tpartarg, "TSORT32": _tsort32, "TMRGSORT": _tmrgsort,
    # the elementwise tile-tile arithmetic: the cpu cases' three tiles share one type, laid out as TPART*'s
    "TADD": _tpart, "TSUB": _tpart, "TMUL": _tpart, "TMAX": _tpart, "TMIN": _tpart,
    "TABS": _unary, "TNEG": _unary, "TRELU": _unary, "TNOT": _unary,
    "TADDS": _tilescalar, "TSUBS": _tilescalar, "TMULS": _tilescalar, "TMAXS": _tilescalar, "TMINS": _tilescalar,
    "TLRELU": _tilescalar,
    # bitwise: the tile-tile ones laid out as TADD's, the tile-scalar ones as TADDS's
    "TAND": _tpart, "TOR": _tpart, "TXOR": _tpart, "TSHL": _tpart, "TSHR": _tpart,
    "TANDS": _tilescalar, "TORS": _tilescalar, "TXORS": _tilescalar, "TSHLS": _tilescalar, "TSHRS": _tilescalar,
    "TEXPANDS": _generation, "TCI": _generation, "TTRI": _generation,  # the generation family
}
ADAPTERS = {**ADAPTERS, "TCMP": _cmpsel, "TCMPS": _cmpsel, "TSEL": _cmpsel, "TSELS": _cmpsel}  # compare/select


def _conversion(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import conversion

    return conversion.evaluate(sim, case, inputs)


def _dequant(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import dequant

    return dequant.evaluate(sim, case, inputs)


# TCVT: a kernel per source type, the destination chosen at run time
ADAPTERS = {**ADAPTERS, "TCVT": _conversion, "TDEQUANT": _dequant}


def _quant(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import quant

    return quant.evaluate(sim, case, inputs)


ADAPTERS = {**ADAPTERS, "TQUANT": _quant}  # INT8: the destination (int8 or uint8) chosen at run time
# the expansions: dst and src at one stride, as the unary family's (the source's valid region its own)
ADAPTERS = {**ADAPTERS, "TROWEXPAND": _unary, "TCOLEXPAND": _unary}


def _expandop(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import expandop

    return expandop.evaluate(sim, case, inputs)


# the arithmetic row expansions: src0 and src1 as TADD's, the expanded operand's layout chosen at run time
# the arithmetic column expansions: the three tiles as TADD's, src1's scalars in its first row
ADAPTERS = {**ADAPTERS, **{op: _expandop for op in ("TROWEXPANDADD", "TROWEXPANDSUB", "TROWEXPANDMUL",
                                                    "TROWEXPANDMAX", "TROWEXPANDMIN", "TCOLEXPANDADD",
                                                    "TCOLEXPANDSUB", "TCOLEXPANDMUL", "TCOLEXPANDMAX",
                                                    "TCOLEXPANDMIN")}}


def _ordered(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import ordered

    return ordered.evaluate(sim, case, inputs)


ADAPTERS = {**ADAPTERS, "TROWSUM": _ordered, "TCOLSUM": _ordered}  # the ordered reductions


def _product(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import product

    return product.evaluate(sim, case, inputs)


ADAPTERS = {**ADAPTERS, "TROWPROD": _product, "TCOLPROD": _product}  # the ordered products


def _reduce(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import reduce

    return reduce.evaluate(sim, case, inputs)


# the value reductions: dst and src at one stride, the result along dst's first column (row) or first row (column)
ADAPTERS = {**ADAPTERS, "TROWMAX": _reduce, "TROWMIN": _reduce, "TCOLMAX": _reduce, "TCOLMIN": _reduce}


def _argreduce(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import reduce

    return reduce.evaluate_arg(sim, case, inputs)


# the arg reductions: the value tile then the uint32 index tile per case (clang builds: TReduceIdx.hpp)
ADAPTERS = {**ADAPTERS, "TROWARGMAX": _argreduce, "TROWARGMIN": _argreduce, "TCOLARGMAX": _argreduce,
            "TCOLARGMIN": _argreduce}


def _pairsum(sim: Simulator, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    from ptofuzz.backends.cpusim import pairsum

    return pairsum.evaluate(sim, case, inputs)


# the pair-reduction sum: src at the request's stride, dst a tile of protocol.hpp's kPairRows rows per case
ADAPTERS = {**ADAPTERS, "TPAIRREDUCESUM": _pairsum}


def _no_device(case: Case) -> str | None:
    return None


def _quant_model(case: Case) -> str | None:
    from ptofuzz.backends.cpusim import quant

    return quant.model_platform(case)


#: per instruction, the platform whose model classes a case's simulator bits when it is not cpu's (a form the
#: pages put on a device only)
MODEL_PLATFORM: dict[str, Callable[[Case], str | None]] = {"TQUANT": _quant_model}


class _Live:
    """The simulator this process made (never pickled: each process starts its own harness)."""

    def __init__(self) -> None:
        self.pid = 0
        self.sim: Simulator | None = None


@dataclasses.dataclass(frozen=True)
class CpusimBackend:
    """The simulator built from ``settings`` (its tree, cache, compiler, sanitizers, timeout)."""

    settings: build.Settings = dataclasses.field(default_factory=build.Settings)
    _live: _Live = dataclasses.field(default_factory=_Live, compare=False, repr=False)

    name = CPUSIM
    platform = "cpu"

    def __getstate__(self) -> dict[str, Any]:
        return {"settings": self.settings}

    def __setstate__(self, state: dict[str, Any]) -> None:
        object.__setattr__(self, "settings", state["settings"])
        object.__setattr__(self, "_live", _Live())

    def simulator(self) -> Simulator:
        """This process's simulator for these settings (a forked process makes its own)."""
        live = self._live
        if live.sim is None or live.pid != os.getpid():
            live.sim, live.pid = Simulator(self.settings), os.getpid()
        return live.sim

    def cannot_answer(self, inst: Instruction) -> str | None:
        if inst.name in ADAPTERS:
            return None
        return f"{inst.name} is not in the cpusim harness yet; cpusim runs: {', '.join(covered())}"

    def evaluate(self, inst: Instruction, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
        adapter = ADAPTERS.get(inst.name)
        if adapter is None:
            return Outcome.unsupported(f"{inst.name} is not in the cpusim harness")
        device = MODEL_PLATFORM.get(inst.name, _no_device)(case)
        if device is None and case.dtype not in inst.platforms["cpu"].dtypes:
            return Outcome.unsupported(f"{inst.name} on cpu does not accept {case.dtype}")
        if device is not None:  # a form the pages put on a device only, which the simulator simulates
            model = inst.evaluate(case.on(device), inputs)
        else:
            model = inst.evaluate(case.on("cpu"), inputs)
        if model.kind is OutcomeKind.UNSUPPORTED:  # outside the page's contract (a runtime check the case breaks)
            return model
        return documented(model, adapter(self.simulator(), case, inputs))

    def flags(self) -> str:
        return flags(self.settings)

    def prepare(self) -> None:
        self.simulator().build()

    def provenance(self) -> dict[str, Any]:
        return {**self.simulator().target(), "oracle": self.name}


@dataclasses.dataclass(frozen=True)
class ClangCpusimBackend(CpusimBackend):
    """The same simulator and harness built with clang++ (``settings.with_clang()``): beside ``cpusim`` (g++),
    a result whose bits change with the compiler is a finding of its own (the pair ``cpusim~cpusim-clang``)."""

    name = CPUSIM_CLANG

    def cannot_answer(self, inst: Instruction) -> str | None:
        try:
            build.find_clang()
        except UsageError as e:
            return str(e)
        return super().cannot_answer(inst)


def documented(model: Outcome, out: Outcome) -> Outcome:
    """The simulator's bits under what pto-isa's pages pin: each element it wrote takes the class the cpu model
    (``model``: the same case and inputs) gives it ("a NaN" where a page says only that, undefined where a page
    leaves the element open), so that against another oracle (pto-spec, a device) only what the documents fix is
    compared. Element by element: a NaN the page leaves open excuses that element, not its row. cpu against
    cpusim compares under the same classes as before."""
    import numpy as np

    if out.kind is not OutcomeKind.OK or not out.classes or model.kind is not OutcomeKind.OK:
        return out
    classes = {}
    for role, cls in out.classes.items():
        pinned = model.classes.get(role)
        if pinned is None or pinned.shape[-2:] != cls.shape[-2:]:
            return out
        classes[role] = np.where(cls == UNDEFINED, cls, pinned).astype(np.uint8)
    return replace(out, classes=classes)


def covered() -> list[str]:
    """The instructions the harness runs, lower-case, in the registry's order."""
    from ptofuzz.instructions import registry

    return [n.lower() for n in registry.all_instructions() if n in ADAPTERS]

