"""Whole-file writes that a reader (or a crash) never sees half done: a hidden temporary file, then a rename."""

from __future__ import annotations

import os
from pathlib import Path


def write_file(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically; nothing is left behind when the write fails."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        if isinstance(data, str):
            tmp.write_text(data, encoding="utf-8")
        else:
            tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
