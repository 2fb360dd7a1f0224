"""Backends are values: built once from the command line, passed down, pickled into workers; no module of the
package holds configuration of its own.

The module-state test reads every module's source: a module-level name bound to a mutable container (or
rebound through ``global``) that any function changes is state. The only such names allowed are memo caches
(whose content is a pure function of their keys, so that no caller can configure anything through them),
listed in :data:`CACHES` with what they remember.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ptofuzz.backends import choose
from ptofuzz.backends.base import Backend, Backends, Plain
from ptofuzz.backends.bundle import BundleBackend
from ptofuzz.backends.cpusim.backend import ADAPTERS, ClangCpusimBackend, CpusimBackend
from ptofuzz.backends.cpusim.build import Settings
from ptofuzz.backends.model import ModelBackend
from ptofuzz.backends.target import TargetBackend
from ptofuzz.core.errors import UsageError
from ptofuzz.engine import campaign
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_layering import package_sources

#: module -> {name: what the cache remembers}; nothing else at module level may change after import
CACHES = {
    "ptofuzz.instructions.registry": {"_REGISTRY": "instructions built so far, by mnemonic"},
    "ptofuzz.instructions.sort_inputs": {"_STRUCTURAL": "TMRGSORT structural masks by geometry",
                                  "_PLAIN_STREAMS": "the plain value stream drawn once per dtype"},
    "ptofuzz.engine.crashes": {"_TYPES": "exception classes made per signature",
                               "_RAISERS": "raising functions made per signature"},
}
MUTATORS = {"append", "extend", "update", "setdefault", "pop", "popitem", "clear", "add", "discard", "remove",
            "insert", "__setitem__"}


def module_state(source: str) -> set[str]:
    """Module-level names that some code of the module changes (item or attribute assignment, a mutating
    method, ``del name[...]``, or a ``global`` rebinding)."""
    tree = ast.parse(source)
    top: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        top |= {t.id for t in targets if isinstance(t, ast.Name)}
    changed: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            changed |= set(node.names)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for t in targets:
                if isinstance(t, (ast.Subscript, ast.Attribute)) and isinstance(t.value, ast.Name):
                    changed.add(t.value.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and node.func.attr in MUTATORS:
            changed.add(node.func.value.id)
    return changed & top


def test_no_module_holds_state_but_its_memo_caches():
    found = {m: sorted(names) for m, src in package_sources().items() if (names := module_state(src))}
    assert found == {m: sorted(c) for m, c in CACHES.items()}


def test_the_state_scan_sees_configuration_planted_in_a_module():
    planted = "_current = None\n\ndef configure(x):\n    global _current\n    _current = x\n"
    assert module_state(planted) == {"_current"}
    assert module_state("_settings = {}\n\ndef configure(x):\n    _settings['x'] = x\n") == {"_settings"}
    assert module_state("TABLE = {'a': 1}\n\ndef look(k):\n    return TABLE[k]\n") == set()


def test_every_backend_is_a_backend():
    sim = CpusimBackend(Settings(timeout=3.0))
    for b in (ModelBackend("a5"), BundleBackend(), sim, TargetBackend("true {case}")):
        assert isinstance(b, Backend)
    assert (sim.name, sim.platform) == ("cpusim", "cpu")
    assert sim.flags() == "--sim-timeout 3"
    assert TargetBackend("run {case}", "a5", 5).flags() == "--target 'run {case}' --target-platform a5 " \
                                                          "--target-timeout 5"


def test_backends_pickle_with_their_settings_and_without_a_live_simulator():
    sim = CpusimBackend(Settings(sanitize=("address",), timeout=2.5))
    sim._live.sim = object()  # type: ignore[assignment] - stands in for a running harness
    back = pickle.loads(pickle.dumps(sim))
    assert back == sim and back.settings == sim.settings
    assert back._live.sim is None  # the worker process starts its own
    plan = campaign.make_plan("tpartadd", ["spec", "cpu", "cpusim"], sim=Settings(timeout=2.5))
    again = pickle.loads(pickle.dumps(plan))
    assert again == plan and again.oracles == ("spec", "cpu", "cpusim")
    assert again.command() == plan.command() and plan.command().endswith("--sim-timeout 2.5")


def test_a_forked_process_makes_its_own_simulator():
    sim = CpusimBackend()
    first = sim.simulator()
    assert sim.simulator() is first
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the same backend object, another process
        os.write(write, b"1" if sim.simulator() is not first else b"0")
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1"


def test_choose_builds_each_named_backend_and_refuses_what_cannot_answer():
    inst = registry.get("tpartadd")
    bs = choose.choose(inst, ["spec", "kirinX90", "bundle", "cpusim"], sim=Settings(timeout=4.0))
    assert bs.names == ("spec", "kirin9030", "bundle", "cpusim")
    assert bs.get("cpusim").settings.timeout == 4.0  # type: ignore[union-attr]
    assert bs.case_space("bundle") == "spec" and bs.case_space("cpusim") == "cpu" and bs.case_space("a5") == "a5"
    with pytest.raises(UsageError, match="--oracles target needs --target CMD"):
        choose.choose(inst, ["cpu", "target"])
    with pytest.raises(UsageError, match="TPARTARGMAX has no bundle model"):
        choose.choose(registry.get("tpartargmax"), ["cpu", "bundle"])
    with pytest.raises(UsageError, match="TSORT is not in the cpusim harness yet; cpusim runs: tpartadd"):
        choose.choose(registry.get("tsort"), ["spec", "cpusim"])
    with pytest.raises(UsageError, match="TPARTARGMAX has no spec model"):
        choose.choose(registry.get("tpartargmax"), ["spec", "cpu"])
    with pytest.raises(UsageError, match="TSORT has no a5 model"):
        choose.choose(registry.get("tsort"), ["spec", "target"], target=TargetBackend("x {case}", "a5"))
    assert choose.available(registry.get("tsort")) == ("spec", "bundle")
    assert set(ADAPTERS) == {n for n, i in registry.all_instructions().items()
                             if CpusimBackend().cannot_answer(i) is None}


def _path_with(tmp_path, monkeypatch, *names):
    """PATH holding only a folder of executable stand-ins called ``names``."""
    for name in names:
        exe = tmp_path / name
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CXX", raising=False)


def test_the_clang_build_is_a_backend_of_its_own_when_clang_is_there(tmp_path, monkeypatch):
    inst = registry.get("tpartadd")
    _path_with(tmp_path, monkeypatch, "g++", "clang++-15", "clang++-19", "clang-19")
    assert choose.available(inst) == (*inst.platforms, "bundle", "cpusim", "cpusim-clang")
    bs = choose.choose(inst, ["cpu", "cpusim", "cpusim-clang"], sim=Settings(timeout=4.0, sanitize=("address",)))
    gxx, clang = bs.get("cpusim"), bs.get("cpusim-clang")
    assert isinstance(clang, ClangCpusimBackend) and clang.name == "cpusim-clang" and clang.platform == "cpu"
    assert clang.settings.cxx == str(tmp_path / "clang++-19")  # the newest versioned one
    assert gxx.settings.cxx is None and gxx.settings.compiler() == str(tmp_path / "g++")  # type: ignore[union-attr]
    assert clang.settings.sanitize == ("address",) and clang.settings.timeout == 4.0  # the rest is shared
    assert bs.simulator() is gxx and Backends((clang,)).simulator() is clang
    plain = tmp_path / "clang++"
    plain.write_text("#!/bin/sh\n")
    plain.chmod(0o755)
    assert choose.choose(inst, ["cpusim-clang"]).get("cpusim-clang").settings.cxx == str(plain)  # type: ignore


def test_without_clang_the_clang_build_says_how_to_get_it(tmp_path, monkeypatch):
    inst = registry.get("tpartadd")
    _path_with(tmp_path, monkeypatch, "g++", "clang-19")  # a C compiler is no clang++
    assert choose.available(inst) == (*inst.platforms, "bundle", "cpusim")
    with pytest.raises(UsageError, match=r"cpusim-clang oracle needs clang\+\+ .*apt-get install clang-19"):
        choose.choose(inst, ["cpu", "cpusim-clang"])
    assert "apt-get install clang-19" in (ClangCpusimBackend().cannot_answer(inst) or "")


@pytest.mark.slow
def test_a_campaign_evaluates_through_the_backends_it_was_given():
    """A stand-in backend named like a real one is what the campaign asks, in the plan's own process and
    through pickling (what --jobs does): the plan carries its backends, no module does."""
    plan = campaign.make_plan("tpartmax", ["spec", "cpu"], seed=2, batch=8, dtype="int8")
    stand_in = Backends((ModelBackend("spec"), SameAsCpu()))
    plan = dataclasses.replace(plan, backends=stand_in)
    assert plan.oracles == ("spec", "cpusim")
    store, stats = campaign.run_random(plan, runs=200, jobs=2)
    assert stats.cases == 200
    # the stand-in is the cpu model under cpusim's name: cpu's documented spec differences, named by platform
    assert store.findings and all(s.split("/")[2] == "cpusim~spec" for s in store.findings)
    assert all(f.known for f in store.findings.values())


@dataclasses.dataclass(frozen=True)
class SameAsCpu(Plain):
    """The cpu model under the simulator's name (module level: it pickles into --jobs workers)."""

    name: str = "cpusim"
    platform: str = "cpu"

    def cannot_answer(self, inst):
        return None

    def evaluate(self, inst, case, inputs):
        return inst.evaluate(case.on("cpu"), inputs)


