"""A platform model as a backend: ptofuzz's own model of pto-spec (``spec``) or of one pto-isa platform."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ptofuzz.backends.base import Plain, no_model
from ptofuzz.core.case import Case, Outcome

if TYPE_CHECKING:
    import numpy as np

    from ptofuzz.instructions.registry import Instruction


@dataclasses.dataclass(frozen=True)
class ModelBackend(Plain):
    """The instruction's model of ``platform`` (its dtype check first: a dtype it does not take is a fault or
    "unsupported", as the platform says)."""

    platform: str

    @property
    def name(self) -> str:
        return self.platform

    def cannot_answer(self, inst: Instruction) -> str | None:
        return no_model(inst, self.platform)

    def evaluate(self, inst: Instruction, case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
        return inst.evaluate(case, inputs)
