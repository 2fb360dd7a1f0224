"""Layout profiles: how one (instruction, platform) pair names case folders and lays out its files.

A profile both writes and reads: :meth:`Profile.name` turns a case into a folder name and :meth:`Profile.parse`
recovers the case from a folder name (pto-isa-made folders carry no manifest). Two file layouts exist:

* compact (a2a3/a5 system tests): each file holds only the tile's valid region, row stride = valid columns;
  the tile *is* its valid region.
* full-tile (cpu system tests, ptofuzz's own spec layout): each file holds the whole physical tile, row-major,
  valid region top-left.

Folder names are ``<Suite>.<case>``; the case part is a canonical pto-isa name (``test0``,
``case_float_64x64_src1_32x32``) or the general grammar every profile reads and writes::

    case_<dtype>_<tile>_<tile>..[_inplace_<role>][_n<k>]     tile = <vr>x<vc>[of<rows>x<cols>]

with one tile per role in the profile's name order, dtype in the profile's spelling and ``_n<k>`` numbering
random cases.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ptofuzz.core import dtypes
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.errors import CaseFolderError
from ptofuzz.core.records import record

_TOKEN = r"\d+x\d+(?:of\d+x\d+)?"
_DTYPE = r"[a-z]+\d*(?:_e\dm\d(?:x2)?)?"  # a dtype word: float32, fp16, h8; fp8_e4m3, float8_e5m2; fp4_e2m1x2
_TOKEN_RE = r"(\d+)x(\d+)(?:of(\d+)x(\d+))?$"  # (compiled by re when a folder name is first parsed)


def smallest_columns(valid_cols: int) -> int:
    """The smallest power of two holding ``valid_cols`` columns (1 for none)."""
    return 1 << max(valid_cols - 1, 0).bit_length()


def spec_physical(valid_rows: int, valid_cols: int, dt: dtypes.DType) -> tuple[int, int]:
    """The smallest legal pto-spec tile descriptor holding a valid region: physical columns a power of two,
    capacity 128 B * 2**k, rows = capacity / (cols * element size) (pto-spec ``DerivedTileRows`` in
    ``asl/tile/model/shape/rows-columns.asl``, ``TileDescriptorShapeLegal`` in ``valid-region.asl``)."""
    cols = smallest_columns(valid_cols)
    row_bits = cols * dt.bits  # a 4-bit type's lanes pack two a byte (pto-spec's TileElementBits)
    capacity = 128 * 8
    while capacity < max(valid_rows, 1) * row_bits:
        capacity *= 2
    return max(capacity // row_bits, 1), cols


def whole_rows(valid_rows: int, valid_cols: int, dt: dtypes.DType) -> tuple[int, int]:
    """The smallest tile of whole 32-byte rows holding a valid region, at least one row and one block (what NPU
    and simulator tiles declare: an empty region still has a tile; a5's 8x0 float32 source is 1x8)."""
    per = max(1, 32 // dt.itemsize)
    return max(valid_rows, 1), max(-(-valid_cols // per), 1) * per


class Listed(Sequence[tuple[str, Case]]):
    """A profile's canonical cases, listed when first used: a ``gen`` needs one platform's list, and building an
    instruction's every list (five platforms, then spec's union of them) costs up to 7 ms of its start-up.
    ``make(*args)`` runs once; the listed cases then behave as the tuple it returned (and compare equal to it)."""

    __slots__ = ("_args", "_cases", "_make")

    def __init__(self, make: Callable[..., Sequence[tuple[str, Case]]], *args: Any) -> None:
        self._make: Callable[..., Sequence[tuple[str, Case]]] | None = make
        self._args = args
        self._cases: tuple[tuple[str, Case], ...] = ()

    def cases(self) -> tuple[tuple[str, Case], ...]:
        if self._make is not None:
            self._cases, self._make, self._args = tuple(self._make(*self._args)), None, ()
        return self._cases

    def __len__(self) -> int:
        return len(self.cases())

    def __getitem__(self, index: Any) -> Any:
        return self.cases()[index]

    def __iter__(self) -> Iterator[tuple[str, Case]]:
        return iter(self.cases())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and self.cases() == tuple(other)

    __hash__ = None  # type: ignore[assignment]  # (a tuple's hash would do, but nothing hashes a list of cases)

    def __repr__(self) -> str:
        return f"Listed({self.cases()!r})"


@record(frozen=True, eq=False)  # one per (instruction, platform): compared by identity
class Profile:
    """Naming and file layout of one (op, platform) system test.

    Attributes:
        op, platform: what the profile is for.
        suite: gtest suite name, the part of the folder name before the dot.
        inputs: (file name, role) of every input file, in the order the test reads them.
        golden: (file name, role) of the expected-result file(s).
        outputs: (file name, role) of what a device run writes next to them.
        name_roles: roles whose tiles appear in a general-grammar name, in order.
        compact: True for valid-region-only files, False for whole physical tiles.
        spelling: dtype name -> how this test spells it in case names.
        param_tokens: (param, prefix) of integer parameters written as ``_<prefix><value>`` after the tiles (a
            negative value with its minus sign: TTRI's diagonal).
        derive: builds every role's tile from the named roles' tiles (roles that share a geometry).
        canonical: (case part of the name, case) of every case the pto-isa test defines, in its order; a whole
            ``<Suite>.<case>`` name where the platform has a second test of the instruction with its own suite.
        physical: for full-tile profiles, the default physical shape for a valid region and dtype.
        src1_form: also read the cpu ``case_<dt>_<R>x<C>_src1_<r>x<c>`` names.
        carriers: (role, carrier dtype, element dtypes exempt) of input files that hold their role's elements as
            another type: pto-isa's tile-scalar tests write the scalar as one float32 whatever the tile's type
            (but a5's 64-bit cases as the element itself); see :meth:`carrier`.
        golden_for: the golden files of one case where a test's cases differ in them (TCVT's saturation tests
            write golden_truncated.bin); None: :attr:`golden` for every case. See :meth:`goldens`.
        packed: the 4-bit element types whose files hold two elements a byte (:mod:`ptofuzz.core.nibbles`: each
            row of the file shape packed on its own, element 2i in the low nibble); a 4-bit type not listed is
            one element a byte. See :meth:`packs`.
        inputs_for: the input files of one case where a test's cases differ in them (TQUANT's INT8 cases read
            scale and offset files, its MX cases none); None: :attr:`inputs` for every case. See
            :meth:`inputs_of`.
        note: where the profile comes from.
        test: the pto-isa system test (its ``testcase/`` folder and binary) that holds the cases, where one test
            serves several instructions (cpu ``trowexpandop``); '' for the op's own.
    """

    op: str
    platform: str
    suite: str
    inputs: tuple[tuple[str, str], ...]
    golden: tuple[tuple[str, str], ...]
    outputs: tuple[tuple[str, str], ...]
    name_roles: tuple[str, ...]
    compact: bool
    spelling: Mapping[str, str]
    canonical: Sequence[tuple[str, Case]] = ()  # a tuple, or Listed (built on first use)
    physical: Callable[[int, int, dtypes.DType], tuple[int, int]] | None = None
    src1_form: bool = False
    note: str = ""
    param_tokens: tuple[tuple[str, str], ...] = ()
    variable_roles: bool = False  # names list the tiles of a prefix of name_roles (TMRGSORT's 1-4 lists)
    derive: Callable[[dict[str, Tile]], tuple[tuple[str, Tile], ...]] | None = None
    dtype_param: str | None = None  # a second dtype, in a case param, named after the first (TPARTARG*'s idx)
    carriers: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    golden_for: Callable[[Case], tuple[tuple[str, str], ...]] | None = None
    packed: tuple[str, ...] = ()
    inputs_for: Callable[[Case], tuple[tuple[str, str], ...]] | None = None
    test: str = ""  # the system test's folder (testcase/<test>) where it is not the op's (trowexpandop)

    def inputs_of(self, case: Case) -> tuple[tuple[str, str], ...]:
        """(file name, role) of ``case``'s input files."""
        return self.inputs if self.inputs_for is None else self.inputs_for(case)

    def goldens(self, case: Case) -> tuple[tuple[str, str], ...]:
        """(file name, role) of ``case``'s expected-result files."""
        return self.golden if self.golden_for is None else self.golden_for(case)

    def carrier(self, role: str, dtype: str) -> dtypes.DType | None:
        """The type ``role``'s file holds its elements as, when the case's element type is ``dtype`` (None: the
        element type itself)."""
        for r, carrier, exempt in self.carriers:
            if r == role and dtype not in exempt and dtype != carrier:
                return dtypes.get(carrier)
        return None

    def packs(self, dtype: str) -> bool:
        """Whether a file of ``dtype`` elements holds two of them a byte (:attr:`packed`)."""
        return dtype in self.packed

    @property
    def layout(self) -> str:
        return "compact-valid" if self.compact else "full-tile"

    # ---- file shapes -------------------------------------------------------------------------------
    def file_shape(self, tile: Tile) -> tuple[int, int]:
        """Element shape of the file holding ``tile``."""
        return tile.valid if self.compact else tile.shape

    # ---- naming --------------------------------------------------------------------------------------
    def _spell(self, dtype: str) -> str:
        return self.spelling.get(dtype, dtype)

    def _unspell(self, word: str) -> str | None:
        """The dtype a case name spells: this test's own spelling, or ptofuzz's name for the others (None:
        neither)."""
        for name, spelled in self.spelling.items():
            if spelled == word:
                return name
        if word in dtypes.DTYPES and word not in self.spelling:
            return word
        return None

    @property
    def suites(self) -> tuple[str, ...]:
        """The suite, then those of canonical names that carry their own (a second test of the instruction)."""
        more = {a.partition(".")[0] for a, _ in self.canonical if "." in a} - {self.suite}
        return (self.suite, *sorted(more))

    def folder(self, alias: str) -> str:
        """The folder name of a canonical case: ``<suite>.<alias>``, or the alias itself when it names its suite."""
        return alias if "." in alias else f"{self.suite}.{alias}"

    def name(self, case: Case, index: int | None = None) -> str:
        """Folder name of ``case``; ``index`` numbers random cases (``_n<k>``)."""
        if index is None:
            for alias, c in self.canonical:
                if c == case:
                    return self.folder(alias)
        present = dict(case.tiles)
        parts = ["case", self._spell(case.dtype)]
        if self.dtype_param:
            parts.append(self._spell(case.param(self.dtype_param)))
        parts += [present[r].token() for r in self.name_roles if r in present]
        if case.param("inplace"):
            parts.append(f"inplace_{case.param('inplace')}")
        for param, prefix in self.param_tokens:
            if case.param(param) is not None:
                parts.append(f"{prefix}{int(case.param(param))}")
        if index is not None:
            parts.append(f"n{index}")
        return f"{self.suite}.{'_'.join(parts)}"

    def parse(self, folder_name: str) -> Case:
        """Recover the case from a folder name, or raise a one-line CaseFolderError."""
        for alias, case in self.canonical:  # a test of its own suite (a2a3's TADDPLUSTest beside TADDTest)
            if "." in alias and alias == folder_name:
                return case
        suite, dot, rest = folder_name.partition(".")
        if not dot or suite != self.suite:
            raise CaseFolderError(
                f"folder name {folder_name!r} is not a {self.op} case for {self.platform}: expected "
                f"'{self.suite}.<case>' (pick the right --platform, or add a ptofuzz.json manifest)")
        for alias, case in self.canonical:
            if alias == rest:
                return case
        cpu = re.fullmatch(r"case_([a-z]+\d*)_(\d+)x(\d+)_src1_(\d+)x(\d+)", rest) if self.src1_form else None
        if cpu:
            dt = self._checked_dtype(cpu.group(1), folder_name)
            R, C, r, c = (int(cpu.group(i)) for i in range(2, 6))
            return self._case(dt, [Tile(R, C, R, C), Tile(R, C, R, C), Tile(R, C, r, c)], None, folder_name)
        params = "".join(rf"(?:_{prefix}(-?\d+))?" for _, prefix in self.param_tokens)
        second = rf"({_DTYPE})_" if self.dtype_param else "()"
        m = re.fullmatch(rf"case_({_DTYPE})_{second}((?:{_TOKEN}_)*{_TOKEN})(?:_inplace_(\w+?))?{params}(?:_n\d+)?",
                         rest)
        if m is None:
            raise CaseFolderError(
                f"cannot parse folder name {folder_name!r}: expected {self.suite}.case_<dtype>_"
                f"{'_'.join('<R>x<C>' for _ in self.name_roles)} or one of the canonical names "
                f"({', '.join(a for a, _ in self.canonical[:3]) or 'none'}...)")
        dt = self._checked_dtype(m.group(1), folder_name)
        extra = {self.dtype_param: self._checked_dtype(m.group(2), folder_name)} if self.dtype_param else {}
        tokens = m.group(3).split("_")
        variable = self.variable_roles and 2 <= len(tokens) <= len(self.name_roles)
        if len(tokens) != len(self.name_roles) and not variable:
            raise CaseFolderError(
                f"folder name {folder_name!r} has {len(tokens)} tiles; {self.suite} names "
                f"{len(self.name_roles)} ({', '.join(self.name_roles)})")
        tiles = []
        for tok in tokens:
            t = re.match(_TOKEN_RE, tok)
            assert t is not None
            vr, vc = int(t.group(1)), int(t.group(2))
            rows, cols = (int(t.group(3)), int(t.group(4))) if t.group(3) else (vr, vc)
            tiles.append(Tile(rows, cols, vr, vc))
        values: dict[str, Any] = {p: int(m.group(5 + i)) for i, (p, _) in enumerate(self.param_tokens)
                                  if m.group(5 + i) is not None}
        return self._case(dt, tiles, m.group(4), folder_name, {**values, **extra})

    def _checked_dtype(self, word: str, folder_name: str) -> str:
        dt = self._unspell(word)
        if dt is None:
            raise CaseFolderError(f"folder name {folder_name!r}: unknown dtype spelling {word!r}")
        return dt

    def _case(self, dt: str, tiles: list[Tile], inplace: str | None, folder_name: str,
              values: dict[str, Any] | None = None) -> Case:
        for role, t in zip(self.name_roles, tiles):  # zip: a variable-roles name names a prefix of the roles
            if t.valid_rows * t.valid_cols and (t.valid_rows > t.rows or t.valid_cols > t.cols):
                raise CaseFolderError(
                    f"folder name {folder_name!r}: {role} valid region {t.valid_rows}x{t.valid_cols} is larger "
                    f"than its tile {t.rows}x{t.cols}")
        if inplace is not None:
            named = dict(zip(self.name_roles, tiles))
            if inplace not in self.name_roles[1:] or named[inplace] != tiles[0]:
                raise CaseFolderError(f"folder name {folder_name!r}: in-place {inplace!r} must name a source whose "
                                      f"tile equals the destination's")
        params = dict(values or {})
        if inplace:
            params["inplace"] = inplace
        pairs = tuple(zip(self.name_roles, tiles))
        all_tiles = self.derive(dict(pairs)) if self.derive else pairs
        return Case(self.op, self.platform, dt, all_tiles, tuple(sorted(params.items())))
