"""A :class:`~ptofuzz.generators.source.Source` over a fuzzer's input bytes (atheris' ``FuzzedDataProvider``).

The same generators that draw seeded random cases then draw structure-aware cases from the fuzzer's bytes:
every choice (platform, shape, region, dtype, values) consumes some of them, so coverage-guided mutation of the
bytes explores geometry and values alike. When the bytes run out (libFuzzer starts with short inputs), the
remaining draws come from ptofuzz's own stream (draw version 2) keyed by the input's SHA-256: short inputs still
give whole tiles of varied values, and the same input always gives the same case.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

from ptofuzz.generators import stream
from ptofuzz.generators.stream import Stream

T = TypeVar("T")


class BytesProvider:
    """The subset of ``atheris.FuzzedDataProvider`` used here, in plain Python (tests, and running without
    atheris)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def ConsumeBytes(self, n: int) -> bytes:
        out = self.data[self.pos:self.pos + n]
        self.pos += len(out)
        return out

    def remaining_bytes(self) -> int:
        return len(self.data) - self.pos

    def ConsumeIntInRange(self, low: int, high: int) -> int:
        span = high - low
        raw = self.ConsumeBytes((span.bit_length() + 7) // 8) if span > 0 else b""
        return low + int.from_bytes(raw, "little") % (span + 1) if span > 0 else low


class FuzzedSource:
    """:class:`~ptofuzz.generators.source.Source` reading from a FuzzedDataProvider (or :class:`BytesProvider`)."""

    version = stream.VERSION  # its pools, and the stream after the bytes run out

    def __init__(self, provider: Any, data: bytes = b"") -> None:
        self.fdp = provider
        self.data = data
        self.rest: Stream | None = None  # the stream after the input's bytes run out

    @classmethod
    def from_bytes(cls, data: bytes) -> FuzzedSource:
        try:
            import atheris
        except ImportError:  # plain bytes work the same way, just without coverage guidance
            return cls(BytesProvider(data), data)
        return cls(atheris.FuzzedDataProvider(data), data)

    def _rest(self) -> Stream | None:
        """The seeded stream once the input is used up (None while bytes remain)."""
        if self.rest is None and not self.fdp.remaining_bytes():
            self.rest = stream.seeded(0, "fuzzed-input", hashlib.sha256(self.data).hexdigest())
        return self.rest

    def _raw(self, nbytes: int) -> bytes:
        got = self.fdp.ConsumeBytes(nbytes)
        if len(got) == nbytes:
            return got
        rest = self._rest()
        assert rest is not None
        return got + rest.bytes(nbytes - len(got))

    def _int(self, low: int, high: int) -> int:
        rest = self._rest()
        if rest is None:
            return int(self.fdp.ConsumeIntInRange(low, high))
        return int(rest.integers(low, high))

    def integers(self, low: int, high: int, size: int | None = None) -> np.ndarray:
        if size is None:
            return np.array(self._int(int(low), int(high)))
        rest = self._rest()
        if rest is not None:
            return rest.integers(int(low), int(high), size)
        span = int(high) - int(low) + 1
        raw = np.frombuffer(self._raw(8 * size), dtype="<u8")
        return (raw % np.uint64(span)).astype(np.int64) + int(low)

    def random(self, size: int) -> np.ndarray:
        rest = self._rest()
        if rest is not None:
            return rest.random(size)
        raw = np.frombuffer(self._raw(4 * size), dtype="<u4")
        return raw.astype(np.float64) / 4294967296.0

    def bits(self, nbits: int, size: int) -> np.ndarray:
        rest = self._rest()
        if rest is not None:
            return rest.bits(nbits, size)
        return np.frombuffer(self._raw(nbits // 8 * size), dtype=f"<u{nbits // 8}").copy()

    def choice(self, options: Sequence[T]) -> T:
        return options[self._int(0, len(options) - 1)]
