"""``ptofuzz triage``: group saved disagreements into buckets, one per probable cause.

Each finding (a record folder written by ``fuzz --out``) has a signature; several signatures usually share one
cause: a wrong platform model disagrees with every other oracle, in every region where the bug shows. The
default bucket key is therefore (op, culprit, kind), where the **culprit** is the oracle that takes part in every
pair showing that kind of mismatch in the finding's case (the odd one out); with only one such pair the culprit
is the pair itself. ``--split FIELD`` adds a field to the key and ``--merge FIELD`` drops one, so a person can
correct the grouping; ``--by`` sets the key outright.
"""

from __future__ import annotations

import collections
import dataclasses
import os
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ptofuzz.core.errors import CaseFolderError, UsageError
from ptofuzz.core.signature import Signature
from ptofuzz.io import records

FIELDS = ("op", "culprit", "kind", "dtype_class", "pair", "region", "geometry", "status")
DEFAULT_KEY = ("op", "culprit", "kind")
SORTS = ("hits", "first", "name", "size")


@dataclasses.dataclass(frozen=True)
class Item:
    """One saved disagreement."""

    path: Path  # the record folder (or file)
    signature: Signature
    hits: int
    first_seen: str
    known: str | None
    culprit: str
    size: int  # elements in the case's tiles (smaller is a better example)
    tiles: str
    folders: int = 1  # run folders that saved this signature (shards of one campaign, or several runs)
    defect: str | None = None  # the known defect of the code under test it is an instance of

    def field(self, name: str) -> str:
        if name == "culprit":
            return self.culprit
        if name == "status":
            return "known" if self.known else "defect" if self.defect else "new"
        return str(getattr(self.signature, name))


@dataclasses.dataclass
class Bucket:
    key: tuple[tuple[str, str], ...]
    items: list[Item]

    @property
    def name(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.key)

    @property
    def hits(self) -> int:
        return sum(i.hits for i in self.items)

    @property
    def known(self) -> bool:
        return all(i.known for i in self.items)

    @property
    def smallest(self) -> Item:
        return min(self.items, key=lambda i: (i.size, str(i.path)))

    @property
    def first(self) -> Item:
        return min(self.items, key=lambda i: (_order(i.first_seen), str(i.path)))

    @property
    def replay(self) -> str:
        return f"ptofuzz replay {shlex.quote(str(self.smallest.path))}"


def _order(first_seen: str) -> tuple[int, int, str]:
    """Sort key of "batch 3 item 17" / "exec 1234" / anything else."""
    parts = first_seen.split()
    try:
        if parts[0] == "batch":
            return int(parts[1]), int(parts[3]), ""
        if parts[0] == "exec":
            return int(parts[1]), 0, ""
    except (IndexError, ValueError):
        pass
    return 1 << 62, 0, first_seen


def _pairs(sig: Signature, shown: Sequence[str]) -> set[str]:
    """The oracle pairs that show ``sig``'s kind of mismatch (same op and region) in one case."""
    pairs = {sig.pair}
    for key in shown:
        try:
            other = Signature.from_key(key)
        except ValueError:
            continue
        if (other.op, other.kind, other.region) == (sig.op, sig.kind, sig.region):
            pairs.add(other.pair)
    return pairs


def culprit(pairs: set[str], fallback: str) -> str:
    """The one oracle that takes part in every pair, else ``fallback``."""
    if len(pairs) < 2:
        return fallback
    common = set.intersection(*(set(p.split("~")) for p in pairs))
    return next(iter(common)) if len(common) == 1 else fallback


