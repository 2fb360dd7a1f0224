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




def generated_parts(name: str, outcome: str, files: Mapping[str, int], not_exact: int) -> tuple[str, str, str, str]:
    """The words of ``gen``'s line for one case folder: (name, outcome note, file sizes, not-exact count), each
    made printable; :func:`generated_line` joins them, the terminal report colours them."""
    sizes = ", ".join(f"{f} {n}" for f, n in files.items())
    note = "" if outcome == "ok" else f" ({outcome}: no golden)"
    count = f" {not_exact} golden elements not exact" if not_exact else ""
    return printable(name), note, printable(sizes), count


def generated_line(name: str, outcome: str, files: Mapping[str, int], not_exact: int) -> str:
    """``gen``'s plain line for one case folder written (a terminal gets the same words in colour)."""
    shown, note, sizes, count = generated_parts(name, outcome, files, not_exact)
    return f"wrote {shown}{note}  {sizes}{count}"


def generated_summary(count: int, op: str, platform: str, out: str, seed: int, draw_version: int | None = None
                      ) -> str:
    """``gen``'s last line; ``draw_version`` when the seed drew another than the default."""
    drew = "" if draw_version is None else f", draw version {draw_version}"
    return f"{count} case folder(s) for {op} on {platform} in {printable(out)} (seed {seed}{drew})"


def generated_lines(cases: Iterable[tuple[str, str, Mapping[str, int], int]], op: str, platform: str, out: str,
                    seed: int) -> list[str]:
    """``gen``'s report as plain lines: one per case folder written, given as (name, outcome, file sizes, golden
    elements not exact), then the summary."""
    lines = [generated_line(*c) for c in cases]
    return [*lines, generated_summary(len(lines), op, platform, out, seed)]
