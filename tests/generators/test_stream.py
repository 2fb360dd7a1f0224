"""Draw version 2, ptofuzz's own stream (ptofuzz.generators.stream): every word and every transform against a
pure-Python recomputation written here from the module's definition, against SplitMix64's reference outputs,
and against pinned constants, so that the day the stream changes these fail."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ptofuzz.generators import source, stream
from ptofuzz.generators.stream import Stream

M64 = 1 << 64


# ---- a reference, in Python integers, from the definition alone -------------------------------------------------

def ref_mix(z: int) -> int:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 % M64
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB % M64
    return z ^ (z >> 31)


def ref_key(seed: int, *parts: str) -> int:
    message = str(seed).encode() + b"".join(b"\x00" + p.encode("utf-8") for p in parts)
    h = ref_mix(0x9E3779B97F4A7C15 * (len(message) + 1) % M64)
    for (piece,) in struct.iter_unpack("<Q", message + bytes(-len(message) % 8)):
        h = ref_mix(h ^ piece)
    return h


class Ref:
    """The stream of one key, one word at a time."""

    def __init__(self, key: int) -> None:
        self.key, self.i = key, 0

    def word(self) -> int:
        self.i += 1
        return ref_mix((self.key + 0x9E3779B97F4A7C15 * self.i) % M64)

    def integers(self, low: int, high: int, n: int) -> list[int]:
        span, out = high - low + 1, []
        while len(out) < n:
            if span == 1:
                out.append(low)
                continue
            w = self.word()
            if span <= 1 << 32:
                m = (w >> 32) * span
                if m % (1 << 32) >= (1 << 32) % span:
                    out.append(low + m // (1 << 32))
            else:
                c = w % (1 << (span - 1).bit_length())
                if c < span:
                    out.append(low + c)
        return out

    def random(self, n: int) -> list[float]:
        return [(self.word() >> 11) / 2 ** 53 for _ in range(n)]

    def bits(self, nbits: int, n: int) -> list[int]:
        data = b"".join(self.word().to_bytes(8, "little") for _ in range(-(-n * nbits // 64)))
        k = nbits // 8
        return [int.from_bytes(data[j * k:(j + 1) * k], "little") for j in range(n)]

    def permutation(self, n: int) -> list[int]:
        w = [self.word() for _ in range(n)]
        return sorted(range(n), key=lambda i: (w[i], i))


KEYS = [(0, ()), (1, ("TPARTADDTest.case_float_64x64_64x64_64x64_64x64",)), (2**64 - 1, ("a", "", "é")),
        (-7, ("fuzz-data", "12345678"))]


# ---- words ----------------------------------------------------------------------------------------------------

def test_the_words_of_key_0_are_splitmix64_s_reference_outputs():
    # splitmix64 from state 0 (Vigna's splitmix64.c; Java's SplittableRandom is the same generator)
    assert Stream(0).words(4).tolist() == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F,
                                           0xF88BB8A8724C81EC]


@pytest.mark.parametrize("seed,key", KEYS)
def test_keys_and_words_match_the_reference(seed, key):
    k = stream.key_of(seed, *key)
    assert k == ref_key(seed, *key)
    ref = Ref(k)
    s = Stream(k)
    for n in (1, 8, 9, 300, 8192 + 5):  # Python-int draws, numpy draws, and past a mixing chunk
        assert s.words(n).tolist() == [ref.word() for _ in range(n)]
    assert s.position == ref.i


def test_pinned_keys_and_words():
    assert [hex(stream.key_of(s, *k)) for s, k in KEYS] == [
        "0xf5c8d5bcfa8cea8a", "0x32350d822c0cce3b", "0x49fd647610e120de", "0x723243f9867d7940"]
    s = source.seeded(0, "TPARTADDTest.case_float_64x64_64x64_64x64_64x64")
    assert [hex(w) for w in s.words(3).tolist()] == ["0xd5fa0eeee2f4e6b8", "0xad4187d616176370", "0x851a8053dbf4af9f"]


def test_the_key_folds_every_part_and_its_boundaries():
    keys = {stream.key_of(0), stream.key_of(0, ""), stream.key_of(0, "", ""), stream.key_of(0, "ab"),
            stream.key_of(0, "a", "b"), stream.key_of(1, "ab"), stream.key_of(10), stream.key_of(0, "x" * 7),
            stream.key_of(0, "x" * 8), stream.key_of(0, "x" * 8 + "\0")}
    assert len(keys) == 10  # the length starts the fold: zero padding is no part of the message
    assert stream.key_of(0, "a\0b") == stream.key_of(0, "a", "b")  # a zero byte separates parts (as in version 1)


# ---- transforms --------------------------------------------------------------------------------------------------

SPANS = [(0, 0), (0, 1), (-5, 5), (0, 2), (0, 999), (0, 2**32 - 2), (0, 2**32 - 1), (7, 7 + 2**32),
         (10, 10 + 2**40), (-(2**62), 2**62), (-(2**63), 2**63 - 1), (2**63 - 3, 2**63 - 1)]


@pytest.mark.parametrize("seed,key", KEYS[:2])
def test_every_transform_matches_the_reference_and_takes_the_same_words(seed, key):
    k = stream.key_of(seed, *key)
    ref, s = Ref(k), Stream(k)
    for low, high in SPANS:
        for n in (1, 3, 9, 257):
            got = s.integers(low, high, n)
            assert got.dtype == np.int64 and got.tolist() == ref.integers(low, high, n), (low, high, n)
            assert s.position == ref.i
    assert int(s.integers(-3, 3)) == ref.integers(-3, 3, 1)[0]
    assert s.integers(0, 1).shape == () and ref.integers(0, 1, 1)
    for n in (1, 8, 9, 1000):
        assert s.random(n).tolist() == ref.random(n)
    for nbits in (8, 16, 32, 64):
        for n in (1, 7, 33, 1001):  # the bits past the last value of a word are dropped
            got = s.bits(nbits, n)
            assert got.dtype == np.dtype(f"<u{nbits // 8}") and got.tolist() == ref.bits(nbits, n)
            got[:] = 0  # fresh and writable
    assert s.bytes(11) == bytes(ref.bits(8, 11))
    options = ("a", "b", "c", "d", "e")
    assert [s.choice(options) for _ in range(20)] == [options[i] for i in ref.integers(0, 4, 20)]
    for n in (0, 1, 9, 600):
        assert s.permutation(n).tolist() == ref.permutation(n)
    values = np.arange(100, 150)
    assert s.sample(values, 7).tolist() == [int(values[i]) for i in ref.permutation(50)[:7]]
    assert s.uniform(0, 1 << 64, 20, np.uint64).tolist() == ref.integers(0, 2**64 - 1, 20)
    assert s.uniform(-4, 4, 20).tolist() == ref.integers(-4, 3, 20)
    assert s.position == ref.i


def test_pinned_transforms():
    s = source.seeded(42, "pinned")
    assert s.integers(0, 9, 12).tolist() == [7, 8, 2, 9, 3, 5, 6, 1, 7, 6, 1, 0]
    assert s.integers(-(2**63), 2**63 - 1, 2).tolist() == [-4575231378617785739, -1270934196177646400]
    assert s.integers(1, 2**40, 2).tolist() == [277331492934, 971040071102]
    assert s.random(3).tolist() == [0.4779265781064289, 0.7522950880959977, 0.7856821360890557]
    assert [hex(v) for v in s.bits(16, 5).tolist()] == ["0x60e6", "0xfee5", "0x1ecd", "0x69fb", "0x6ccb"]
    assert s.bits(8, 9).tobytes().hex() == "a1b56c8fe9170b3e64"
    assert s.permutation(10).tolist() == [8, 5, 0, 1, 6, 2, 9, 3, 4, 7]
    assert s.choice("abcdefgh") == "d"
    assert s.position == 12 + 2 + 2 + 3 + 2 + 2 + 10 + 1  # no candidate rejected: one word a value


def test_lemire_rejects_the_products_that_would_bias_the_range():
    span = 2**31 + 1  # 2**32 mod span = 2**31 - 1: about half the candidates fall below it and are rejected
    floor = (1 << 32) % span
    products = [(ref_mix(0x9E3779B97F4A7C15 * i % M64) >> 32) * span for i in range(1, 41)]
    kept = [(i, m >> 32) for i, m in enumerate(products, 1) if m % (1 << 32) >= floor]
    assert 5 < len(kept) < 35
    s = Stream(0)
    assert s.integers(0, span - 1, len(kept)).tolist() == [v for _, v in kept]
    assert s.position == kept[-1][0]  # up to the word of the last value, no further


def test_bad_requests_are_refused():
    s = Stream(1)
    for args in ((3, 2), (0, 2**63), (-(2**63) - 1, 0)):
        with pytest.raises(ValueError):
            s.integers(*args)
    with pytest.raises(ValueError):
        s.bits(4, 3)
    with pytest.raises(ValueError):
        s.choice(())
    with pytest.raises(ValueError):
        s.sample(np.arange(3), 4)


# ---- properties --------------------------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(-(2**63), 2**63 - 1), st.integers(0, 2**64 - 1),
       st.integers(0, 40))
def test_integers_stay_within_their_range(key, low, width, n):
    high = min(low + width, 2**63 - 1)
    got = Stream(key).integers(low, high, n)
    assert got.shape == (n,) and ((got >= low) & (got <= high)).all()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(-50, 50), st.integers(1, 12))
def test_every_value_of_a_small_range_comes(key, low, span):
    got = Stream(key).integers(low, low + span - 1, 600)
    assert set(got.tolist()) == set(range(low, low + span))  # a miss has odds below 12 * (11/12)**600


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1), st.integers(1, 40))
def test_a_draw_of_n_is_n_draws_of_one(key, span, n):
    """The first n accepted candidates, whether asked for at once (numpy) or one by one (Python ints)."""
    span = max(span, 1)
    whole, single = Stream(key), Stream(key)
    assert [int(v) for v in whole.offsets(span, n)] == [int(single.offsets(span, 1)[0]) for _ in range(n)]
    assert whole.position == single.position
    one = Stream(key)
    assert Stream(key).random(n).tolist() == [float(one.random(1)[0]) for _ in range(n)]


@settings(max_examples=50, deadline=None)
@given(st.integers(), st.lists(st.text(max_size=12), max_size=4))
def test_the_same_seed_and_key_draw_the_same(seed, key):
    a, b = source.seeded(seed, *key), source.seeded(seed, *key)
    assert a.version == b.version == source.DRAW_VERSION == 2
    assert a.bits(32, 50).tolist() == b.bits(32, 50).tolist()
    assert a.integers(-9, 9, 20).tolist() == b.integers(-9, 9, 20).tolist()
    assert a.random(3).tolist() == b.random(3).tolist()


# ---- batched draws --------------------------------------------------------------------------------------------

class _Plain(Stream):
    """The same stream, not exactly a Stream: values.draw_many's per-source loop instead of its batched path."""


