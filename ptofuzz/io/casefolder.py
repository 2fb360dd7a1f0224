"""Case folders on disk: building their files and manifest, writing them atomically, reading them back.

A case folder is what a pto-isa system test reads (``input*.bin``, ``golden.bin``: raw little-endian arrays,
no header) plus ptofuzz's manifest ``ptofuzz.json``. A folder is built in a hidden temporary sibling and
renamed into place, so a reader never sees half a case; an existing folder is replaced only with ``force``.
"""

from __future__ import annotations

import binascii
import collections
import contextlib
import functools
import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ptofuzz import __version__
from ptofuzz.core import dtypes, nibbles, platforms, processes, reading
from ptofuzz.core.case import BOUNDED, CLASS_NAMES, EXACT, MAX_TILE_ELEMENTS, Case, Outcome, OutcomeKind
from ptofuzz.core.digest import sha256_hex
from ptofuzz.core.errors import CaseFolderError, UsageError
from ptofuzz.core.layouts import Profile
from ptofuzz.generators.source import DRAW_VERSION
from ptofuzz.instructions import registry

MANIFEST = "ptofuzz.json"
FORMAT = "ptofuzz-case/1"


def _rmtree(path: str, ignore_errors: bool = False) -> None:
    """``shutil.rmtree``, imported on first use: writing case folders never needs it, only clean-ups do (and
    shutil with its archive modules is a few ms of every ``gen``'s start-up)."""
    import shutil

    shutil.rmtree(path, ignore_errors=ignore_errors)


def file_bytes(bits: np.ndarray, profile: Profile, tile: Any, dt: dtypes.DType | None = None) -> bytes:
    """The bytes of one tile's file: the valid region (compact) or the whole physical tile; elements of a type
    the profile packs (``dt``, :meth:`Profile.packs`) two a byte."""
    r, c = profile.file_shape(tile)
    if dt is not None and profile.packs(dt.name):
        return nibbles.pack(bits[:r, :c]).tobytes()
    return np.ascontiguousarray(bits[:r, :c]).tobytes()


def _b64(data: bytes) -> str:
    """``base64.b64encode(data).decode()``, without importing base64 (what a canonical gen would load for it)."""
    return binascii.b2a_base64(data, newline=False).decode()


def class_masks(classes: np.ndarray, bounds: np.ndarray | None = None) -> dict[str, dict[str, Any]]:
    """Non-exact element classes of a file: ``{class: {"count": k, "bitmap": b64}}``, the bitmap being
    ``base64(numpy.packbits(mask))`` of the flattened file's elements (first element = most significant bit).
    The ``bounded`` class also states its elements' ULP bounds (``bounds``, the file's shape): ``max_ulps`` and
    ``ulps``, base64 of the bounds of its elements in file order as little-endian uint32."""
    flat = classes.ravel()
    if not np.count_nonzero(flat):
        return {}
    out: dict[str, dict[str, Any]] = {}
    for code, name in CLASS_NAMES.items():
        if code != EXACT:
            mask = flat == code
            count = int(np.count_nonzero(mask))
            if count:
                out[name] = {"count": count, "bitmap": _b64(np.packbits(mask).tobytes())}
                if code == BOUNDED:
                    ulps = (np.zeros(flat.shape, np.uint32) if bounds is None else bounds.ravel())[mask]
                    out[name]["max_ulps"] = int(ulps.max())
                    out[name]["ulps"] = _b64(ulps.astype("<u4").tobytes())
    return out


def classes_from_masks(masks: dict[str, dict[str, Any]], size: int) -> np.ndarray:
    """Inverse of :func:`class_masks`: the class code of every element of a flattened file."""
    codes = {v: k for k, v in CLASS_NAMES.items()}
    flat = np.zeros(size, dtype=np.uint8)
    for name, m in masks.items():
        bits = np.unpackbits(np.frombuffer(binascii.a2b_base64(m["bitmap"]), np.uint8), count=size).astype(bool)
        flat[bits] = codes[name]
    return flat


