"""Cases and outcomes: the records every oracle, layout and generator speaks.

A :class:`Case` is pure geometry and parameters (no data). An :class:`Outcome` is what one oracle says a case
produces: values with a per-element class, a fault, or "unsupported on this platform".
"""

from __future__ import annotations

import enum
import re
from typing import TYPE_CHECKING, Any, NamedTuple

from ptofuzz.core.errors import UsageError
from ptofuzz.core.records import field, record, replace

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import numpy as np

class TextEnum(str, enum.Enum):
    """A closed set of names that are also their JSON and terminal spelling (``str()`` and f-strings give the
    value on every Python version, as ``enum.StrEnum`` does from 3.11)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class ElementClass(enum.IntEnum):
    """Per-element class of an expected value (the uint8 codes of Outcome.classes and manifests' bitmaps)."""

    EXACT = 0  # the bits must match exactly
    NAN = 1  # any NaN (sign and payload free)
    ZERO = 2  # +0 or -0
    UNDEFINED = 3  # anything: the platform leaves this element undefined
    BOUNDED = 4  # a finite value within the element's stated ULP bound (Outcome.bounds) of the bits: the
    # platform's order of evaluation is not determinable from its sources, and the bound holds for every order


# the codes as plain ints: numpy compares arrays with them and fills arrays with them at C speed, while an enum
# member is converted through Python attribute lookups on every such call (about 3 us against 0.7)
EXACT, NAN, ZERO, UNDEFINED, BOUNDED = (int(c) for c in (ElementClass.EXACT, ElementClass.NAN, ElementClass.ZERO,
                                                         ElementClass.UNDEFINED, ElementClass.BOUNDED))
CLASS_NAMES = {int(c): c.name.lower() for c in ElementClass}


class OutcomeKind(TextEnum):
    """What kind of answer an oracle gave (see :class:`Outcome`)."""

    OK = "ok"
    FAULT = "fault"
    UNSUPPORTED = "unsupported"
    CRASH = "crash"  # a real target died on the case
    HANG = "hang"  # a real target did not answer

_RXC = r"^\s*(\d+)\s*[xX]\s*(\d+)\s*$"  # (compiled by re when a shape is first parsed)

MAX_DIM = 1 << 20  # rows or columns of a tile read from a file
MAX_TILE_ELEMENTS = 1 << 22  # 4,194,304: far above any pto-isa tile, small enough to stay in memory


def parse_rxc(text: str, what: str = "shape") -> tuple[int, int]:
    """Parse ``"64x32"`` into ``(64, 32)``; raise a one-line UsageError naming ``what`` otherwise."""
    m = re.match(_RXC, text or "")
    if not m:
        raise UsageError(f"{what} {text!r} is not ROWSxCOLS; write it like 64x32")
    return int(m.group(1)), int(m.group(2))


class Tile(NamedTuple):
    """A tile's physical shape and its valid region, anchored at (0, 0).

    Like ptofuzz's other small immutable records (Fault, DType, Platform), a NamedTuple rather than a frozen
    dataclass: the same fields, repr and hash (a tile also equals a plain tuple of its four numbers), and the class
    costs a fifth of a dataclass to build, which every ``ptofuzz gen`` does before it writes a byte.
    """

    rows: int
    cols: int
    valid_rows: int
    valid_cols: int

    @classmethod
    def full(cls, rows: int, cols: int) -> Tile:
        return cls(rows, cols, rows, cols)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.rows, self.cols)

    @property
    def valid(self) -> tuple[int, int]:
        return (self.valid_rows, self.valid_cols)

    def token(self) -> str:
        """``8x64`` when the tile is exactly its valid region, else ``8x64of64x64``."""
        v = f"{self.valid_rows}x{self.valid_cols}"
        return v if self.valid == self.shape else f"{v}of{self.rows}x{self.cols}"

    def to_json(self) -> dict[str, list[int]]:
        return {"shape": [self.rows, self.cols], "valid": [self.valid_rows, self.valid_cols]}

    @classmethod
    def from_json(cls, d: dict[str, list[int]]) -> Tile:
        """A tile from ``{"shape": [R, C], "valid": [r, c]}``: integers only (``64.5`` or ``"64"`` is an error,
        never rounded), at most :data:`MAX_TILE_ELEMENTS` elements."""
        if not isinstance(d, dict):
            raise ValueError(f"a tile must be {{shape: [R, C], valid: [r, c]}}, not {type(d).__name__}")
        dims = []
        for key in ("shape", "valid"):
            pair = d.get(key)
            if not isinstance(pair, list) or len(pair) != 2 or not all(type(v) is int and 0 <= v <= MAX_DIM
                                                                        for v in pair):
                raise ValueError(f"tile {key} must be two integers from 0 to {MAX_DIM}, not {pair!r}")
            dims += pair
        if dims[0] * dims[1] > MAX_TILE_ELEMENTS:
            raise ValueError(f"a {dims[0]}x{dims[1]} tile has more than {MAX_TILE_ELEMENTS:,} elements")
        return cls(*dims)


