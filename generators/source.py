"""Where generators get their randomness from.

Generators are plain functions over :class:`Source`, a handful of typed, vectorised primitive draws, so that a
seeded stream and a fuzzer's byte stream (:mod:`ptofuzz.generators.fuzzed`) can drive the same code.

**Draw versions.** What a seed draws is versioned, and the version is recorded beside every seed ptofuzz writes
(``draw_version`` in ``ptofuzz.json`` and ``campaign.json``, ``inputs.draw.version`` in a record):

* version 2 (the default): ptofuzz's own counter-based stream, :mod:`ptofuzz.generators.stream`, the same words
  and values under every numpy and on every machine;
* version 1: numpy's ``Generator(PCG64)`` as ptofuzz drew up to 0.1.0, :mod:`ptofuzz.generators.legacy`, kept so
  that old seeds and records still reproduce. numpy promised it only for one numpy build; it is imported (with
  ``numpy.random``) only when a version-1 draw is asked for.

A document with a seed and no version was written before versions were recorded: version 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

import numpy as np

from ptofuzz.generators import stream

T = TypeVar("T")

DRAW_VERSION = stream.VERSION  # what new seeds draw
DRAW_VERSIONS = (1, 2)  # what this ptofuzz can draw
UNVERSIONED = 1  # a seed recorded without a version


class Source(Protocol):
    version: int  # the draw version (the fixed pools the draws index are built by the same version)

    def integers(self, low: int, high: int, size: int | None = None) -> np.ndarray:
        """Integers in [low, high], both inclusive (a 0-d array when size is None)."""

    def random(self, size: int) -> np.ndarray:
        """Floats in [0, 1)."""

    def bits(self, nbits: int, size: int) -> np.ndarray:
        """Uniform raw bit patterns as ``uint<nbits>``: a fresh array, which the caller may write into."""

    def choice(self, options: Sequence[T]) -> T:
        """One of ``options``."""


class PoolDraws(Protocol):
    """The draws that build the fixed pools of special and boundary values (numpy's conventions)."""

    def uniform(self, low: int, high: int, size: int, dtype: Any = np.int64) -> np.ndarray:
        """Integers in [low, high) (high exclusive) of ``dtype`` (int64 or uint64)."""

    def permutation(self, n: int) -> np.ndarray:
        """A random order of ``range(n)``."""

    def sample(self, values: np.ndarray, k: int) -> np.ndarray:
        """``k`` distinct elements of ``values``."""


def check_version(version: object) -> int:
    """A draw version read from a document or given by a user: 1 or 2 (ValueError otherwise, saying why)."""
    known = " or ".join(map(str, DRAW_VERSIONS))
    if type(version) is not int or version < 1:
        raise ValueError(f"draw version {version!r} is no draw version (an integer: {known})")
    if version not in DRAW_VERSIONS:
        raise ValueError(f"draw version {version} is newer than this ptofuzz, which draws {known}: upgrade ptofuzz "
                         "to reproduce it")
    return version


def seeded(seed: int, *key: str, version: int = DRAW_VERSION) -> Source:
    """A source determined by ``seed`` and a key path (e.g. the case folder name): same inputs, same draws, in any
    order of generation; with version 2 on any machine and under any numpy. Nearby seeds and similar names give
    unrelated streams."""
    if version == stream.VERSION:
        return stream.seeded(seed, *key)
    from ptofuzz.generators import legacy

    check_version(version)
    return legacy.seeded(seed, *key)


def pool_draws(version: int, legacy_seed: int, *key: str) -> PoolDraws:
    """The draws of a fixed pool: version 2's stream of ``(0, *key)``, or version 1's
    ``numpy.random.default_rng(legacy_seed)``."""
    if version == stream.VERSION:
        return stream.seeded(0, *key)
    from ptofuzz.generators import legacy

    check_version(version)
    return legacy.Pool(legacy_seed)
