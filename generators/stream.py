"""ptofuzz's own random stream: draw version 2, defined here word for word and transform for transform.

numpy promises a ``Generator``'s output only for one build on one machine, so the values ptofuzz draws from a
seed are defined by ptofuzz itself, in plain integer arithmetic that any numpy (or none) computes alike:

* **Key.** A seed and a key path (``seeded(seed, "TPARTADDTest.case_float_64x64")``) become one 64-bit key. The
  message is the seed's decimal digits followed, for each key part, by a zero byte and the part's UTF-8 bytes (as
  version 1 hashed them). Its length ``L`` in bytes starts the fold, ``h = mix64(GAMMA * (L + 1))``; then each
  8-byte piece of the message, read little-endian (the last one padded with zero bytes), is folded in with
  ``h = mix64(h ^ piece)``. The key is the final ``h``. No hash library is involved (importing hashlib costs
  OpenSSL's start-up); a seed and key path give the same key on every machine.
* **Words.** Word ``i`` (from 0) of the stream of key ``k`` is ``mix64(k + GAMMA * (i + 1))``, all modulo 2**64:
  SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014) in counter
  mode, with its constants ``GAMMA = 0x9E3779B97F4A7C15`` and ``mix64(z) = z3`` where ``z1 = (z ^ (z >> 30)) *
  0xBF58476D1CE4E5B9``, ``z2 = (z1 ^ (z1 >> 27)) * 0x94D049BB133111EB``, ``z3 = z2 ^ (z2 >> 31)``. A stream is a
  position in that sequence; every draw takes the next words.
* **Transforms** (each draw's words are the next ones of the stream):

  - ``integers(low, high)``, both inclusive, ``span = high - low + 1`` from 1 to 2**64: a span of 1 takes no word.
    Up to 2**32, a word ``w`` is a candidate ``m = (w >> 32) * span``, accepted when ``m mod 2**32 >= 2**32 mod
    span``, giving ``low + (m >> 32)`` (Lemire, "Fast random integer generation in an interval", 2019, with the
    word's high 32 bits). Above 2**32, the candidate is ``w & (2**b - 1)`` with ``b`` the bit length of ``span - 1``,
    accepted when it is below ``span``, giving ``low + candidate``. A draw of ``n`` values is the first ``n``
    accepted candidates of the words that follow, and takes the words up to the ``n``-th accepted one; every value
    of the range is equally likely (no modulo bias).
  - ``random``: ``(w >> 11) * 2**-53``, floats in [0, 1), one word each.
  - ``bits(nbits, n)`` for 8, 16, 32, 64 bits: the next ``ceil(n * nbits / 64)`` words, their bytes little-endian
    one after the other, read as ``n`` little-endian ``nbits``-bit unsigned integers (the bits of the last word
    beyond them are dropped).
  - ``choice(options)``: ``options[integers(0, len(options) - 1)]``.
  - ``permutation(n)``: ``n`` words, and the indices that sort them, ties in index order (a stable sort): a
    uniform permutation but for ties, which 64-bit words make about as rare as ``n**2 / 2**65``.
  - ``sample(values, k)``: ``values[permutation(len(values))[:k]]``, ``k`` distinct of them.

The arithmetic runs on numpy uint64 arrays (whose products and sums wrap modulo 2**64 without a warning) and, for
draws of a few words, on Python integers masked to 64 bits: the same numbers either way (tests/generators check
both against a pure-Python recomputation and pinned constants). This module imports no ``numpy.random``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")

VERSION = 2  # the draw version this stream defines
MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB

_GAMMA, _MIX1, _MIX2 = np.uint64(GAMMA), np.uint64(MIX1), np.uint64(MIX2)
_S30, _S27, _S31, _S32, _S11 = (np.uint64(s) for s in (30, 27, 31, 32, 11))
_LOW32 = np.uint64(0xFFFFFFFF)
SMALL = 8  # draws of at most this many words run on Python integers (numpy's per-call costs dominate there)
CHUNK = 8192  # words mixed per step of a large draw (the temporaries stay in the cache)
_TWO53 = 2.0 ** -53


def mix64(z: int) -> int:
    """SplitMix64's finaliser on a Python integer (0 <= z < 2**64)."""
    z = ((z ^ (z >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    return z ^ (z >> 31)


def key_of(seed: int, *key: str) -> int:
    """The 64-bit stream key of a seed and a key path (see the module's text)."""
    message = str(int(seed)).encode() + b"".join(b"\0" + k.encode() for k in key)
    h = mix64((GAMMA * (len(message) + 1)) & MASK64)
    message += bytes(-len(message) % 8)
    for at in range(0, len(message), 8):  # mix64 written out: a key a case, and a call costs as much as the mix
        z = h ^ int.from_bytes(message[at:at + 8], "little")
        z = ((z ^ (z >> 30)) * MIX1) & MASK64
        z = ((z ^ (z >> 27)) * MIX2) & MASK64
        h = z ^ (z >> 31)
    return h


_RAMP = np.arange(CHUNK, dtype=np.uint64) * _GAMMA  # GAMMA * j for j < CHUNK: a piece's counters less its base


def _mix_piece(p: np.ndarray, t: np.ndarray) -> None:
    """mix64 over ``p`` in place (``t``: scratch of its length)."""
    np.right_shift(p, _S30, out=t)
    p ^= t
    p *= _MIX1
    np.right_shift(p, _S27, out=t)
    p ^= t
    p *= _MIX2
    np.right_shift(p, _S31, out=t)
    p ^= t


def _words(base: int, n: int) -> np.ndarray:
    """``mix64(base + GAMMA * j)`` for ``j < n`` as a fresh uint64 array, in cache-sized pieces."""
    out = np.empty(n, np.uint64)
    scratch = np.empty(min(n, CHUNK), np.uint64)
    step = (GAMMA * CHUNK) & MASK64
    for at in range(0, n, CHUNK):
        p = out[at:at + CHUNK]
        np.add(_RAMP[:len(p)], np.uint64(base), out=p)
        base = (base + step) & MASK64
        _mix_piece(p, scratch[:len(p)])
    return out


def bits_many(requests: Sequence[tuple[Stream, int, int]]) -> list[np.ndarray]:
    """``[s.bits(nbits, n) for s, nbits, n in requests]``, the same values and each stream advanced alike (a stream
    may come more than once: its requests follow each other in order), with the words of all of them mixed in one
    pass: many small draws cost about one. Each result is a view of one fresh buffer, apart from the others."""
    counts = [(n * nbits + 63) // 64 for _, nbits, n in requests]
    adjusted, at = [], 0  # each segment's base less GAMMA times its offset in the buffer: word g is adj + GAMMA * g
    for (s, nbits, _), w in zip(requests, counts):
        if nbits not in (8, 16, 32, 64):
            raise ValueError(f"bits of 8, 16, 32 or 64, not {nbits}")
        adjusted.append((s.key + GAMMA * (s.position + 1) - GAMMA * at) & MASK64)
        s.position += w
        at += w
    words = np.repeat(np.array(adjusted, dtype=np.uint64), counts)
    scratch = np.empty(min(at, CHUNK), np.uint64)
    for start in range(0, at, CHUNK):
        p = words[start:start + CHUNK]
        p += _RAMP[:len(p)]
        p += np.uint64((GAMMA * start) & MASK64)
        _mix_piece(p, scratch[:len(p)])
    words = words.astype("<u8", copy=False)
    out, at = [], 0
    for (_, nbits, n), w in zip(requests, counts):
        out.append(words[at:at + w].view(f"<u{nbits // 8}")[:n])
        at += w
    return out


class Stream:
    """A :class:`~ptofuzz.generators.source.Source` over the words of one key (draw version 2)."""

    version = VERSION

    def __init__(self, key: int, position: int = 0) -> None:
        self.key = key & MASK64
        self.position = position  # how many words the draws so far took

    # -- words ----------------------------------------------------------------------------------------------------

    def _ints(self, n: int) -> list[int]:
        """The next ``n`` words as Python integers (for draws of a few words)."""
        k, at = self.key, self.position
        self.position = at + n
        return [mix64((k + GAMMA * i) & MASK64) for i in range(at + 1, at + n + 1)]

    def _peek(self, at: int, n: int) -> np.ndarray:
        """Words ``at`` to ``at + n - 1`` as a fresh uint64 array (the position does not move)."""
        return _words((self.key + GAMMA * (at + 1)) & MASK64, n)

    def words(self, n: int) -> np.ndarray:
        """The next ``n`` words, uint64 (a fresh array)."""
        if n <= SMALL:
            return np.array(self._ints(n), dtype=np.uint64)
        out = self._peek(self.position, n)
        self.position += n
        return out

    # -- Source ---------------------------------------------------------------------------------------------------

    def integers(self, low: int, high: int, size: int | None = None) -> np.ndarray:
        """Integers in [low, high], both inclusive, as int64 (a 0-d array when size is None)."""
        low, high = int(low), int(high)
        if not -(1 << 63) <= low <= high < 1 << 63:
            raise ValueError(f"integers({low}, {high}): a range of int64 with low <= high")
        if size is None:
            return np.array(self.offsets(high - low + 1, 1)[0] + low, dtype=np.int64)
        n = int(size)
        offsets = self.offsets(high - low + 1, n)
        if isinstance(offsets, list):
            out = np.array([o + low for o in offsets], dtype=np.int64)
        else:  # low + offset lies in int64: the sum modulo 2**64, read as two's complement, is it
            out = (offsets + np.uint64(low & MASK64)).view(np.int64)
        return out

    def offsets(self, span: int, n: int) -> list[int] | np.ndarray:
        """``n`` uniform integers in [0, span) (1 <= span <= 2**64): a list of Python ints when ``n`` is small,
        else a uint64 array."""
        if not 1 <= span <= 1 << 64:
            raise ValueError(f"a span of 1 to 2**64 values, not {span}")
        if span == 1:
            return [0] * n if n <= SMALL else np.zeros(n, np.uint64)
        if n <= SMALL:
            return self._offsets_small(span, n)
        return self._offsets_array(span, n)

    def _offsets_small(self, span: int, n: int) -> list[int]:
        out: list[int] = []
        if span <= 1 << 32:
            floor = (1 << 32) % span
            while len(out) < n:
                m = (self._ints(1)[0] >> 32) * span
                if m & 0xFFFFFFFF >= floor:
                    out.append(m >> 32)
        else:
            mask = (1 << (span - 1).bit_length()) - 1
            while len(out) < n:
                c = self._ints(1)[0] & mask
                if c < span:
                    out.append(c)
        return out

    def _offsets_array(self, span: int, n: int) -> np.ndarray:
        if span <= 1 << 32:
            reject = ((1 << 32) % span) / (1 << 32)
        else:
            reject = 1 - span / (1 << (span - 1).bit_length())
        parts: list[np.ndarray] = []
        need = n
        while need:
            ask = need + int(need * reject * 1.25) + 16  # enough, almost always, for one pass
            w = self._peek(self.position, ask)
            if span <= 1 << 32:
                m = (w >> _S32) * np.uint64(span)
                ok = (m & _LOW32) >= np.uint64((1 << 32) % span)
                vals = m >> _S32
            else:
                vals = w & np.uint64((1 << (span - 1).bit_length()) - 1) if span < 1 << 64 else w
                ok = vals < np.uint64(span) if span < 1 << 64 else np.ones(ask, bool)
            at = np.flatnonzero(ok)
            if len(at) >= need:  # the draw ends at the word of its last value
                parts.append(vals[at[:need]])
                self.position += int(at[need - 1]) + 1
                break
            parts.append(vals[at])
            self.position += ask
            need -= len(at)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def uniform(self, low: int, high: int, size: int, dtype: Any = np.int64) -> np.ndarray:
        """Integers in [low, high), high exclusive (numpy's convention, for the fixed pools), int64 or uint64:
        ``integers(low, high - 1, size)``'s values."""
        if np.dtype(dtype) == np.uint64:
            return np.asarray(self.offsets(high - low, size), np.uint64) + np.uint64(low)
        return self.integers(low, high - 1, size).astype(dtype, copy=False)

    def random(self, size: int) -> np.ndarray:
        """Floats in [0, 1): ``(w >> 11) * 2**-53``."""
        if size <= SMALL:
            return np.array([(w >> 11) * _TWO53 for w in self._ints(size)], dtype=np.float64)
        w = self.words(size)
        w >>= _S11
        return w.astype(np.float64) * _TWO53

    def bits(self, nbits: int, size: int) -> np.ndarray:
        """Uniform raw bit patterns as ``uint<nbits>``: a fresh array, which the caller may write into."""
        if nbits not in (8, 16, 32, 64):
            raise ValueError(f"bits of 8, 16, 32 or 64, not {nbits}")
        words = self.words((size * nbits + 63) // 64)
        return words.astype("<u8", copy=False).view(f"<u{nbits // 8}")[:size]

    def bytes(self, n: int) -> bytes:
        """``n`` bytes: ``bits(8, n)``'s."""
        return self.bits(8, n).tobytes()

    def choice(self, options: Sequence[T]) -> T:
        """One of ``options``."""
        if not options:
            raise ValueError("choice from no options")
        offset = self.offsets(len(options), 1)
        return options[int(offset[0])]

    def permutation(self, n: int) -> np.ndarray:
        """A random order of ``range(n)`` (int64): the stable argsort of ``n`` words."""
        return np.argsort(self.words(n), kind="stable").astype(np.int64, copy=False)

    def sample(self, values: np.ndarray, k: int) -> np.ndarray:
        """``k`` distinct elements of ``values`` (a random subset, in random order)."""
        if not 0 <= k <= len(values):
            raise ValueError(f"a sample of {k} from {len(values)} values")
        return values[self.permutation(len(values))[:k]]


def seeded(seed: int, *key: str) -> Stream:
    """The version-2 stream of a seed and key path."""
    return Stream(key_of(seed, *key))
