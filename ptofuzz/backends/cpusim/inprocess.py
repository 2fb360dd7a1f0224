"""The harness as a shared library inside ptofuzz's own process: the native-coverage build.

The atheris engine runs the simulator this way, so that libFuzzer's coverage counters include the simulator's
branches (the library is compiled with clang's ``-fsanitize=fuzzer-no-link``; see ``covstubs.cpp`` for what its
hooks do when no fuzzer is loaded). :class:`Library` answers :meth:`run` as
:class:`~ptofuzz.backends.cpusim.worker.Worker` does, over the same request layout, without a pipe: the caller's
arrays are the request's buffers. There is no second process to lose, so a crash or a hang of the simulator is the
fuzzing process's own: libFuzzer reports it (and keeps the input) as it does any crash or timeout of its target.

The library is loaded on first use, not before: under the engine that is inside the fuzzing loop, after libFuzzer
is loaded and made global (:func:`ptofuzz.engine.atheris_engine.expose_libfuzzer`), so that the library's
counters register with it when it is loaded.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

import numpy as np

from ptofuzz.backends.cpusim.worker import HEADER, MAGIC, HarnessError
from ptofuzz.core.failures import Failure

PLANT_CODES = {"oob": 1, "hang": 2, "deep": 3, "off": 0}  # harness.cpp's g_plant


class Library:
    """The native-coverage build's library, loaded on the first :meth:`run`."""

    def __init__(self, path: Path, plant: str | None = None) -> None:
        self.path, self.plant = path, plant
        self._lib: Any = None
        self._progress = np.zeros(1, dtype=np.int64)  # the case under way (as the worker's progress file)
        self.cases = 0
        self.restarts = 0  # never: there is no process to restart (Worker's counter, for reports)

    def _load(self) -> Any:
        if self._lib is None:
            lib = ctypes.CDLL(str(self.path))
            vp, sz = ctypes.c_void_p, ctypes.c_size_t
            lib.ptofuzz_serve.argtypes = [vp, vp, vp, sz, vp, sz, vp, sz, vp]
            lib.ptofuzz_serve.restype = ctypes.c_int
            lib.ptofuzz_plant.argtypes = [ctypes.c_int]
            lib.ptofuzz_plant.restype = ctypes.c_int
            lib.ptofuzz_covered.restype = ctypes.c_size_t
            self._lib = lib
        return self._lib

    @property
    def loaded(self) -> bool:
        return self._lib is not None

    def covered(self) -> int:
        """How many of the simulator's coverage counters have been hit since the library was loaded, when no
        fuzzer holds them (the library's own count, for measuring what campaigns reach); 0 under libFuzzer."""
        return int(self._load().ptofuzz_covered())

    def close(self) -> None:
        """Nothing to stop (a shared library stays loaded for the life of the process)."""

    def run(self, op: int, dtype: int, cols_index: int, rows: int, valid: np.ndarray, src0: np.ndarray,
            src1: np.ndarray, alias: int = 0, out: np.ndarray | None = None) -> tuple[np.ndarray, list[Failure]]:
        """:meth:`Worker.run <ptofuzz.backends.cpusim.worker.Worker.run>` in this process: the output, and no
        failures (a crash ends this process)."""
        lib = self._load()
        lib.ptofuzz_plant(PLANT_CODES[self.plant or "off"])  # the process's one library: this object's plant
        n = valid.shape[0]
        dst = np.zeros_like(src0) if out is None else out
        header = np.frombuffer(HEADER.pack(MAGIC, op, dtype, cols_index, rows, n, alias, 0), dtype=np.uint8).copy()
        v = np.ascontiguousarray(valid, dtype="<i4")
        a, b = np.ascontiguousarray(src0), np.ascontiguousarray(src1)
        d = dst if dst.flags.c_contiguous else np.ascontiguousarray(dst)
        status = lib.ptofuzz_serve(header.ctypes.data, v.ctypes.data, a.ctypes.data, a.nbytes, b.ctypes.data,
                                   b.nbytes, d.ctypes.data, d.nbytes, self._progress.ctypes.data)
        if status == 1:
            raise HarnessError(f"the harness has no kernel for this request (status {status}); rebuild with "
                               "`ptofuzz sim build`")
        if status != 0:
            raise HarnessError(f"the harness library refused a request (status {status}): its buffers do not have "
                               "the sizes its header asks for")
        if d is not dst:
            dst[...] = d
        self.cases += n
        return dst, []
