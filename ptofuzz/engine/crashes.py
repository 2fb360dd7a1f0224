"""One crash identity per disagreement signature, for crash-grouping fuzzing infrastructure.

ClusterFuzz / OSS-Fuzz (and ClusterFuzzLite) group Python crashes by the exception type and the top frames of the
stack. A standalone fuzz target that raised every disagreement from one line would be one crash, whatever the
bug. :func:`raise_disagreement` raises an exception whose type name, message and top frame are derived from the
signature, so each signature is its own crash and the same signature is always the same crash.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Callable
from typing import NoReturn


class Disagreement(AssertionError):
    """Two oracles disagree in a way that is neither documented nor allowed; subclassed per signature."""

    signature: str = ""


_TYPES: dict[str, type[Disagreement]] = {}
_RAISERS: dict[str, Callable[[str], NoReturn]] = {}


def identity(key: str) -> str:
    """A Python identifier for a signature key: op, kind, region and a hash of the whole key (stable across
    runs and machines)."""
    parts = key.split("/")
    words = [parts[0], parts[3] if len(parts) > 3 else "", parts[4] if len(parts) > 4 else ""]
    name = "_".join(re.sub(r"\W+", "_", w).strip("_") for w in words if w)
    return f"{name}_{hashlib.sha256(key.encode()).hexdigest()[:8]}"


def exception_type(key: str) -> type[Disagreement]:
    """The exception class of a signature (one per key, created once)."""
    ident = identity(key)
    cls = _TYPES.get(ident)
    if cls is None:
        cls = type(f"Disagreement_{ident}", (Disagreement,), {"signature": key, "__module__": __name__})
        _TYPES[ident] = cls
    return cls


def _raiser(key: str) -> Callable[[str], NoReturn]:
    """A function named after the signature that raises its exception: the top frame of the crash's stack."""
    ident = identity(key)
    fn = _RAISERS.get(ident)
    if fn is None:
        cls = exception_type(key)

        def template(detail: str) -> NoReturn:
            raise cls(f"oracles disagree: {key} ({detail})")

        name = f"disagree_{ident}"
        code = template.__code__.replace(co_name=name)
        if sys.version_info >= (3, 11):  # code objects have a qualified name of their own since 3.11
            code = code.replace(co_qualname=name)
        template.__code__ = code
        template.__name__ = template.__qualname__ = f"disagree_{ident}"
        fn = _RAISERS[ident] = template
    return fn


def raise_disagreement(key: str, detail: str) -> NoReturn:
    """Raise ``key``'s own exception (type ``Disagreement_<op>_<kind>_<region>_<hash>``) from its own frame."""
    _raiser(key)(detail)
