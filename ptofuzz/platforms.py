"""The platforms, as data: every module asks this table instead of comparing platform names.

A platform is what a golden is computed for: the formal spec, pto-isa's CPU simulator, or an NPU whose pto-isa
kernels are in ``include/pto/npu/<implementation>``. Facts from pto-isa-conventions.md (pto-isa 3186c381).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from ptofuzz.errors import UsageError

SPEC, CPU, NPU = "spec", "cpu", "npu"  # kinds


@dataclasses.dataclass(frozen=True)
class Platform:
    """One platform.

    Attributes:
        name: as on the command line (``--platform``).
        kind: ``spec`` (pto-spec's model), ``cpu`` (pto-isa's CPU simulator) or ``npu``.
        implementation: the pto-isa headers it runs (``include/pto/<kind>/<implementation>``); platforms that
            share headers share semantics.
        test_root: where pto-isa keeps its system tests (empty for spec).
        eps: the eps its system tests pass to ResultCmp, per family (TPART, TSORT32, TMRGSORT).
        half_as_bits: its tests' float16 is ``aclFloat16`` = ``uint16_t``, compared as integers.
        aliases: other names accepted for it.
    """

    name: str
    kind: str
    implementation: str
    test_root: str = ""
    eps: Mapping[str, float] = dataclasses.field(default_factory=dict)
    half_as_bits: bool = False
    aliases: tuple[str, ...] = ()

    @property
    def is_npu(self) -> bool:
        return self.kind == NPU


TABLE: tuple[Platform, ...] = (
    Platform("spec", SPEC, "spec"),
    Platform("cpu", CPU, "cpu", "tests/cpu/st", {"TPART": 0.0, "TSORT32": 1e-3, "TMRGSORT": 1e-3}),
    Platform("a2a3", NPU, "a2a3", "tests/npu/a2a3/src/st", {"TPART": 1e-3, "TSORT32": 1e-3, "TMRGSORT": 1e-3},
             half_as_bits=True),
    Platform("a5", NPU, "a5", "tests/npu/a5/src/st", {"TPART": 1e-3, "TSORT32": 1e-2, "TMRGSORT": 1e-3},
             half_as_bits=True),
)
_BY_NAME = {n: p for p in TABLE for n in (p.name, *p.aliases)}


def names() -> tuple[str, ...]:
    """Every platform's name, in table order."""
    return tuple(p.name for p in TABLE)


def get(name: str) -> Platform:
    """The platform called ``name`` (or one of its aliases); a one-line UsageError otherwise."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UsageError(f"unknown platform {name!r}; use one of: {', '.join(names())}") from None


def family_of(op: str) -> str:
    """The eps family of an instruction: TPART for every TPART* op, else the op itself."""
    return "TPART" if op.startswith("TPART") else op
