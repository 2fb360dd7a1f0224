"""Whole-file writes that a reader (or a crash) never sees half done: a hidden temporary file, then a rename."""

from __future__ import annotations

import glob
import os
from pathlib import Path


def write_file(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically; nothing is left behind when the write fails, and
    what a killed writer of the same file left (``.NAME.tmp-PID`` of a pid that no longer runs) goes first."""
    from ptofuzz.core.processes import alive

    path = Path(path)
    for stale in path.parent.glob(f".{glob.escape(path.name)}.tmp-*"):
        pid = stale.name.rpartition("-")[2]
        if pid.isdigit() and not alive(int(pid)):
            stale.unlink(missing_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        if isinstance(data, str):
            tmp.write_text(data, encoding="utf-8")
        else:
            tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
