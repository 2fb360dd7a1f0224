"""Validation of the JSON files ptofuzz reads back against its published schemas (``ptofuzz/schemas/``).

``validate(kind, data)`` raises a ValueError naming the first offending field in dotted form
(``files.0.sha256: 'x' does not match ...``); callers turn it into their one-line error. The schemas say what
JSON can; what it cannot (sizes against shapes, hex lengths per dtype, bitmap lengths) is checked where the
data is used (``casefolder``, ``records``).
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

KINDS = ("case", "record", "campaign", "bundle")


@functools.cache
def _validators() -> dict[str, Any]:
    import jsonschema
    from referencing import Registry, Resource

    docs = {p.name.removesuffix(".json"): json.loads(p.read_text())
            for p in resources.files("ptofuzz.schemas").iterdir() if p.name.endswith(".json")}
    registry = Registry().with_resources((d["$id"], Resource.from_contents(d)) for d in docs.values())
    out = {}
    for kind in KINDS:
        cls = jsonschema.validators.validator_for(docs[kind])
        cls.check_schema(docs[kind])
        out[kind] = cls(docs[kind], registry=registry)
    return out


def schema(kind: str) -> dict[str, Any]:
    """The schema document of ``kind`` (case, record, campaign, bundle)."""
    return dict(_validators()[kind].schema)


def validate(kind: str, data: Any) -> None:
    """Check ``data`` against the ``kind`` schema; ValueError with the first problem's field and reason."""
    import jsonschema

    error = jsonschema.exceptions.best_match(_validators()[kind].iter_errors(data))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "the document"
        message = error.message if len(error.message) <= 160 else error.message[:157] + "..."
        raise ValueError(f"{where}: {message}")