@record(frozen=True)
class Case:
    """One instruction instance: op, platform, dtype, tiles by role, and extra parameters.

    ``tiles`` and ``params`` are tuples of pairs so that cases are hashable and compare by value.
    """

    op: str
    platform: str
    dtype: str
    tiles: tuple[tuple[str, Tile], ...]
    params: tuple[tuple[str, Any], ...] = ()

    def __init__(self, op: str, platform: str, dtype: str, tiles: tuple[tuple[str, Tile], ...],
                 params: tuple[tuple[str, Any], ...] = ()) -> None:
        # one spelling per case: params sorted by name, None values dropped (a case is made for every folder
        # and every drawn case: its own __init__ is a third of the generic one's cost)
        self.__dict__.update(op=op, platform=platform, dtype=dtype, tiles=tiles,
                             params=tuple(sorted(kv for kv in params if kv[1] is not None)) if params else ())

    def __hash__(self) -> int:
        # a case keys the dictionaries of every batch (shared work, memos, structural masks): its hash, over its
        # nested tuples of tiles, is worked out once (and never pickled: string hashes differ between processes)
        try:
            return self.__dict__["_hash"]
        except KeyError:
            h = hash((self.op, self.platform, self.dtype, self.tiles, self.params))
            object.__setattr__(self, "_hash", h)
            return h

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_hash", None)
        return state

    def tile(self, role: str) -> Tile:
        for r, t in self.tiles:
            if r == role:
                return t
        raise KeyError(role)

    def on(self, platform: str) -> Case:
        """The same case for another platform (cheaper than :meth:`replace`: nothing to re-normalise)."""
        if platform == self.platform:
            return self
        other = object.__new__(Case)
        other.__dict__.update(op=self.op, platform=platform, dtype=self.dtype, tiles=self.tiles, params=self.params)
        return other

    def param(self, name: str, default: Any = None) -> Any:
        for key, value in self.params:
            if key == name:
                return value
        return default

    def replace(self, **changes: Any) -> Case:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "platform": self.platform,
            "dtype": self.dtype,
            "tiles": {role: t.to_json() for role, t in self.tiles},
            "params": dict(self.params),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Case:
        for key in ("op", "platform", "dtype"):
            if not isinstance(d.get(key), str):
                raise ValueError(f"{key} must be a name (a string), not {d.get(key)!r}")
        if not isinstance(d.get("tiles"), dict):
            raise ValueError("tiles must map each role to {shape, valid}")
        params = d.get("params", {})
        if not isinstance(params, dict) or not all(isinstance(v, (str, int, float, bool)) or v is None
                                                   for v in params.values()):
            raise ValueError("params must map names to plain values")
        return cls(
            op=d["op"], platform=d["platform"], dtype=d["dtype"],
            tiles=tuple((str(role), Tile.from_json(t)) for role, t in d["tiles"].items()),
            params=tuple(sorted(params.items())),
        )


def param_values(case: Case, inputs: Mapping[str, np.ndarray], name: str, default: int = 0) -> np.ndarray:
    """An integer case parameter that a batch may vary per item (``Instruction.batch_params``): the input named
    after it, one value per item (int64, shape (n, 1, 1)), else the case's own value (shape (1, 1))."""
    import numpy as np

    given = inputs.get(name)
    if given is not None:
        return np.asarray(given, dtype=np.int64)
    value = case.param(name, default)
    return np.full((1, 1), default if value is None else int(value), dtype=np.int64)


