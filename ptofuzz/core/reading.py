"""Reading the files a user hands ptofuzz: regular files only (a FIFO would block, a device never ends), a
bounded number of bytes, and strict JSON (UTF-8, no NaN or Infinity, no nesting deeper than Python can parse).

Problems are ValueErrors worded as the end of a sentence about the file ("it is a directory, not a file");
each reader puts the file's name and what to do in front of them.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

MAX_JSON_BYTES = 64 << 20  # a manifest or record: far above any ptofuzz writes (4M inline hex words is ~50 MB)


def _mode(path: str | Path) -> int | None:
    """``path``'s file mode (links followed), None when nothing is there; ValueError for a broken or looping link
    or an unreadable parent."""
    try:
        return os.stat(path).st_mode
    except FileNotFoundError:
        if os.path.islink(path):
            raise ValueError("it is a broken symbolic link") from None
        return None
    except OSError as e:
        raise ValueError(f"it cannot be read: {e.strerror}") from None


def _not_a_file(mode: int) -> ValueError:
    what = "a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a device or socket"
    return ValueError(f"it is {what}, not a regular file")


def is_regular(path: str | Path) -> bool:
    """True for a regular file (or a link to one), False when nothing is there; ValueError for anything else
    (a directory, FIFO, device or socket, a broken or looping link, an unreadable parent)."""
    mode = _mode(path)
    if mode is not None and not stat.S_ISREG(mode):
        raise _not_a_file(mode)
    return mode is not None


def read_bytes(path: str | Path, limit: int, *, devices: bool = False) -> bytes:
    """The bytes of the regular file ``path`` (``devices``: or a character device, such as /dev/zero), at most
    ``limit`` of them; ValueError otherwise."""
    mode = _mode(path)
    if mode is None:
        raise ValueError("it does not exist")
    if not (stat.S_ISREG(mode) or (devices and stat.S_ISCHR(mode))):
        raise _not_a_file(mode)
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise ValueError(f"it cannot be read: {e.strerror}") from None
    if len(data) > limit:
        raise ValueError(f"it is larger than {limit:,} bytes")
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is no JSON number (JSON has no NaN or infinities)")


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members, refusing a key given twice (which of the two a reader takes is not defined)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(f"it gives the key {key!r} twice in one object")
        out[key] = value
    return out


def parse_json(data: bytes) -> Any:
    """Strict JSON from bytes: UTF-8 text, finite numbers only, no key twice in an object (ValueError
    otherwise)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"it is not UTF-8 text ({e.reason} at byte {e.start})") from None
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except RecursionError:
        raise ValueError("it is not JSON: nested too deeply") from None
    except _DuplicateKey as e:
        raise ValueError(str(e)) from None
    except ValueError as e:
        raise ValueError(f"it is not JSON: {e}") from None


def read_json(path: str | Path, limit: int = MAX_JSON_BYTES) -> Any:
    """The strict JSON document in the regular file ``path`` (ValueError for anything else)."""
    return parse_json(read_bytes(path, limit))
