"""Case records: one case, its inputs and what each oracle said of it, as a small JSON file plus ``.bin`` inputs.

The same format serves three purposes:

* a **finding** of a fuzz campaign: ``OUT/<signature-slug>/record.json`` with the inputs, every oracle's output
  (``<oracle>.<role>.bin``), the signature, its hit count and where the campaign first met it;
* a **corpus entry** under ``corpora/``: a case to replay, whose inputs are inline hex per role (tiny tiles),
  ``.bin`` files next to it, or one seeded draw through the instruction's own generator
  (``"inputs": {"draw": {"seed": 0, "key": ["corpus", "<name>"], "rate": 0.05, "version": 2}}``; without
  ``version``, a draw of version 1, as records made before draw versions were recorded: see
  :mod:`ptofuzz.generators.source`);
* the **minimized** form of a finding (``OUT/<slug>.min/``).

``expect`` holds each oracle's outcome and a digest of its outputs and element classes, so that a replay can
say whether anything changed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ptofuzz.core import dtypes, reading
from ptofuzz.core.atomic import write_file
from ptofuzz.core.case import Case, Outcome, OutcomeKind
from ptofuzz.core.errors import CaseFolderError, UsageError
from ptofuzz.instructions import registry

FORMAT = "ptofuzz-record/1"
RECORD = "record.json"
INLINE_MAX = 64  # elements: inputs up to this size are written inline as hex


@dataclasses.dataclass
class Record:
    """A case with concrete inputs and what the oracles said about it."""

    case: Case
    inputs: dict[str, np.ndarray]
    oracles: tuple[str, ...]
    expect: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)  # oracle -> outcome, digest
    signatures: tuple[str, ...] = ()  # signature keys the case shows
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)  # finding / note / campaign info
    path: Path | None = None  # the record.json (or corpus .json) it was read from


def digest(outcome: Outcome) -> str:
    """A short fingerprint of an outcome: kind, fault, output bits and element classes."""
    h = hashlib.sha256(outcome.kind.encode())
    if outcome.fault is not None:
        h.update(outcome.fault.name.encode())
    for role in sorted(outcome.outputs):
        h.update(role.encode())
        h.update(np.ascontiguousarray(outcome.outputs[role]).tobytes())
        h.update(np.ascontiguousarray(outcome.classes[role]).tobytes())
    return h.hexdigest()[:16]


def describe(outcome: Outcome) -> dict[str, Any]:
    d: dict[str, Any] = {"outcome": outcome.kind, "digest": digest(outcome)}
    if outcome.fault is not None:
        d["fault"] = outcome.fault.name
    if outcome.kind in (OutcomeKind.UNSUPPORTED, OutcomeKind.CRASH, OutcomeKind.HANG):
        d["reason"] = outcome.reason  # for a crash: the sanitizer's first report line
    if "cause" in outcome.extra:
        d["cause"] = outcome.extra["cause"]
    return d


def _input_entry(bits: np.ndarray, dt: dtypes.DType, fname: str, folder: Path | None,
                 files: dict[str, bytes]) -> dict[str, Any]:
    entry: dict[str, Any] = {"dtype": dt.name, "shape": list(bits.shape)}
    if bits.size <= INLINE_MAX or folder is None:
        entry["hex"] = [format(int(v), f"0{dt.bits // 4}x") for v in bits.ravel()]
    else:
        data = np.ascontiguousarray(bits).astype(dt.bits_dtype, copy=False).tobytes()
        files[fname] = data
        entry.update(file=fname, sha256=hashlib.sha256(data).hexdigest())
    return entry


def to_json(rec: Record, inst: registry.Instruction, folder: Path | None) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The record's JSON and the ``.bin`` files it refers to (inputs larger than :data:`INLINE_MAX`)."""
    files: dict[str, bytes] = {}
    inputs = {role: _input_entry(bits, inst.dtype_of(rec.case, role), f"{role}.bin", folder, files)
              for role, bits in sorted(rec.inputs.items())}
    data = {"format": FORMAT, **rec.case.to_json(), "inputs": inputs, "oracles": list(rec.oracles),
            "expect": rec.expect, "signatures": list(rec.signatures), **rec.extra}
    return data, files


def write(rec: Record, inst: registry.Instruction, folder: Path, *, outcomes: Mapping[str, Outcome] | None = None,
          force: bool = False) -> Path:
    """Write a record folder atomically: ``record.json``, input ``.bin`` files and, when ``outcomes`` are given,
    each oracle's outputs (``<oracle>.<role>.bin``, raw bits at the tile's physical shape)."""
    data, files = to_json(rec, inst, folder)
    for oracle, out in sorted((outcomes or {}).items()):
        for role, bits in sorted(out.outputs.items()):
            files[f"{oracle}.{role}.bin"] = np.ascontiguousarray(bits).tobytes()
    tmp = folder.with_name(f".{folder.name}.tmp-{os.getpid()}")
    if folder.exists() and not force:
        raise UsageError(f"{str(folder)!r} already exists; pass --force to overwrite")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir(parents=True)
        for name, blob in files.items():
            (tmp / name).write_bytes(blob)
        (tmp / RECORD).write_text(dumps(data))
        if folder.exists():
            shutil.rmtree(folder)
        os.rename(tmp, folder)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise UsageError(f"cannot write {str(folder)!r}: {e.strerror}; free some space or choose another --out"
                         ) from None
    return folder / RECORD