def item_case(case: Case, inputs: Mapping[str, np.ndarray], names: Sequence[str]
              ) -> tuple[Case, dict[str, np.ndarray]]:
    """One batch item as a case of its own: the per-item parameters ``names`` (inputs of one value, see
    :func:`param_values`) moved from ``inputs`` into the case's params."""
    import numpy as np

    moved = {n: int(np.asarray(inputs[n]).reshape(-1)[0]) for n in names if n in inputs}
    if not moved:
        return case, dict(inputs)
    params = tuple((k, v) for k, v in case.params if k not in moved) + tuple(moved.items())
    return case.replace(params=params), {r: v for r, v in inputs.items() if r not in moved}


COMMIT = "commit"  # Fault.point of a fault raised when a block commits


def at_word(index: int) -> str:
    """Fault.point of a fault raised at command word ``index`` of a bundle (decode and header checks)."""
    return f"word {index}"


class Fault(NamedTuple):
    """An architectural fault: the operation publishes nothing (a NamedTuple: see :class:`Tile`)."""

    name: str  # e.g. "Fault_TileLegality"
    trap: int  # 4 decode, 5 legality / allocation / bundle control
    reason: str
    #: where it is raised, for the pto-spec models: "commit" (when the block commits; every fault of the direct
    #: spec oracles) or "word N" (the bundle executor, at command word N: decode and header checks); "" where
    #: only the trap number is architecturally visible (the platform models)
    point: str = ""


@record
class Outcome:
    """What an oracle says a case produces.

    kind "ok": ``outputs[role]`` holds result bits at the tile's physical shape and ``classes[role]`` the
    per-element class codes (EXACT/NAN/ZERO/UNDEFINED/BOUNDED); bits under NAN, ZERO or UNDEFINED are
    placeholders; under BOUNDED they are one evaluation order's value, and ``bounds[role]`` (uint32, the same
    shape; absent when no element is BOUNDED) holds how many ULPs from it any order may land.
    kind "fault": ``fault`` says which. kind "unsupported": the platform does not implement this case
    (``reason`` says why); that is a capability gap, not a result. kinds "crash" / "hang": a real target
    (the cpusim harness) died or did not answer on this case; ``reason`` holds the first report line.
    ``flags`` are the numeric status flags raised (spec only; None where a model does not track them).
    """

    kind: OutcomeKind
    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    classes: dict[str, np.ndarray] = field(default_factory=dict)
    flags: tuple[str, ...] | None = None
    fault: Fault | None = None
    reason: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. TMRGSORT's executed counts
    bounds: dict[str, np.ndarray] = field(default_factory=dict)  # role -> ULP bound per element

    def __post_init__(self) -> None:  # a kind given by its name ("ok") becomes the member; any other name raises
        if type(self.kind) is not OutcomeKind:  # (a member, the common case, skips the enum's lookup)
            object.__setattr__(self, "kind", OutcomeKind(self.kind))

    def copy(self) -> Outcome:
        """The same outcome with its own dicts (the arrays in them shared)."""
        return Outcome(kind=self.kind, outputs=dict(self.outputs), classes=dict(self.classes), flags=self.flags,
                       fault=self.fault, reason=self.reason, extra=dict(self.extra), bounds=dict(self.bounds))

    @classmethod
    def faulted(cls, name: str, trap: int, reason: str, point: str = "") -> Outcome:
        return cls(OutcomeKind.FAULT, fault=Fault(name, trap, reason, point), reason=reason)

    @classmethod
    def unsupported(cls, reason: str) -> Outcome:
        return cls(OutcomeKind.UNSUPPORTED, reason=reason)

    def summary(self) -> dict[str, Any]:
        """JSON-ready description without the data (for manifests)."""
        d: dict[str, Any] = {"outcome": self.kind.value}
        if self.kind is OutcomeKind.FAULT and self.fault:
            d["fault"] = {"name": self.fault.name, "trap": self.fault.trap, "reason": self.fault.reason,
                          **({"point": self.fault.point} if self.fault.point else {})}
        if self.kind in (OutcomeKind.UNSUPPORTED, OutcomeKind.CRASH, OutcomeKind.HANG):
            d["reason"] = self.reason
        if self.flags is not None:
            d["flags"] = list(self.flags)
        d.update(self.extra)
        return d