def load(paths: Sequence[str | Path]) -> tuple[list[Item], list[tuple[Path, str]]]:
    """Every saved disagreement under ``paths`` (record folders with a ``finding``, or records that show one),
    and the records that could not be read, with why. Minimized copies (``*.min``) and paths named twice count once."""
    found = []
    seen: set[Path] = set()
    skipped = []
    for path in [*records.discover([Path(p) for p in paths], require=False), *_listed(paths)]:
        real = Path(os.path.realpath(path))  # (resolve() raises on a symlink loop)
        if real in seen or any(part.endswith(".min") for part in path.parts):  # overlaps; minimized copies
            continue
        seen.add(real)
        try:
            rec = records.read(path)
            finding = rec.extra.get("finding") or {}
            if not isinstance(finding, dict):
                raise ValueError("finding is not an object")
            key = finding.get("signature") or (rec.signatures[0] if rec.signatures else None)
            if not key:
                continue
            sig = Signature.from_key(str(key))
            int(finding.get("hits", 1))
        except (CaseFolderError, ValueError, TypeError) as e:
            skipped.append((path, str(e)))  # triage is about what can be read; replay says what is wrong with the rest
            continue
        found.append((path, rec, finding, sig))

    # the culprit: the oracle in every pair showing this kind of mismatch, in this case or in any other finding
    # of the same op, kind and region (one case often has only two oracles that give values)
    evidence: dict[tuple[str, str, str], set[str]] = collections.defaultdict(set)
    for _, rec, _, sig in found:
        evidence[sig.op, sig.kind, sig.region] |= _pairs(sig, rec.signatures)
    items = []
    for path, rec, finding, sig in found:
        own = _pairs(sig, rec.signatures)
        blame = culprit(own, "")
        if not blame:
            blame = culprit(evidence[sig.op, sig.kind, sig.region], sig.pair)
        folder = path.parent if path.name == records.RECORD else path
        size = sum(t.rows * t.cols for _, t in rec.case.tiles)
        tiles = ", ".join(f"{r} {t.token()}" for r, t in rec.case.tiles)
        items.append(Item(folder, sig, int(finding.get("hits", 1)), str(finding.get("first_seen", "-")),
                          finding.get("known"), blame, size, tiles, defect=finding.get("defect")))
    return _merged(items), skipped


def _listed(paths: Sequence[str | Path]) -> list[Path]:
    """The records the campaign summaries (``campaign.json``) under ``paths`` list, read strictly: a damaged
    summary is a UsageError, and a listed record that is gone or damaged counts as unreadable, not as absent."""
    from ptofuzz.core import reading
    from ptofuzz.engine.campaign import SUMMARY
    from ptofuzz.io import validate

    out = []
    for p in paths:
        summary = Path(p) / SUMMARY
        try:
            if not reading.is_regular(summary):
                continue
            data = reading.read_json(summary)
            validate.validate("campaign", data)
        except ValueError as e:
            raise UsageError(f"{str(summary)!r} is no campaign summary `ptofuzz fuzz --out` wrote ({e}); restore or "
                             "remove it") from None
        out += [Path(p) / s["path"] / records.RECORD for s in data["signatures"] if s.get("path")]
    return out


def _merged(items: list[Item]) -> list[Item]:
    """One item per signature: the record first seen (earliest batch), with the hits of every folder that saved
    it (``fuzz --shard i/N`` runs, or campaigns into different --out folders)."""
    by_key: dict[str, Item] = {}
    for it in items:
        prev = by_key.get(it.signature.key)
        if prev is None:
            by_key[it.signature.key] = it
            continue
        first = min((prev, it), key=lambda i: (_order(i.first_seen), str(i.path)))
        by_key[it.signature.key] = dataclasses.replace(first, hits=prev.hits + it.hits, folders=prev.folders + 1)
    return list(by_key.values())


def key_fields(by: Sequence[str] | None = None, split: Sequence[str] = (),
               merge: Sequence[str] = ()) -> tuple[str, ...]:
    fields = list(by) if by else list(DEFAULT_KEY)
    for f in (*fields, *split, *merge):
        if f not in FIELDS:
            raise UsageError(f"field {f!r} is unknown; use one of: {', '.join(FIELDS)}")
    fields += [f for f in split if f not in fields]
    fields = [f for f in fields if f not in merge]
    if not fields:
        raise UsageError("--merge removed every field; keep at least one (e.g. op)")
    return tuple(fields)


def buckets(items: Sequence[Item], fields: Sequence[str], sort: str = "hits") -> list[Bucket]:
    if sort not in SORTS:
        raise UsageError(f"--sort {sort!r}: use one of {', '.join(SORTS)}")
    groups: dict[tuple[tuple[str, str], ...], list[Item]] = collections.defaultdict(list)
    for item in items:
        groups[tuple((f, item.field(f)) for f in fields)].append(item)
    out = [Bucket(k, sorted(v, key=lambda i: i.signature)) for k, v in groups.items()]
    order: dict[str, Any] = {
        "hits": lambda b: (-b.hits, b.name),
        "first": lambda b: (_order(b.first.first_seen), b.name),
        "name": lambda b: b.name,
        "size": lambda b: (b.smallest.size, b.name),
    }
    return sorted(out, key=order[sort])
