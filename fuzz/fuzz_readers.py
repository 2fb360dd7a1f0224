#!/usr/bin/env python3
"""libFuzzer-style target: the readers of ptofuzz's JSON files, a case folder's manifest and a case record.

    python fuzz/fuzz_readers.py corpora/readers-atheris/ -max_total_time=300

The first byte of an input picks the file (even: a case folder's ``ptofuzz.json``, read with its inputs by
``casefolder.load`` and ``casefolder.read_inputs``; odd: a ``record.json``, read by ``records.read``), the rest
is the document, written into a scratch folder that also holds valid tile files for both (2x2 float32 inputs
of a TPARTMIN case, 8x16 ones named src0.bin and src1.bin next to the record). A UsageError (bad input,
reported in one line) is the expected outcome of a damaged document; any other exception is a crash.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

READERS = ("ptofuzz.io.casefolder", "ptofuzz.io.records", "ptofuzz.core.reading", "ptofuzz.core.case",
           "ptofuzz.io.validate")
RECORD_INPUT = bytes(range(256)) * 2  # 8x16 float32: src0.bin and src1.bin of the record folder


def _scratch() -> tuple[Path, Path]:
    """A case folder (valid inputs of a 2x2 TPARTMIN case, a5) and a record folder with 8x16 float32 inputs."""
    from ptofuzz import api

    root = Path(tempfile.mkdtemp(prefix="ptofuzz-readers-"))
    atexit.register(shutil.rmtree, root, True)
    api.generate("tpartmin", "a5", root / "cases", explicit={"dst": (2, 2)})
    (case,) = (root / "cases").iterdir()
    record = root / "record"
    record.mkdir()
    for name in ("src0.bin", "src1.bin"):
        (record / name).write_bytes(RECORD_INPUT)
    return case, record


def reader() -> Callable[[bytes], str]:
    """Read one fuzzer input as its file: "manifest" or "record" when it was read, "refused" for a UsageError."""
    from ptofuzz.core.errors import UsageError
    from ptofuzz.io import casefolder, records

    case, record = _scratch()

    def read(data: bytes) -> str:
        if not data:
            return "refused"
        try:
            if data[0] % 2 == 0:
                (case / casefolder.MANIFEST).write_bytes(data[1:])
                casefolder.read_inputs(casefolder.load(case, None))
                return "manifest"
            (record / records.RECORD).write_bytes(data[1:])
            records.read(record)
            return "record"
        except UsageError:
            return "refused"

    return read


def target() -> Callable[[bytes], None]:
    """The ``TestOneInput`` function (importable without atheris: the tests replay the corpus through it)."""
    read = reader()

    def test_one_input(data: bytes) -> None:
        read(data)

    return test_one_input


def main() -> None:
    import atheris

    with atheris.instrument_imports(include=list(READERS)):
        import ptofuzz.core.case
        import ptofuzz.core.reading
        import ptofuzz.io.casefolder
        import ptofuzz.io.records
        import ptofuzz.io.validate  # noqa: F401
    atheris.Setup(sys.argv, target())
    atheris.Fuzz()


if __name__ == "__main__":
    main()