class FolderContent(NamedTuple):
    """Everything one case folder will hold (a NamedTuple: see :class:`ptofuzz.core.case.Tile`)."""

    name: str
    files: dict[str, bytes]
    manifest: dict[str, Any]


def build(inst: registry.Instruction, case: Case, inputs: dict[str, np.ndarray], outcome: Outcome,
          *, name: str, seed: int, mix: Any, replay: str, draw_version: int = DRAW_VERSION) -> FolderContent:
    """Assemble files and manifest for one case (no I/O); ``draw_version``: what ``seed`` drew."""
    profile = inst.support(case.platform).profile
    files: dict[str, bytes] = {}
    entries = []
    expected: dict[str, Any] = outcome.summary()
    present = dict(case.tiles)
    for fname, role in profile.inputs_of(case):
        if role not in present:  # e.g. a TMRGSORT list this case does not use
            continue
        tile = case.tile(role)
        fdt, bits = inst.dtype_of(case, role), inputs[role]
        carrier = profile.carrier(role, fdt.name)
        if carrier is not None:  # the role's elements written as another type (a float32 scalar)
            from ptofuzz.oracles import carrier as scalar_carrier  # (the tile-scalar tests' only)

            try:
                bits = scalar_carrier.encode(bits, fdt, carrier)
            except scalar_carrier.CarrierError as e:
                raise UsageError(f"{fname} cannot hold this case's {role} ({e}); {case.platform}'s test carries it "
                                 f"as {carrier.name}") from None
            fdt = carrier
        files[fname] = file_bytes(bits, profile, tile, fdt)
        entries.append(_entry(fname, role, "input", fdt, profile, tile, files[fname]))
    if outcome.kind is OutcomeKind.OK:
        classes: dict[str, Any] = {}
        for fname, role in profile.goldens(case):
            tile = case.tile(role)
            files[fname] = file_bytes(outcome.outputs[role], profile, tile, inst.dtype_of(case, role))
            entries.append(_entry(fname, role, "golden", inst.dtype_of(case, role), profile, tile, files[fname]))
            r, c = profile.file_shape(tile)
            bound = outcome.bounds.get(role)
            masks = class_masks(outcome.classes[role][:r, :c], None if bound is None else bound[:r, :c])
            if masks:
                classes[fname] = masks
        expected["classes"] = classes
    manifest = {
        "format": FORMAT,
        "generator": f"ptofuzz {__version__}",
        "name": name,
        **case.to_json(),
        "layout": profile.layout,
        "seed": seed,
        "draw_version": draw_version,
        "values": mix.describe(),
        "files": entries,
        "expected": expected,
        "replay": replay,
    }
    return FolderContent(name, files, manifest)


def _entry(fname: str, role: str, kind: str, dt: dtypes.DType, profile: Profile, tile: Any,
           data: bytes) -> dict[str, Any]:
    return {"name": fname, "role": role, "kind": kind, "dtype": dt.name,
            "shape": list(profile.file_shape(tile)), "layout": profile.layout, "bytes": len(data),
            "sha256": sha256_hex(data)}


_JSON = json.JSONEncoder(separators=(",", ":"), check_circular=False)  # a tree built here: no cycles


def dump_manifest(manifest: dict[str, Any]) -> bytes:
    """The manifest as compact one-line JSON (one C-encoder call; ``jq . ptofuzz.json`` pretty-prints it)."""
    return (_JSON.encode(manifest) + "\n").encode()


def check_writable(out_dir: Path, names: list[str], force: bool) -> None:
    """Refuse before writing anything: duplicate names, or existing folders without ``force``."""
    dupes = sorted(n for n, k in collections.Counter(names).items() if k > 1)
    if dupes:
        raise UsageError(f"two cases would share the folder {dupes[0]!r}")
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {str(out_dir)!r} is a file; pass a directory")
    if not force and os.path.isdir(out_dir):
        existing = _existing(out_dir, names)
        if existing:
            more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
            raise UsageError(f"case folder {str(out_dir / existing[0])!r}{more} already exists; "
                             "pass --force to overwrite or choose another --out")


