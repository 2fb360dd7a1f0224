"""The library API the CLI is a thin layer over: generate case folders, check them, diff tiles, list what is
covered. Each name is defined in the engine module that implements it; this module only gathers them."""

from __future__ import annotations

from ptofuzz.engine.capabilities import capabilities
from ptofuzz.engine.check import check, check_case
from ptofuzz.engine.diff import diff_files, diff_record
from ptofuzz.engine.generate import (
    MAX_RANDOM,
    MAX_TILE_ELEMENTS,
    GeneratedCase,
    GenerateResult,
    generate,
    plan,
    plan_cases,
    realize,
    realize_many,
)

__all__ = ["MAX_RANDOM", "MAX_TILE_ELEMENTS", "GenerateResult", "GeneratedCase", "capabilities", "check",
           "check_case", "diff_files", "diff_record", "generate", "plan", "plan_cases", "realize", "realize_many"]