def dumps(data: Mapping[str, Any]) -> str:
    """Indented JSON with innermost lists (shapes, hex values) kept on one line."""
    text = json.dumps(data, indent=1)
    return re.sub(r"\[\s+([^\[\]{}]*?)\s+\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text) + "\n"


def update_json(path: Path, changes: Mapping[str, Any]) -> None:
    """Rewrite some top-level fields of a record.json atomically."""
    data = json.loads(path.read_text())
    data.update(changes)
    write_file(path, dumps(data))


def _document(jpath: Path) -> dict[str, Any]:
    """A record file's JSON object in the record format (ValueError naming the problem otherwise). A record
    folder's record.json is read only as a plain file of that folder: a link to a file elsewhere is refused
    unread (what it points to is no business of the record, nor to be shown in a message)."""
    if jpath.name == RECORD and jpath.is_symlink():
        raise ValueError("it is a symbolic link; a record folder's record.json is a plain file of its own")
    data = reading.read_json(jpath)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else None
        raise ValueError(f"format {found!r}, expected {FORMAT!r}")
    return data


def finding_key(jpath: Path) -> str | None:
    """The signature of a saved finding (``record.json`` of a ``fuzz --out`` folder), without reading its inputs;
    ValueError when the record is damaged."""
    data = _document(jpath)
    from ptofuzz.io import validate

    validate.validate("record", data)
    return (data.get("finding") or {}).get("signature")


class _OtherDraw(CaseFolderError):
    """A record whose values come from a draw version this ptofuzz does not have."""


def read(path: Path) -> Record:
    """Read a record from a record folder, a ``record.json`` or a corpus ``.json`` file."""
    jpath = path / RECORD if path.is_dir() else path
    try:
        data = _document(jpath)
    except ValueError as e:
        raise CaseFolderError(f"{str(jpath)!r} is no readable case record ({e})") from None
    try:
        case = Case.from_json(data)
        inst = registry.get(case.op)
        from ptofuzz.io.casefolder import validate_case

        validate_case(inst, case)  # known dtype, every tile of the instruction, regions that fit
        if "draw" in data["inputs"]:  # a seeded draw through the instruction's own generator
            from ptofuzz.generators import values
            from ptofuzz.generators.source import UNVERSIONED, check_version, seeded

            d = data["inputs"]["draw"]
            seed, rate = d.get("seed", 0), d.get("rate", values.DEFAULT_SPECIAL_RATE)
            if type(seed) is not int or not 0 <= seed < 1 << 64:
                raise ValueError(f"inputs.draw.seed must be an integer from 0 to 2**64-1, not {seed!r}")
            try:  # a record from before draw versions: version 1 (numpy's PCG64, imported for it)
                version = check_version(d.get("version", UNVERSIONED))
            except ValueError as e:  # never another version's values in its place
                raise _OtherDraw(f"{str(jpath)!r} cannot be drawn again: inputs.draw.version: {e}") from None
            if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
                raise ValueError(f"inputs.draw.rate must be a number from 0 to 1, not {rate!r}")
            if not isinstance(d.get("key", []), list):
                raise ValueError("inputs.draw.key must be a list of strings")
            mix = values.ValueMix.parse(d.get("special"), float(rate))
            inputs = inst.draw_inputs(seeded(seed, *[str(k) for k in d.get("key", [])], version=version), case, mix)
        else:
            inputs = {role: _read_input(entry, inst.dtype_of(case, role), jpath.parent, case, role)
                      for role, entry in data["inputs"].items()}
            tiles = dict(case.tiles)
            for role in inst.inputs:
                if role in tiles and role not in inputs:
                    raise ValueError(f"inputs.{role} is missing (the {role} tile's values)")
        given = data.get("oracles")
        if given is not None and (not isinstance(given, list) or not all(isinstance(o, str) for o in given)):
            raise ValueError(f"oracles must be a list of oracle names, not {given!r}")
        oracles = tuple(given or inst.platforms)
        expect = data.get("expect") or {}
        if not isinstance(expect, dict) or not all(isinstance(v, dict) for v in expect.values()):
            raise ValueError("expect must map each oracle to {outcome, digest}")
        if not all(isinstance(k, str) for k in data.get("signatures") or ()):
            raise ValueError("signatures must be a list of strings")
        from ptofuzz.io import validate

        validate.validate("record", data)  # the rest of ptofuzz/schemas/record.json (after the checks that say more)
    except _OtherDraw:
        raise
    except KeyError as e:
        raise CaseFolderError(f"{str(jpath)!r}: bad case record (missing {e}); regenerate it") from None
    except (TypeError, AttributeError):
        raise CaseFolderError(f"{str(jpath)!r}: bad case record (a field has the wrong type: inputs, expect and "
                              "tiles are objects); regenerate it") from None
    except (ValueError, OSError, OverflowError, MemoryError) as e:
        raise CaseFolderError(f"{str(jpath)!r}: bad case record ({e}); regenerate it") from None
    known = {"format", "op", "platform", "dtype", "tiles", "params", "inputs", "oracles", "expect", "signatures"}
    extra = {k: v for k, v in data.items() if k not in known}
    return Record(case, inputs, oracles, dict(data.get("expect") or {}), tuple(data.get("signatures") or ()),
                  extra, jpath)


def _read_input(entry: Mapping[str, Any], dt: dtypes.DType, folder: Path, case: Case, role: str) -> np.ndarray:
    """One input of a record: inline hex, or a file next to the record (a plain name, a regular file, exactly
    the tile's size: nothing outside the record folder, no device or FIFO, no unbounded read)."""
    shape = tuple(entry.get("shape") or case.tile(role).shape)
    if len(shape) != 2 or not all(type(x) is int and 0 <= x for x in shape) or shape != case.tile(role).shape:
        raise ValueError(f"inputs.{role}.shape must be the {role} tile's {list(case.tile(role).shape)}, not "
                         f"{list(shape)}")
    n = shape[0] * shape[1]
    if "hex" in entry:
        hexes = entry["hex"]
        digits = 2 * dt.itemsize
        if not isinstance(hexes, list) or len(hexes) != n:
            raise ValueError(f"inputs.{role}.hex must be a list of {n} hex strings (shape {list(shape)})")
        try:
            values = [int(h, 16) for h in hexes if isinstance(h, str) and 0 < len(h.removeprefix("0x")) <= digits]
        except ValueError:
            values = []
        if len(values) != n:
            raise ValueError(f"inputs.{role}.hex must hold {n} hex strings of at most {digits} digits ({dt.name})")
        return np.array(values, dtype=np.uint64).astype(dt.bits_dtype).reshape(shape)
    if "file" in entry:
        name = entry["file"]
        if not isinstance(name, str) or not name or Path(name).name != name or name in (".", ".."):
            raise ValueError(f"inputs.{role}.file must be a file name in the record's folder, not {name!r}")
        fpath = folder / name
        if not fpath.is_file() or fpath.is_symlink():
            raise ValueError(f"inputs.{role}.file {name!r} is no regular file in {str(folder)!r}")
        size = fpath.stat().st_size
        if size != n * dt.itemsize:
            raise ValueError(f"{name} holds {size} bytes, {role} needs {n * dt.itemsize}")
        data = fpath.read_bytes()
        if "sha256" in entry and hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise ValueError(f"{name} is not the file ptofuzz wrote (its sha256 differs from inputs.{role}.sha256); "
                             f"restore it, or drop inputs.{role}.sha256 to replay an edited input")
        return np.frombuffer(data, dtype=dt.bits_dtype).reshape(shape).copy()
    raise ValueError(f"inputs.{role}: neither hex values nor a file")


def discover(paths: Sequence[Path], *, require: bool = True) -> list[Path]:
    """Record files under the given paths: record folders, ``.json`` records, or folders holding them (a folder
    holding none is an error unless ``require`` is false)."""
    found: list[Path] = []
    for p in paths:
        if not p.exists():
            raise UsageError(f"path {str(p)!r} does not exist")
        if p.is_file():
            found.append(p)
        elif os.path.lexists(p / RECORD):  # a record folder (read() says what is wrong with a damaged record.json)
            found.append(p / RECORD)
        else:
            # a record.json is a record whatever it holds (read() says what is wrong with a damaged one); other
            # .json files are corpus records when they claim the record format
            kids = sorted(k for k in p.rglob("*.json") if not any(part.startswith(".") for part in k.parts[-2:])
                          and (k.name == RECORD or _is_record(k)))
            if not kids and require:
                raise UsageError(f"{str(p)!r} holds no case records (record.json or corpus .json files)")
            found.extend(kids)
    return found


def _is_record(path: Path) -> bool:
    """Whether a .json file claims to be a case record (it names the record format; files over 4 MiB do not
    count). A cheap look at the bytes: :func:`read` parses and validates it."""
    try:
        if not reading.is_regular(path) or path.stat().st_size > 4 << 20:  # no FIFO, device, folder or loop
            return False
        return f'"{FORMAT}"'.encode() in path.read_bytes()
    except (OSError, ValueError):
        return False