def _existing(out_dir: Path, names: list[str]) -> list[str]:
    """The names that already exist in ``out_dir`` (dangling symlinks included), with one directory read
    rather than one lookup per case; names that differ from an entry only in letter case are asked of the file
    system itself, which may not tell them apart (macOS, Windows)."""
    try:
        entries = os.listdir(out_dir)
    except OSError:  # a directory we may write but not list
        return [n for n in names if os.path.lexists(os.path.join(out_dir, n))]
    present = set(entries)
    folded = {e.casefold() for e in entries}
    return [n for n in names if n in present
            or (n.casefold() in folded and os.path.lexists(os.path.join(out_dir, n)))]


def prepare_out(out_dir: Path) -> list[Path]:
    """Create ``--out`` (and its parents) if needed; remove what killed earlier runs left there. Returns the
    folders it created, deepest first, for :func:`unprepare_out`."""
    if not os.path.isdir(out_dir):
        created = []
        p = out_dir
        while not os.path.lexists(p) and p != p.parent:
            created.append(p)
            p = p.parent
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"cannot create --out {str(out_dir)!r}: {e.strerror}; choose another --out") from None
        return created
    sweep_stale(out_dir)
    return []


def unprepare_out(created: list[Path]) -> None:
    """Remove the folders :func:`prepare_out` created, where they are still empty (a run that failed leaves no
    empty --out behind)."""
    for p in created:
        with contextlib.suppress(OSError):
            os.rmdir(p)


# patterns matched through re's own cache, compiled when first used (most runs never look for stale entries)
_STALE = r"\.(.+)\.(tmp|old)-(\d+|r[0-9a-f]{12})"
JOURNAL = r"\.ptofuzz-run-(r[0-9a-f]{12})\.journal"