def test_check_recomputes_with_the_backend_it_is_given(tmp_path):
    from ptofuzz.engine.check import check
    from ptofuzz.engine.generate import generate

    generate("tpartmin", "cpu", tmp_path, random=6, seed=3, keep=False)
    verdicts = check([tmp_path], oracle=SameAsCpu())
    assert [v.verdict for v in verdicts] == ["pass"] * 6 and {v.oracle for v in verdicts} == {"cpusim"}
    a5 = tmp_path / "a5"
    generate("tpartmin", "a5", a5, random=2, seed=3, keep=False)
    assert {v.verdict for v in check([a5], oracle=SameAsCpu())} == {"error"}


def test_a_plan_crosses_a_process_boundary_with_its_backends():
    """What the atheris engine hands its child: the pickled plan, the target command and simulator settings
    included; the target backend it carries runs there as it does here."""
    plan = campaign.make_plan("tpartadd", ["cpu", "target"], seed=1, dtype="int8",
                              target=TargetBackend("cp {case}/golden.bin {case}/output.bin"))
    code = ("import pickle, sys; plan = pickle.loads(sys.stdin.buffer.read()); "
            "print(plan.oracles, plan.backends.get('target').template)")
    out = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(plan), capture_output=True, check=True)
    assert out.stdout.decode().strip() == "('cpu', 'target') cp {case}/golden.bin {case}/output.bin"
    src = seeded(1, "x")
    inst = registry.get("tpartadd")
    case = inst.random_case(src, "cpu", {"dtype": "int8"})
    inputs = inst.draw_inputs(src, case, plan.mix)
    outcomes = plan.backends.evaluate(inst, case, inputs)
    r, c = case.tile("dst").valid
    assert np.array_equal(outcomes["cpu"].outputs["dst"][:r, :c], outcomes["target"].outputs["dst"][:r, :c])


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_atheris_engine_runs_an_external_target(cli, tmp_path, jobs):
    pytest.importorskip("atheris")
    limit = ["--runs", "40"] if jobs == "1" else ["--time", "4", "--jobs", "2"]
    r = cli("fuzz", "tpartadd", "--engine", "atheris", "--oracles", "cpu", "--dtype", "int16", *limit, "--target",
            "cp {case}/golden.bin {case}/output.bin", "--target-platform", "a5", "--seed", "2",
            "--out", tmp_path / "o", "--json")
    assert r.code == 0, r
    summary = json.loads(r.out)
    assert summary["oracles"] == ["cpu", "target"] and summary["cases"] > 0 and summary["new"] == 0
    assert "--target 'cp {case}/golden.bin {case}/output.bin' --target-platform a5" in summary["command"]
    assert json.loads((tmp_path / "o" / "campaign.json").read_text())["cases"] == summary["cases"]
