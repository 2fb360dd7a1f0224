"""Draw version 1: numpy's ``Generator(PCG64)``, as ptofuzz drew before it had a stream of its own.

Kept so that seeds and records written before draw version 2 still reproduce (``inputs.draw`` of a record without
``version``, ``--draw-version 1``). numpy defines these streams only for one numpy build on one machine: a record
of version 1 replays under the numpy it was made with (and, in practice, under any numpy that kept PCG64's bounded
integers and floats as they were). Importing this module imports ``numpy.random``; nothing else does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.random.bit_generator import ISeedSequence

T = TypeVar("T")

VERSION = 1


class RngSource:
    """:class:`~ptofuzz.generators.source.Source` over a numpy ``Generator``."""

    version = VERSION

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def integers(self, low: int, high: int, size: int | None = None) -> np.ndarray:
        return self.rng.integers(low, high, size=size, endpoint=True)

    def random(self, size: int) -> np.ndarray:
        return self.rng.random(size)

    def bits(self, nbits: int, size: int) -> np.ndarray:
        words = self.rng.bit_generator.random_raw((size * nbits + 63) // 64)
        return words.astype("<u8", copy=False).view(f"<u{nbits // 8}")[:size]

    def bytes(self, n: int) -> bytes:
        return self.rng.bytes(n)

    def choice(self, options: Sequence[T]) -> T:
        return options[int(self.rng.integers(0, len(options)))]


class _Digest(ISeedSequence):
    """The 256 bits of a SHA-256 digest as PCG64's seed material (state and increment), used as they are:
    numpy's SeedSequence mixing costs more than the whole draw of a small case, and a digest is mixed already."""

    def __init__(self, digest: bytes) -> None:
        self.words = np.frombuffer(digest, dtype="<u8")

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> np.ndarray:
        words = self.words.view(np.dtype(dtype).newbyteorder("<"))
        if n_words > len(words):
            raise ValueError(f"a digest seeds at most {len(words)} words of {np.dtype(dtype)}")
        return words[:n_words].astype(dtype)


def seeded(seed: int, *key: str) -> RngSource:
    """Version 1's source of ``seed`` and a key path: PCG64's state and increment are a SHA-256 of both."""
    h = hashlib.sha256(str(int(seed)).encode())
    for k in key:
        h.update(b"\0" + k.encode())
    return RngSource(np.random.Generator(np.random.PCG64(_Digest(h.digest()))))  # type: ignore[arg-type]  # an ISeedSequence


class Pool:
    """Version 1's draws for the fixed pools: ``numpy.random.default_rng(seed)`` as the pools called it."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def uniform(self, low: int, high: int, size: int, dtype: Any = np.int64) -> np.ndarray:
        return self.rng.integers(low, high, size, dtype=dtype)

    def permutation(self, n: int) -> np.ndarray:
        return self.rng.permutation(n)

    def sample(self, values: np.ndarray, k: int) -> np.ndarray:
        return self.rng.choice(values, k, replace=False)