class Run:
    """One ``gen`` into an --out: a token its staging folders are named by (``.NAME.tmp-TOKEN``,
    ``.NAME.old-TOKEN``) and a journal, ``.ptofuzz-run-TOKEN.journal``, locked for the run's life (the kernel
    drops the lock when the process dies, in any PID namespace or on any machine sharing the folder). Before a
    case folder is moved into place the journal says whether it creates NAME or replaces it; before the replaced
    folders are dropped it says ``done``. A later run finds a journal whose lock it can take and recovers from
    it: a run that was not done is rolled back (what it replaced put back, what it created removed), a done one
    completed."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir, self.token = out_dir, "r" + os.urandom(6).hex()  # secrets.token_hex(6), without its imports
        self.path = os.path.join(out_dir, f".ptofuzz-run-{self.token}.journal")
        self.fd = processes.hold(self.path)
        self.noted: list[tuple[str, str]] = []  # (create|replace, NAME) as the journal says them

    def note(self, line: str) -> None:
        kind, _, name = line.partition(" ")
        if name:
            self.noted.append((kind, name))  # before the write: an interrupt between the two is undone too
        os.write(self.fd, (line + "\n").encode())

    def close(self) -> None:
        """The run is over (rolled back, or done and its replaced folders dropped): its journal goes."""
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        with contextlib.suppress(OSError):
            os.close(self.fd)


def sweep_stale(out_dir: Path) -> int:
    """Recover what runs that no longer run left (a ``gen`` killed by SIGKILL cannot clean up after itself);
    return how many staging entries it handled. A run with a journal is recovered as its journal says (see
    :class:`Run`); a staging entry without one (an older ptofuzz's, named by a pid that no longer runs): a
    ``.NAME.tmp-*`` is removed, a ``.NAME.old-*`` is put back in place of NAME (it is what the user had)."""
    try:
        names = os.listdir(out_dir)
    except OSError:
        return 0
    handled = 0
    live: set[str] = set()
    for name in names:
        m = re.fullmatch(JOURNAL, name)
        if m:
            lines = _dead_journal(os.path.join(out_dir, name))
            if lines is None:
                live.add(m.group(1))
            else:
                handled += _recover(out_dir, m.group(1), lines, names)
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(out_dir, name))
    for name in names:
        m = re.fullmatch(_STALE, name)
        if not m or not os.path.lexists(os.path.join(out_dir, name)):
            continue
        owner = m.group(3)
        if owner in live or (owner.isdigit() and processes.alive(int(owner))):
            continue
        _settle(out_dir, m.group(1), m.group(2), name)
        handled += 1
    return handled


def _dead_journal(path: str) -> list[str] | None:
    """The lines of a journal whose run has ended (its lock could be taken), or None while its run goes on."""
    try:
        fd = processes.take_if_free(path, shared=True)
    except FileNotFoundError:
        return None
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as f:
        return f.read(1 << 26).decode(errors="replace").splitlines()


def _recover(out_dir: Path, token: str, lines: list[str], names: list[str]) -> int:
    """Roll a dead run back (or complete it when its journal says ``done``); return the entries handled."""
    done = "done" in lines
    handled = 0
    for name in names:
        m = re.fullmatch(_STALE, name)
        if m and m.group(3) == token and os.path.lexists(os.path.join(out_dir, name)):
            if done and m.group(2) == "old":
                _remove(os.path.join(out_dir, name))
            else:
                _settle(out_dir, m.group(1), m.group(2), name)
            handled += 1
    if not done:
        for line in lines:
            kind, _, case = line.partition(" ")
            if kind == "create" and case and "/" not in case and not case.startswith("."):
                _remove(os.path.join(out_dir, case))  # what the run made where nothing was
    return handled


def _settle(out_dir: Path, case: str, kind: str, name: str) -> None:
    """A dead run's staging entry: a half-written ``tmp`` goes; an ``old`` (what the user had) is put back."""
    path = os.path.join(out_dir, name)
    if kind == "tmp":
        _remove(path)
        return
    final = os.path.join(out_dir, case)
    _remove(final)  # the dead run's version of it, if it got that far
    with contextlib.suppress(OSError):
        os.rename(path, final)


_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
_BY_DIR_FD = os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")


def _token(run: Run | None) -> str:
    return run.token if run is not None else str(os.getpid())


def stage(out_dir: Path, content: FolderContent, run: Run | None = None) -> str:
    """Write one case folder into a hidden temporary folder next to its final place (``out_dir`` exists, see
    :func:`prepare_out`); return its path."""
    tmp = f"{os.fspath(out_dir)}{os.sep}.{content.name}.tmp-{_token(run)}"
    target = tmp
    try:
        try:
            os.mkdir(tmp)
        except FileExistsError:  # left by a killed run of this same process id
            _rmtree(tmp)
            os.mkdir(tmp)
        folder = os.open(tmp, _DIR_FLAGS) if _BY_DIR_FD else None  # files opened in it: no path walk each
        try:
            for fname, data in (*content.files.items(), (MANIFEST, dump_manifest(content.manifest))):
                target = f"{tmp}{os.sep}{fname}"
                fd = (os.open(fname, _WRITE_FLAGS, 0o644, dir_fd=folder) if folder is not None
                      else os.open(target, _WRITE_FLAGS, 0o644))
                try:
                    written = os.write(fd, data)
                    if written < len(data):
                        view = memoryview(data)[written:]
                        while view:
                            view = view[os.write(fd, view):]
                finally:
                    os.close(fd)
        finally:
            if folder is not None:
                os.close(folder)
    except OSError as e:
        _rmtree(tmp, ignore_errors=True)
        raise UsageError(f"cannot write {target!r}: {e.strerror}; free some space or choose another --out") from None
    return tmp


def commit(out_dir: Path | str, name: str, staged: str, force: bool, run: Run | None = None) -> str:
    """Move a staged folder into place, replacing an existing entry only with ``force``; return its path.
    Within a ``run``, what it replaces is kept aside as ``.NAME.old-TOKEN`` (:func:`roll_back` puts it back,
    :func:`drop_replaced` removes it) instead of being removed at once."""
    final = os.path.join(out_dir, name)
    if os.path.lexists(final):
        if not force:
            raise UsageError(f"case folder {final!r} already exists; pass --force to overwrite")
        foreign = not_replaceable(final, os.listdir(staged))
        if foreign:
            raise UsageError(foreign)
        if run is not None:
            run.note(f"replace {name}")
            os.rename(final, _replaced(out_dir, name, run))  # folder, file or symlink alike: never followed
            os.rename(staged, final)  # cut short between the two: the run's roll_back puts the old one back
            return final
        if os.path.isdir(final) and not os.path.islink(final):
            old = _replaced(out_dir, name)
            os.rename(final, old)
            os.rename(staged, final)
            _rmtree(old)
            return final
        os.unlink(final)  # a file or a symlink: replaced, never followed
    elif run is not None:
        run.note(f"create {name}")
    os.rename(staged, final)
    return final


OUTPUTS = r"output(_[a-z]+)?\.bin"  # what a test or target writes (output.bin, output_idx.bin, ...)


def not_replaceable(final: str, layout: Iterable[str]) -> str:
    """Why ``--force`` may not replace ``final`` ('' when it may): only a case folder of files ptofuzz (or a
    system test's gen_data.py) writes is replaced: the names its ptofuzz.json lists, the files of the new case's
    layout (``layout``) and what a test writes (``output.bin``, ``output_val.bin``, ``output_idx.bin``). A user's
    own file in it, a plain file or a link of that name, is never deleted."""
    if os.path.islink(final) or not os.path.isdir(final):
        return (f"{final!r} is a {'link' if os.path.islink(final) else 'file'}, not a case folder: --force "
                "replaces only case folders; move it away or choose another --out")
    allowed = {MANIFEST, *layout}
    try:
        listed = reading.read_json(Path(final) / MANIFEST).get("files", [])
        allowed |= {f["name"] for f in listed if isinstance(f, dict) and isinstance(f.get("name"), str)}
    except (OSError, ValueError, AttributeError):
        pass  # no manifest (a gen_data.py folder) or a damaged one: the new layout's names alone
    try:
        foreign = sorted(n for n in set(os.listdir(final)) - allowed if not re.fullmatch(OUTPUTS, n))
    except OSError as e:
        return f"cannot read {final!r} ({e.strerror}); --force replaces only case folders it can read"
    if foreign:
        more = f" (and {len(foreign) - 1} more)" if len(foreign) > 1 else ""
        return (f"{final!r} holds {foreign[0]!r}{more}, which no case folder holds: --force replaces only "
                "what ptofuzz wrote; move it away or choose another --out")
    return ""


def _replaced(out_dir: Path | str, name: str, run: Run | None = None) -> str:
    return os.path.join(out_dir, f".{name}.old-{_token(run)}")


def holds_suite(out_dir: Path, suite: str) -> bool:
    """Whether ``out_dir`` holds any entry named ``<suite>.<something>`` (a folder some case could clash with)."""
    try:
        with os.scandir(out_dir) as entries:
            return any(e.name.startswith(f"{suite}.") for e in entries)
    except OSError:
        return False


def roll_back(out_dir: Path, run: Run) -> None:
    """Undo a run's commits as its journal notes them, the one an interrupt cut short included: what it created
    is removed, what it replaced put back (a folder noted as replaced whose original was not yet moved aside is
    left alone: it is still the user's); then the run's journal goes. A second Ctrl-C or TERM meanwhile does
    not stop it halfway (it finishes, then the interrupt goes on up); a KILL does, and the journal lets the next
    run finish the roll-back."""
    steps: list[Callable[[], object]] = [functools.partial(_undo, out_dir, run, kind, name)
                                         for kind, name in reversed(run.noted)]
    steps += [functools.partial(_remove, path) for path in _staging(out_dir, f".tmp-{run.token}")]
    steps.append(run.close)
    _finish(steps)


def _undo(out_dir: Path, run: Run, kind: str, name: str) -> None:
    final = os.path.join(out_dir, name)
    old = _replaced(out_dir, name, run)
    if kind == "create":
        _remove(final)
    elif os.path.lexists(old):
        _remove(final)
        with contextlib.suppress(OSError):
            os.rename(old, final)


def _finish(steps: Sequence[Callable[[], object]]) -> None:
    """Run every step (each may be run again: it is idempotent) though Ctrl-C or TERM cut some short, then raise
    the first such interrupt."""
    interrupted: KeyboardInterrupt | None = None
    for step in steps:
        for _ in range(3):  # a step cut short is run again
            try:
                step()
                break
            except KeyboardInterrupt as e:  # Ctrl-C or TERM (Terminated): finish first
                interrupted = interrupted or e
    if interrupted is not None:
        raise interrupted


def _staging(out_dir: Path, suffix: str) -> list[str]:
    """The hidden staging entries of ``out_dir`` whose names end with ``suffix``."""
    try:
        with os.scandir(out_dir) as it:
            return [e.path for e in it if e.name.startswith(".") and e.name.endswith(suffix)]
    except OSError:
        return []


def drop_replaced(out_dir: Path, run: Run) -> None:
    """Remove what this run's commits moved aside (the run succeeded; its journal says so
    first, so a kill from here on completes rather than rolls back), then the run's journal. An interrupt before
    ``done`` is written rolls the run back; one after it lets the completion finish, then goes on up."""
    try:
        run.note("done")
    except BaseException:
        roll_back(out_dir, run)
        raise
    _finish([functools.partial(_remove, path) for path in _staging(out_dir, f".old-{run.token}")] + [run.close])


def _remove(path: str) -> None:
    """Remove a folder (with what it holds) or a file or symbolic link (never followed), if there."""
    if os.path.isdir(path) and not os.path.islink(path):
        _rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            os.unlink(path)


def discard(staged: list[str]) -> None:
    for tmp in staged:
        _rmtree(tmp, ignore_errors=True)


# ---- reading ----------------------------------------------------------------------------------------------

class LoadedCase(NamedTuple):
    """A case folder read back: its instruction, case, file layout and manifest (None: a pto-isa folder; a
    NamedTuple: see :class:`ptofuzz.core.case.Tile`)."""

    path: Path
    inst: registry.Instruction
    case: Case
    profile: Profile
    manifest: dict[str, Any] | None


def is_case_folder(path: Path) -> bool:
    return path.is_dir() and (os.path.lexists(path / MANIFEST) or any(path.glob("*.bin")))


def discover(paths: list[Path]) -> list[Path]:
    """Case folders named directly, or the case folders one level below a parent folder."""
    found: list[Path] = []
    for p in paths:
        if not p.exists():
            raise UsageError(f"path {str(p)!r} does not exist")
        if is_case_folder(p):
            found.append(p)
            continue
        kids = sorted(k for k in p.iterdir() if not k.name.startswith(".") and is_case_folder(k)) \
            if p.is_dir() else []
        if not kids:
            raise UsageError(f"{str(p)!r} is not a case folder and holds none (no {MANIFEST}, no .bin files)")
        found.extend(kids)
    return found


def _check_bitmaps(m: dict[str, Any]) -> None:
    """What the schema (ptofuzz/schemas/case.json) cannot say about a manifest: each class bitmap decodes, holds
    one bit per element of its file and as many set bits as its count (ValueError)."""
    import base64  # strict decoding (binascii's own takes strict_mode from Python 3.11 on)

    sizes = {e["name"]: e["shape"][0] * e["shape"][1] for e in m.get("files", []) if "shape" in e}
    for fname, masks in m.get("expected", {}).get("classes", {}).items():
        n = sizes.get(fname)
        for cls, mask in masks.items():
            try:
                raw = base64.b64decode(mask["bitmap"], validate=True)
            except ValueError:
                raise ValueError(f"expected.classes.{fname}.{cls}.bitmap is not base64") from None
            if n is None:
                continue
            if len(raw) != (n + 7) // 8:
                raise ValueError(f"expected.classes.{fname}.{cls}.bitmap holds {len(raw) * 8} bits for {n} elements")
            if int(np.unpackbits(np.frombuffer(raw, np.uint8), count=n).sum()) != mask["count"]:
                raise ValueError(f"expected.classes.{fname}.{cls}.count does not match its bitmap")


def load(path: Path, platform: str | None) -> LoadedCase:
    """Identify a case folder: from its manifest, else from its folder name read with ``platform``'s layout."""
    mpath = path / MANIFEST
    if _regular(mpath, "regenerate the folder (ptofuzz gen ... --force)"):
        try:
            manifest = reading.read_json(mpath)
            from ptofuzz.io import validate

            validate.validate("case", manifest)  # ptofuzz/schemas/case.json: types, names, format version
            _check_bitmaps(manifest)
            case = Case.from_json(manifest)
            inst = registry.get(case.op)
            profile = inst.support(case.platform).profile
            validate_case(inst, case)
        except (ValueError, KeyError, TypeError, AttributeError) as e:  # UsageError is a ValueError
            raise CaseFolderError(f"{str(mpath)!r} is not a valid ptofuzz manifest ({e}); regenerate the folder "
                                  "(ptofuzz gen ... --force)") from None
        return LoadedCase(path, inst, case, profile, manifest)
    if platform is None:
        raise CaseFolderError(f"{str(path)!r} has no {MANIFEST}; pass --platform "
                              f"{'|'.join(p for p in platforms.names() if p != 'spec')} to read it as a "
                              "pto-isa case folder")
    platform = platforms.canonical(platform)
    suite = path.name.partition(".")[0]
    found = [(inst, sup) for inst in registry.all_instructions().values()
             if (sup := inst.platforms.get(platform)) is not None and suite in sup.profile.suites]
    # one test of several instructions (cpu's targreduceop): the instruction whose cases name the folder
    named = [(inst, sup) for inst, sup in found
             if path.name in {sup.profile.folder(a) for a, _ in sup.profile.canonical}]
    first: CaseFolderError | None = None
    for inst, sup in named or found:
        try:  # a suite several instructions share (pto-isa's cpu TROWEXPANDOPTest): the one whose name parses
            case = sup.profile.parse(path.name)
        except CaseFolderError as e:
            first = first or e
            continue
        return LoadedCase(path, inst, case, sup.profile, None)
    if first is not None:
        raise first
    suites = sorted({name for i in registry.all_instructions().values()
                     for p, s in i.platforms.items() if p == platform for name in s.profile.suites})
    raise CaseFolderError(f"folder name {path.name!r}: suite {suite!r} is no {platform} test "
                          f"(known: {', '.join(suites)})")


def validate_case(inst: registry.Instruction, case: Case) -> None:
    """A case read from a file names a known dtype, every tile role of its instruction, and valid regions that fit
    their tiles (ValueError or KeyError otherwise)."""
    dtypes.get(case.dtype)
    tiles = dict(case.tiles)
    for role in (*inst.inputs, *inst.outputs):
        if role not in tiles:
            raise KeyError(f"no {role} tile")
    for role, t in case.tiles:
        empty = t.valid_rows * t.valid_cols == 0  # an empty region may name more rows than its tile (a5 8x0 in 1x8)
        if min(t.rows, t.cols, t.valid_rows, t.valid_cols) < 0 or (not empty and (t.valid_rows > t.rows
                                                                                 or t.valid_cols > t.cols)):
            raise ValueError(f"{role} valid region {t.valid_rows}x{t.valid_cols} does not fit its tile "
                             f"{t.rows}x{t.cols}")


def _regular(path: Path, advice: str) -> bool:
    """Whether ``path`` is a regular file (False: nothing there); CaseFolderError naming it for anything else (a
    directory, a FIFO, a device, a broken or looping link), which no reader should open."""
    try:
        return reading.is_regular(path)
    except ValueError as e:
        raise CaseFolderError(f"{str(path)!r} cannot be read ({e}); {advice}") from None


def present(path: Path) -> bool:
    """Whether a case folder's optional file (an output.bin, a golden of an empty region) is there to read."""
    return _regular(path, "remove it or regenerate the folder")


MAX_FILE_BYTES = MAX_TILE_ELEMENTS * 8  # the largest tile file a case folder can hold (8-byte elements)


def unlike_manifest(path: Path, entry: dict[str, Any]) -> str:
    """How ``path`` differs from the file its manifest entry describes ('' when it is that file): its size first
    (no stray gigabyte is read), then its sha256, hashed in pieces."""
    size = path.stat().st_size
    written = entry.get("bytes")
    if isinstance(written, int) and size != written:
        return f"{size:,} bytes where ptofuzz.json says {written:,}"
    if size > MAX_FILE_BYTES:
        return f"{size:,} bytes, more than any tile file"
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for piece in iter(lambda: f.read(1 << 20), b""):
            digest.update(piece)
    return "" if digest.hexdigest() == entry.get("sha256") else "sha256 differs from ptofuzz.json"


def read_tile_file(path: Path, dt: dtypes.DType, shape: tuple[int, int], packed: bool = False) -> np.ndarray:
    """Read a raw little-endian file of ``shape`` elements, refusing a wrong size (an empty region's file may
    be absent). ``packed``: 4-bit elements two a byte, each row on its own (:mod:`ptofuzz.core.nibbles`)."""
    need = shape[0] * (-(-shape[1] // 2) if packed else shape[1] * dt.itemsize)
    if not _regular(path, "regenerate it or check the path"):
        if need == 0:
            return np.zeros(shape, dtype=dt.bits_dtype)
        raise CaseFolderError(f"{str(path)!r} is missing; the case needs it ({shape[0]}x{shape[1]} {dt.name})")
    size = path.stat().st_size
    if size != need:
        what = "truncated" if size < need else "oversized"
        raise CaseFolderError(f"{str(path)!r} is {what}: {size} bytes, expected {need} "
                              f"({shape[0]}x{shape[1]} {dt.name}{', two a byte' if packed else ''}); "
                              "regenerate it or check --platform")
    if packed:
        return nibbles.unpack(np.fromfile(path, dtype=np.uint8).reshape(shape[0], -1), shape[1])
    return np.fromfile(path, dtype=dt.bits_dtype).reshape(shape)


def read_inputs(lc: LoadedCase) -> dict[str, np.ndarray]:
    """Input bits at each tile's physical shape (compact files are the whole tile); a file that carries its
    role's elements as another type (:meth:`Profile.carrier`) gives the elements the kernel converts them to."""
    out = {}
    present = dict(lc.case.tiles)
    for fname, role in lc.profile.inputs_of(lc.case):
        if role not in present:
            continue
        tile = lc.case.tile(role)
        dt = lc.inst.dtype_of(lc.case, role)
        carrier = lc.profile.carrier(role, dt.name)
        bits = read_tile_file(lc.path / fname, carrier or dt, lc.profile.file_shape(tile),
                              lc.profile.packs((carrier or dt).name))
        if carrier is not None:  # what the kernel receives: the carrier's value converted to the element type
            from ptofuzz.oracles import carrier as scalar_carrier

            try:
                bits = scalar_carrier.decode(bits, carrier, dt)
            except scalar_carrier.CarrierError as e:
                raise CaseFolderError(f"{str(lc.path / fname)!r}: {e}") from None
        out[role] = bits
    return out
