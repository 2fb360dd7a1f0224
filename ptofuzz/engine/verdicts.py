"""What ``check`` and ``diff`` conclude: a case folder's verdict, each file's, an element-wise difference.

Kept apart from :mod:`ptofuzz.api`, which builds them, so that ``gen`` (which builds none) does not pay for their
classes at start-up.
"""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from ptofuzz.io import casefolder

if TYPE_CHECKING:
    from ptofuzz.engine.compare import Comparison, Verdict


@dataclasses.dataclass(frozen=True)
class FileVerdict:
    """One file of a checked case folder: its comparison with the recomputed golden, or why there is none."""

    file: str
    comparison: Comparison | None  # None when the file could not be compared
    problem: str = ""  # why it fails without an element comparison (absent golden, unexpected file, ...)
    dtype: str = ""  # element type of the file
    shape: tuple[int, int] = (0, 0)  # the file's elements
    valid: tuple[int, int] = (0, 0)  # its valid region

    @property
    def ok(self) -> bool:
        return not self.problem and (self.comparison is None or self.comparison.ok)


@dataclasses.dataclass(frozen=True)
class CaseVerdict:
    """One checked case folder: pass, fail or error, with each file's verdict and the command that checks it again."""

    path: Path
    name: str
    op: str
    platform: str
    dtype: str
    outcome: str
    verdict: Verdict
    files: tuple[FileVerdict, ...] = ()
    message: str = ""
    oracle: str = ""  # "cpusim": the goldens were recomputed by the real simulator

    @property
    def reproduce(self) -> str:
        plat = "" if (self.path / casefolder.MANIFEST).is_file() else f" --platform {self.platform}"
        oracle = f" --oracle {self.oracle}" if self.oracle else ""
        return f"ptofuzz check {shlex.quote(str(self.path))}{plat}{oracle}"


@dataclasses.dataclass(frozen=True)
class DiffResult:
    """Two arrays compared element by element (two files, or two oracles' outputs of a saved case)."""

    label: str  # what was compared ("golden.bin vs output.bin", "a5 vs cpu: dst")
    dtype: str
    shape: tuple[int, int]
    valid: tuple[int, int]
    comparison: Comparison
    reproduce: str
    # TPARTARG*'s index outputs: at each listed differing element, every input and both oracles' outputs
    beside: tuple[dict[str, str], ...] = ()


def failure_summary(v: CaseVerdict) -> str:
    """What failed in a case folder, in one line: each failing file's problem or mismatch count."""
    parts = []
    for f in v.files:
        if f.ok:
            continue
        if f.problem:
            parts.append(f"{f.file}: {f.problem}")
        elif f.comparison is not None:
            parts.append(f"{f.file}: {f.comparison.mismatches} of {f.comparison.checked} elements differ")
    return "; ".join(parts) or v.verdict
