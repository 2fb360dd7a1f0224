"""The platforms, as data: every module asks this table instead of comparing platform names.

A platform is what a golden is computed for: the formal spec, pto-isa's CPU simulator, or an NPU whose pto-isa
kernels are in ``include/pto/npu/<implementation>``. Facts from pto-isa 3186c381: its system tests
(``testcase/<op>/main.cpp``: the eps each passes to ``ResultCmp`` of ``tests/common/test_common.h``) and
``include/pto/common/pto_instr_impl.hpp`` (which headers each NPU includes).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from ptofuzz.core.errors import UsageError

SPEC, CPU, NPU = "spec", "cpu", "npu"  # kinds


class Platform(NamedTuple):
    """One platform (a NamedTuple: see :class:`ptofuzz.core.case.Tile`).

    Attributes:
        name: as on the command line (``--platform``).
        kind: ``spec`` (pto-spec's model), ``cpu`` (pto-isa's CPU simulator) or ``npu``.
        implementation: the pto-isa headers it runs (``include/pto/<kind>/<implementation>``); platforms that
            share headers share semantics.
        test_root: where pto-isa keeps its system tests (empty for spec).
        eps: the eps its system tests pass to ResultCmp, per family (TPART, TSORT32, TMRGSORT, the tile-scalar ops).
        half_as_bits: its tests' float16 is ``aclFloat16`` = ``uint16_t``, compared as integers.
        aliases: other names accepted for it.
    """

    name: str
    kind: str
    implementation: str
    test_root: str = ""
    eps: Mapping[str, float] = {}  # spec's: none (one empty mapping, shared and never written)
    half_as_bits: bool = False
    aliases: tuple[str, ...] = ()

    @property
    def is_npu(self) -> bool:
        return self.kind == NPU


def _scalar_eps(tight: tuple[str, ...]) -> dict[str, float]:
    """The tile-scalar tests' eps (their main.cpp): 0.001, 0.0001 for the ops in ``tight``."""
    return {op: 1e-4 if op in tight else 1e-3 for op in ("TADDS", "TSUBS", "TMULS", "TMAXS", "TMINS", "TLRELU")}


TABLE: tuple[Platform, ...] = (
    Platform("spec", SPEC, "spec"),
    Platform("cpu", CPU, "cpu", "tests/cpu/st", {"TPART": 0.0, "TSORT32": 1e-3, "TMRGSORT": 1e-3,
                                                 **_scalar_eps(("TMINS",))}),
    Platform("a2a3", NPU, "a2a3", "tests/npu/a2a3/src/st", {"TPART": 1e-3, "TSORT32": 1e-3, "TMRGSORT": 1e-3,
                                                            **_scalar_eps(("TMINS",))}, half_as_bits=True),
    Platform("a5", NPU, "a5", "tests/npu/a5/src/st", {"TPART": 1e-3, "TSORT32": 1e-2, "TMRGSORT": 1e-3,
                                                      **_scalar_eps(("TMAXS", "TMINS"))}, half_as_bits=True),
    # kirin kernels include a5's headers (include/pto/common/pto_instr_impl.hpp); kirinX90's test folders are
    # links to kirin9030's (git symlinks tests/npu/kirinX90/src/st/testcase/<op>)
    Platform("kirin9030", NPU, "a5", "tests/npu/kirin9030/src/st",
             {"TPART": 1e-3, "TSORT32": 1e-2, "TMRGSORT": 1e-3, **_scalar_eps(("TMAXS", "TMINS"))}, half_as_bits=True,
             aliases=("kirinX90",)),
    Platform("kirinDev0000", NPU, "a5", "tests/npu/kirinDev0000/src/st",
             {"TPART": 1e-3, "TSORT32": 1e-3, "TMRGSORT": 1e-3, **_scalar_eps(("TMAXS", "TMINS"))}, half_as_bits=True),
    # a6 (dav-920r1): its vector instructions are a5's headers (include/pto/npu/a6/header.hpp includes
    # pto/npu/a5/TAdd.hpp); of the instructions ptofuzz covers, only TADD has an a6 system test
    Platform("a6", NPU, "a5", "tests/npu/a6/src/st", {"TADD": 1e-3}, half_as_bits=True),
)
_BY_NAME = {n: p for p in TABLE for n in (p.name, *p.aliases)}
_NAMES = tuple(p.name for p in TABLE)


def names() -> tuple[str, ...]:
    """Every platform's name, in table order."""
    return _NAMES


def get(name: str) -> Platform:
    """The platform called ``name`` (or one of its aliases); a one-line UsageError otherwise."""
    try:
        return _BY_NAME[name]
    except KeyError:
        aliases = "".join(f" ({a} = {p.name})" for p in TABLE for a in p.aliases)
        raise UsageError(f"unknown platform {name!r}; use one of: {', '.join(names())}{aliases}") from None


def canonical(name: str) -> str:
    """The table name of a platform or alias (``kirinX90`` -> ``kirin9030``)."""
    return get(name).name


def distinct(names: Iterable[str]) -> tuple[str, ...]:
    """The first of ``names`` per implementation: the platforms whose models can disagree (kirin9030 and
    kirinDev0000 run a5's headers, so a default campaign compares a5 only once)."""
    seen: set[str] = set()
    out = []
    for n in names:
        impl = get(n).implementation
        if impl not in seen:
            seen.add(impl)
            out.append(n)
    return tuple(out)


def family_of(op: str) -> str:
    """The eps family of an instruction: TPART for every TPART* op, else the op itself."""
    return "TPART" if op.startswith("TPART") else op
