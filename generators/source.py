"""Where generators get their randomness from.

Generators are plain functions over :class:`Source`, a handful of typed, vectorised primitive draws, so that a
seeded numpy generator (:class:`RngSource`) and, later, a fuzzer's byte stream can drive the same code.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.random.bit_generator import ISeedSequence

T = TypeVar("T")


class Source(Protocol):
    def integers(self, low: int, high: int, size: int | None = None) -> np.ndarray:
        """Integers in [low, high], both inclusive (a 0-d array when size is None)."""

    def random(self, size: int) -> np.ndarray:
        """Floats in [0, 1)."""

    def bits(self, nbits: int, size: int) -> np.ndarray:
        """Uniform raw bit patterns as ``uint<nbits>``: a fresh array, which the caller may write into."""

    def choice(self, options: Sequence[T]) -> T:
        """One of ``options``."""


class RngSource:
    """:class:`Source` over a numpy ``Generator``."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def integers(self, low: int, high: int, size: int | None = None) -> np.ndarray:
        return self.rng.integers(low, high, size=size, endpoint=True)

    def random(self, size: int) -> np.ndarray:
        return self.rng.random(size)

    def bits(self, nbits: int, size: int) -> np.ndarray:
        words = self.rng.bit_generator.random_raw((size * nbits + 63) // 64)
        return words.astype("<u8", copy=False).view(f"<u{nbits // 8}")[:size]

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
    """A source determined by ``seed`` and a key path (e.g. the case folder name): same inputs, same draws, on
    any machine and in any order of generation. PCG64's state and increment are a SHA-256 of both, so nearby
    seeds and similar names give unrelated streams."""
    h = hashlib.sha256(str(int(seed)).encode())
    for k in key:
        h.update(b"\0" + k.encode())
    return RngSource(np.random.Generator(np.random.PCG64(_Digest(h.digest()))))  # type: ignore[arg-type]  # an ISeedSequence
