"""ptofuzz.core.records: a record behaves as the dataclass of the same declaration, at a fraction of the cost."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import subprocess
import sys
from typing import Any

import pytest

from ptofuzz.core.case import Case, Outcome, OutcomeKind, Tile
from ptofuzz.core.records import FrozenError, field, record, replace


def _pair(frozen: bool, eq: bool) -> tuple[Any, Any]:
    """The same declaration as a record and as a dataclass."""
    def declare(deco: Any, make_field: Any) -> Any:
        class Point:
            x: int
            y: int = 7
            tags: list[str] = make_field(default_factory=list)
            seen: int = 0

            def __post_init__(self) -> None:
                object.__setattr__(self, "seen", self.x + self.y)

        return deco(frozen=frozen, eq=eq)(Point)

    return declare(record, field), declare(dataclasses.dataclass, dataclasses.field)


@pytest.mark.parametrize("frozen", [False, True])
@pytest.mark.parametrize("eq", [False, True])
def test_a_record_builds_compares_and_prints_as_its_dataclass(frozen: bool, eq: bool) -> None:
    rec, dc = _pair(frozen, eq)
    for args, kwargs in [((1,), {}), ((1, 2), {}), ((), {"x": 3, "tags": ["a"]}), ((4,), {"y": -1, "seen": 9})]:
        a, b = rec(*args, **kwargs), dc(*args, **kwargs)
        assert (a.x, a.y, a.tags, a.seen) == (b.x, b.y, b.tags, b.seen)
        assert repr(a) == repr(b)  # both 'Point(x=.., y=.., tags=[..], seen=..)' (post_init made seen x + y)
        assert (a == rec(*args, **kwargs)) is (b == dc(*args, **kwargs)) is eq  # by value, or by identity
        assert a == a and a != rec(99)
    assert rec(1).tags is not rec(1).tags  # a factory default is made anew for each instance
    hashable = (eq and frozen) or not eq
    assert (rec.__hash__ is not None) is (dc.__hash__ is not None) is hashable
    if eq and frozen:
        a, b, c = rec(1, 2, ()), rec(1, 2, ()), rec(2, 1, ())
        assert hash(a) == hash(b) and {a, b, c} == {a, c}


@pytest.mark.parametrize("frozen", [False, True])
def test_a_frozen_record_refuses_assignment_and_a_plain_one_takes_it(frozen: bool) -> None:
    rec, _ = _pair(frozen, True)
    p = rec(1)
    if frozen:
        with pytest.raises(FrozenError, match="'x'"):
            p.x = 2
        with pytest.raises(AttributeError):
            del p.y
        assert p.x == 1
    else:
        p.x = 2
        assert p.x == 2


def test_bad_arguments_are_type_errors_naming_the_argument() -> None:
    rec, _ = _pair(True, True)
    with pytest.raises(TypeError, match="missing required argument 'x'"):
        rec()
    with pytest.raises(TypeError, match="'z'"):
        rec(1, z=3)
    with pytest.raises(TypeError, match="'x'"):
        rec(1, x=2)  # given twice
    with pytest.raises(TypeError, match="positional"):
        rec(1, 2, [], 4, 5)


def test_replace_changes_only_the_fields_named_and_runs_post_init() -> None:
    rec, _ = _pair(True, True)
    p = rec(1, 2, ["t"])
    q = replace(p, y=5)
    assert (q.x, q.y, q.tags, q.seen) == (1, 5, ["t"], 6) and (p.y, p.seen) == (2, 3)
    with pytest.raises(TypeError, match="no field 'w'"):
        replace(p, w=1)


def test_cases_and_outcomes_keep_their_dataclass_behaviour() -> None:
    t = Tile(2, 8, 2, 8)
    case = Case("TADD", "a5", "float32", (("src0", t), ("dst", t)), (("b", None), ("a", 1)))
    assert case.params == (("a", 1),)  # post_init: sorted, None dropped
    same = Case(op="TADD", platform="a5", dtype="float32", tiles=(("src0", t), ("dst", t)), params=(("a", 1),))
    assert case == same and hash(case) == hash(same) and len({case, same}) == 1
    assert case.replace(platform="cpu") == case.on("cpu") != case
    assert case.on("cpu").platform == "cpu" and case.on("a5") is case
    with pytest.raises(FrozenError):
        case.dtype = "half"  # type: ignore[misc]
    back = pickle.loads(pickle.dumps(case))
    assert back == case and "_hash" in case.__dict__ and "_hash" not in back.__dict__  # a hash is not pickled
    assert copy.deepcopy(case) == case
    assert repr(case).startswith("Case(op='TADD', platform='a5', dtype='float32', tiles=")

    out = Outcome("ok")
    assert out.kind is OutcomeKind.OK  # post_init turns the name into the member
    assert out.outputs == {} and out.outputs is not Outcome("ok").outputs
    out.reason = "changed"  # an outcome is not frozen
    assert replace(out, reason="again").reason == "again" and out.reason == "changed"
    with pytest.raises(ValueError):
        Outcome("no such kind")


def test_gen_of_any_instruction_does_not_import_dataclasses() -> None:
    code = ("import sys; from ptofuzz.engine import generate; from ptofuzz.instructions import registry; "
            "registry.all_instructions(); print('dataclasses' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
