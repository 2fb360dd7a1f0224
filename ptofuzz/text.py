"""Text from the outside world (folder names, file names, record fields) made safe to print on a terminal."""

from __future__ import annotations

import re

# C0 and C1 controls (ESC starts terminal escape sequences; CR and newlines forge report lines) and DEL; a tab
# is kept only as a space
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with every control character shown as ``\\xNN`` (``\\n``, ``\\r``, ``\\t`` by name), so a name
    holding escape codes or line breaks prints as one visible line, whatever the terminal or ``NO_COLOR``."""
    names = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return _CONTROLS.sub(lambda m: names.get(m.group(), f"\\x{ord(m.group()):02x}"), text)
