"""SHA-256 digests of the files ``gen`` writes, without loading OpenSSL for a few small files.

``import hashlib`` loads OpenSSL's ``_hashlib`` (about 3 ms of start-up); CPython also ships its own SHA-256
(``_sha2`` from 3.12, ``_sha256`` before), which loads in a fraction of that but hashes about eight times slower
(some 200 MB/s against 1.6 GB/s here). A canonical ``gen`` writes a median 180 KB, so :func:`sha256_hex` hashes
data under :data:`OPENSSL_FROM` bytes with the built-in one and larger data (or everything, once hashlib is
loaded, or where the built-in module is missing) with hashlib. The digest is the same either way.
"""

from __future__ import annotations

import sys
from typing import Any

OPENSSL_FROM = 1 << 20  # bytes


def _builtin() -> Any:
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]  # CPython 3.12 and later
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found]  # CPython 3.10, 3.11
        except ImportError:
            return None
    return sha256


_BUILTIN = _builtin()


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data``, in lower-case hex."""
    if _BUILTIN is not None and len(data) < OPENSSL_FROM and "hashlib" not in sys.modules:
        return str(_BUILTIN(data).hexdigest())
    import hashlib

    return hashlib.sha256(data).hexdigest()
