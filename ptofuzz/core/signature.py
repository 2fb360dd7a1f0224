"""The name of a kind of disagreement: :class:`Signature` (op, dtype class, oracle pair, mismatch kind, region,
geometry), and the mismatch kinds it uses. Instructions name their documented differences by it; campaigns
count and save one example per signature."""

from __future__ import annotations

import dataclasses
import hashlib
import re

from ptofuzz.core import dtypes

# Mismatch classes of one element (value against value): the comparison engine's element error classes
# (ptofuzz.engine.compare.element_errors), two of them under their signature names.
SIGNATURE_KIND = {"nan-payload": "nan-encoding", "inf": "inf-vs-finite"}
FAULT_VS_VALUE = "fault-vs-value"
FAULT_KIND = "fault-kind"  # two faults with different trap numbers
FAULT_POINT = "fault-point"  # two pto-spec models' faults of one trap, but another fault or raised elsewhere
FAILURE_KINDS = ("crash", "hang")  # a real target died or did not answer (kinds of one oracle, not of a pair)
ORDERING = "ordering"
INDEX = "index"  # a mismatch in an index output (TPARTARG*): its own class, whatever the element error
OP_REGION = "op"  # the region name of an instruction's elementwise operation (geometry-independent)


@dataclasses.dataclass(frozen=True, order=True)
class Signature:
    """What kind of disagreement a case shows; one saved example and a hit count per signature."""

    op: str
    dtype_class: str  # float / int / int64
    pair: str  # "a5~spec": the two oracles, sorted
    kind: str  # mismatch class
    region: str  # where in the tile ("-" for whole-outcome disagreements)
    geometry: str  # the instruction's geometry class of the case

    @property
    def key(self) -> str:
        return "/".join((self.op, self.dtype_class, self.pair, self.kind, self.region, self.geometry))

    @property
    def slug(self) -> str:
        """A file-system-safe folder name: the fields made readable, plus 8 hex digits of the key's hash so
        that two signatures never share a folder."""
        text = "_".join((self.op, self.dtype_class, self.pair, self.kind, self.region, self.geometry))
        for old, new in (("~", "-vs-"), ("<=", "le"), (">=", "ge"), ("<", "lt"), (">", "gt"), ("=", "-"),
                         (",", "+")):
            text = text.replace(old, new)
        text = re.sub(r"[^A-Za-z0-9_.+-]+", "_", text)
        return f"{text}_{hashlib.sha256(self.key.encode()).hexdigest()[:8]}"

    @classmethod
    def from_key(cls, key: str) -> Signature:
        parts = key.split("/")
        if len(parts) != 6:
            raise ValueError(f"signature {key!r} is not op/dtype-class/pair/kind/region/geometry")
        return cls(*parts)

    def oracles(self) -> tuple[str, str]:
        a, _, b = self.pair.partition("~")
        return a, b


def dtype_class(dtype: str) -> str:
    """float, int, or int64 (64-bit integers, which only some platforms implement)."""
    dt = dtypes.get(dtype)
    return "float" if dt.is_float else "int64" if dt.bits == 64 else "int"


def pair_name(a: str, b: str) -> str:
    return "~".join(sorted((a, b)))