def test_bits_many_is_bits_call_by_call():
    requests = [(5, 16, 7), (6, 64, 3), (5, 8, 13), (7, 32, 0), (6, 16, 9000), (5, 32, 1)]  # stream 5 thrice
    batched = {k: Stream(k) for k in (5, 6, 7)}
    single = {k: Stream(k) for k in (5, 6, 7)}
    got = stream.bits_many([(batched[k], b, n) for k, b, n in requests])
    for (k, b, n), g in zip(requests, got):
        want = single[k].bits(b, n)
        assert g.dtype == want.dtype and g.tolist() == want.tolist()
    assert {k: s.position for k, s in batched.items()} == {k: s.position for k, s in single.items()}


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "int64", "float4_e2m1"])
@pytest.mark.parametrize("rate", [0.0, 0.3])
def test_draw_many_over_streams_takes_the_words_the_loop_takes(dtype, rate):
    from ptofuzz.core import dtypes
    from ptofuzz.generators import values

    keys = [11, 12, 11, 13, 12, 11]  # sources come more than once: each one's draws keep their order
    shapes = [(3, 5), (0, 4), (8, 8), (1, 1), (40, 7), (2, 3)]
    fast = {k: Stream(k) for k in keys}
    slow = {k: _Plain(k) for k in keys}
    mix = values.ValueMix(rate)
    a = values.draw_many([(fast[k], sh) for k, sh in zip(keys, shapes)], dtypes.get(dtype), mix)
    b = values.draw_many([(slow[k], sh) for k, sh in zip(keys, shapes)], dtypes.get(dtype), mix)
    assert [x.tolist() for x in a] == [x.tolist() for x in b]
    assert {k: s.position for k, s in fast.items()} == {k: s.position for k, s in slow.items()}
