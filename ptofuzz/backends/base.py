"""What every oracle of a comparison is: a :class:`Backend`, and a campaign's set of them, :class:`Backends`.

A backend answers cases of one instruction: a platform model (``spec``, ``cpu``, ``a5``, ...), the bundle
executor (``bundle``), pto-spec's own ASL model (``aslref``), the real pto-isa CPU simulator (``cpusim``, and
``cpusim-clang`` built with clang) or an external command (``target``). Backends
are frozen values built once from the command line (:func:`ptofuzz.backends.choose.choose`) and passed down to
whatever evaluates cases; they pickle, so worker processes get the same ones. Whatever a backend starts (a
simulator process) belongs to the process that started it and is not pickled.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ptofuzz.core.case import Case, Outcome

if TYPE_CHECKING:
    import numpy as np

    from ptofuzz.instructions.registry import Instruction

BUNDLE = "bundle"  # the spec case run as a PTO bundle through the bundle executor
CPUSIM = "cpusim"  # the real pto-isa CPU simulator, on cpu cases, built with $CXX, else g++
CPUSIM_CLANG = "cpusim-clang"  # the same simulator built with clang++: the compiler is code under test too
SIMULATORS = (CPUSIM, CPUSIM_CLANG)
TARGET = "target"  # an external command run on case folders (fuzz --target CMD)
ASLREF = "aslref"  # pto-spec's own executable model (ASLRef), on spec cases
REAL = (BUNDLE, *SIMULATORS, TARGET, ASLREF)  # oracle names that are no platform
SPEC_MODELS = frozenset({"spec", BUNDLE, ASLREF})  # pto-spec's models: ptofuzz's two and pto-spec's own ASL


@runtime_checkable
class Backend(Protocol):
    """One oracle of a comparison."""

    @property
    def name(self) -> str:
        """Its name in ``--oracles`` and in signatures (``a5``, ``cpusim``, ...)."""
        ...

    @property
    def platform(self) -> str:
        """The platform whose cases it runs and whose documented differences apply to it (cpusim: cpu)."""
        ...

    def cannot_answer(self, inst: Instruction) -> str | None:
        """Why it cannot run ``inst`` at all (a one-line message naming the fix), or None."""
        ...

    def evaluate(self, inst: Instruction, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
        """The outcome of ``case`` (on this backend's name), inputs with or without a leading batch axis."""
        ...

    def flags(self) -> str:
        """The ``fuzz`` flags that build this backend again ('' for a model)."""
        ...

    def prepare(self) -> None:
        """Build or find what it needs (a compiled simulator) before any clock starts."""
        ...

    def provenance(self) -> dict[str, Any]:
        """What real code it ran (tree, commit, compiler, flags), for records; {} for a model."""
        ...


@runtime_checkable
class Pooled(Protocol):
    """A backend with a high fixed cost per call (aslref: one interpreter run, seconds to load its model): a
    campaign hands it the cases of several batches at once."""

    @property
    def pool(self) -> int:
        """How many cases it takes in one go, at least."""
        ...

    def evaluate_all(self, inst: Instruction, items: Sequence[tuple[Case, Mapping[str, np.ndarray]]]
                     ) -> list[Outcome]:
        """Each (case, inputs)'s outcome, as :meth:`Backend.evaluate` gives it, in one go."""
        ...


class Plain:
    """The defaults of a backend that needs no options, builds nothing and runs no real code of its own."""

    def flags(self) -> str:
        return ""

    def prepare(self) -> None:
        return None

    def provenance(self) -> dict[str, Any]:
        return {}


def no_model(inst: Instruction, platform: str) -> str | None:
    """Why ``inst`` has no model of ``platform`` (an unknown platform, or none of this instruction), or None."""
    from ptofuzz.core.errors import UsageError

    try:
        inst.support(platform)
    except UsageError as e:
        return str(e)
    return None


@dataclasses.dataclass(frozen=True)
class Backends:
    """The oracles of one comparison, in the order given."""

    items: tuple[Backend, ...]

    def __iter__(self) -> Iterator[Backend]:
        return iter(self.items)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.items)

    def get(self, name: str) -> Backend | None:
        return next((b for b in self.items if b.name == name), None)

    def simulator(self) -> Backend | None:
        """The first simulator of the comparison (``cpusim``, else ``cpusim-clang``), or None: the builds share
        their settings (tree, sanitizers, planted bug), so its flags and tree stand for both."""
        return next((b for b in (self.get(n) for n in SIMULATORS) if b is not None), None)

    def case_space(self, name: str) -> str:
        """The platform whose cases oracle ``name`` runs (a model: itself)."""
        b = self.get(name)
        return b.platform if b is not None else name

    def evaluate(self, inst: Instruction, case: Case, inputs: Mapping[str, np.ndarray]) -> dict[str, Outcome]:
        """Each backend's outcome of the same tiles and inputs (``case`` re-targeted to each name)."""
        with inst.sharing():
            return {b.name: b.evaluate(inst, case.on(b.name), inputs) for b in self.items}

    @property
    def pool(self) -> int:
        """How many cases a :class:`Pooled` backend wants in one go (0: none is pooled)."""
        return max((b.pool for b in self.items if isinstance(b, Pooled)), default=0)

    def evaluate_all(self, inst: Instruction, items: Sequence[tuple[Case, Mapping[str, np.ndarray]]]
                     ) -> list[dict[str, Outcome]]:
        """:meth:`evaluate` of each (case, inputs), a :class:`Pooled` backend answering all of them at once."""
        outs: list[dict[str, Outcome]] = [{} for _ in items]
        with inst.sharing():
            for b in self.items:
                mine = [(case.on(b.name), inputs) for case, inputs in items]
                got = b.evaluate_all(inst, mine) if isinstance(b, Pooled) else \
                    [b.evaluate(inst, case, inputs) for case, inputs in mine]
                for out, o in zip(outs, got):
                    out[b.name] = o
        return outs

    def prepare(self) -> None:
        for b in self.items:
            b.prepare()
