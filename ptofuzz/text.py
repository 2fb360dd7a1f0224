"""Text from the outside world (folder names, file names, record fields) made safe to print on a terminal."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

# C0 and C1 controls (ESC starts terminal escape sequences; CR and newlines forge report lines) and DEL; a tab
# is kept only as a space
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with every control character shown as ``\\xNN`` (``\\n``, ``\\r``, ``\\t`` by name), so a name
    holding escape codes or line breaks prints as one visible line, whatever the terminal or ``NO_COLOR``."""
    names = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return _CONTROLS.sub(lambda m: names.get(m.group(), f"\\x{ord(m.group()):02x}"), text)



def generated_lines(cases: Iterable[tuple[str, str, Mapping[str, int], int]], op: str, platform: str, out: str,
                    seed: int) -> list[str]:
    """``gen``'s report as plain lines: one per case folder written, given as (name, outcome, file sizes, golden
    elements not exact), then the summary. A terminal gets the same words in colour (``ptofuzz.report``)."""
    lines = []
    for name, outcome, files, not_exact in cases:
        sizes = ", ".join(f"{f} {n}" for f, n in files.items())
        note = "" if outcome == "ok" else f" ({outcome}: no golden)"
        count = f" {not_exact} golden elements not exact" if not_exact else ""
        lines.append(f"wrote {printable(name)}{note}  {printable(sizes)}{count}")
    lines.append(f"{len(lines)} case folder(s) for {op} on {platform} in {printable(out)} (seed {seed})")
    return lines
