"""``ptofuzz list``: the instruction x platform x dtype matrix, with what a cached simulator build holds."""

from __future__ import annotations

from typing import Any

from ptofuzz.backends.base import CPUSIM
from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.backend import ADAPTERS
from ptofuzz.core.errors import UsageError
from ptofuzz.instructions import defects, registry


def capabilities(sim: build.Settings | None = None) -> list[dict[str, Any]]:
    """The instruction x platform x dtype matrix, one record per (instruction, platform); ``sim``: where to look
    for a cached simulator build (default: the environment's tree and cache)."""
    rows = []
    found = _cached_sim(sim or build.Settings())
    for inst in registry.all_instructions().values():
        for plat in registry.PLATFORMS:
            sup = inst.platforms.get(plat)
            if sup is None:
                if plat in inst.unmodelled:
                    rows.append({"op": inst.name, "platform": plat, "dtypes": [], "system_test": False, "suite": "",
                                 "layout": "", "canonical_cases": 0, "notes": inst.unmodelled[plat], "source": "",
                                 "unmodelled": True})
                continue
            rows.append({"op": inst.name, "platform": plat, "dtypes": list(sup.dtypes),
                         "system_test": sup.has_system_test, "suite": sup.profile.suite,
                         "layout": sup.profile.layout, "canonical_cases": len(sup.profile.canonical),
                         "notes": sup.notes, "source": sup.profile.note})
        if inst.name in ADAPTERS:
            rows.append(_cpusim_row(inst, found))
    return rows


def _cached_sim(settings: build.Settings) -> Any:
    """The cached cpusim build (never built here), None when there is none, or the UsageError saying why not."""
    try:
        return build.lookup(settings)
    except UsageError as e:
        return e


def _cpusim_row(inst: registry.Instruction, found: Any) -> dict[str, Any]:
    """The real simulator's row: what a cached build holds (``ptofuzz sim build`` builds)."""
    row: dict[str, Any] = {"op": inst.name, "platform": CPUSIM, "dtypes": [], "system_test": False, "suite": "",
                           "layout": "", "canonical_cases": 0, "source": "ptofuzz/backends/cpusim/harness.cpp",
                           "defects": [d.name for d in defects.of(inst.name) if d.code == CPUSIM]}
    if isinstance(found, UsageError):
        row["notes"] = f"not available: {found}"
        row["short"] = "needs PTO_ISA_DIR" if "needs a pto-isa tree" in str(found) else \
            "unavailable: ptofuzz sim build says why"
        return row
    if found is None:
        row["notes"] = row["short"] = "not built: ptofuzz sim build"
        return row
    cpu = inst.platforms["cpu"].dtypes
    m = found.manifest
    row["dtypes"] = [d for d in m["kernels"].get(inst.name, []) if d in cpu
                     and (d != "bfloat16" or m["bfloat16_native"])]
    unsupported = {d: why for d, why in m["rejected"].get(inst.name, {}).items()}
    if not m["bfloat16_native"]:
        unsupported["bfloat16"] = build.BF16_PLACEHOLDER
    row["unsupported"] = unsupported
    row["notes"] = f"pto-isa {m['commit']}, {m['compiler']}"
    row["short"] = f"pto-isa {m['commit'][:12]}, {m['compiler'].split(' (')[0].rsplit('/', 1)[-1]}"
    return row
