"""How this process's C allocator treats numpy's large temporaries, for long generation runs.

A batch of cases makes numpy allocate and free temporaries of a few hundred KB to a few MB, thousands of times.
glibc's malloc maps those above its threshold (128 KB at first, then adapted to what is freed) as fresh pages and
returns freed memory at the top of its heap to the system once more than twice that threshold is free, so the next
temporary faults its pages in again. In a virtual machine those page faults cost more than the arithmetic on the
batch (measured here: a TSORT32 generation batch's evaluation spent a third of its time on them; a whole
``gen --random`` run of TPARTADD, TSORT32 or TMRGSORT is 2-5% faster without them). :func:`keep_freed_memory` lets
malloc serve such temporaries from memory it keeps; it changes no result, only where the memory comes from.

It is process-wide, so only a command that owns its process calls it (``gen --random``), not the library API.
"""

from __future__ import annotations

import sys

MMAP_THRESHOLD = 16 << 20  # allocations up to this come from the heap, not fresh mappings
TRIM_THRESHOLD = 32 << 20  # freed memory kept at the heap's top before it is returned to the system

# mallopt(3) parameter numbers of glibc's malloc.h
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def keep_freed_memory() -> bool:
    """Raise glibc malloc's mmap and trim thresholds (see the module docstring); whether both were accepted.
    Elsewhere (other systems, C libraries without ``mallopt``, no ctypes) nothing changes."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt  # glibc's; musl and others have none (AttributeError)
    except (ImportError, OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # both, even if the first is refused (a 32-bit glibc caps the mmap threshold far lower)
    mmap_set = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    trim_set = bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return mmap_set and trim_set
