"""Do two Python environments (two numpy versions, say) write the same case bytes? One SHA-256 per op x platform x mode.

    python ci/numpy_streams.py ENV_A ENV_B [--random 4] [--seed 1] [--draw-version N] [--ops tpartadd,tsort]

ENV_A and ENV_B are Python interpreters or virtual environments (a folder with ``bin/python``), each with ptofuzz
installed. In each, a child process calls ``ptofuzz.api.generate`` for every instruction and every platform it
supports: the canonical case list (where the platform has one) and ``--random`` seeded random cases (seed
``--seed``), and digests what each call wrote: every file of every case folder, in name order, with ``ptofuzz.json``
less the fields that name the writer rather than the data (``generator``, ``draw_version``, ``replay``). A call
that is refused (a platform with no canonical list of that instruction, say) digests its message. The two
environments run side by side; the script prints one line per op / platform / mode with both digests and exits
1 when any differs (or when one environment lacks a line the other has), 0 when every digest is the same.

Draw version 2 (ptofuzz's own stream) promises the same bytes under every numpy ptofuzz allows: run it with the
oldest and the newest (docs/reference/drawing.md has the last figures). ``--draw-version 1`` compares numpy's
PCG64 draws, which numpy promises for one build only; with an environment of an older ptofuzz, which has no
``--draw-version``, pass ``--draw-version 1`` only to compare with what that older ptofuzz drew (``--plain-a`` or
``--plain-b`` leave the option out on that side).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

CHILD = r"""
import hashlib, json, shutil, sys, tempfile
from pathlib import Path

import numpy as np

from ptofuzz import api
from ptofuzz.instructions import registry

args = json.loads(sys.argv[1])
IGNORED = ("generator", "draw_version", "replay")  # the writer, not the data


def digest(out):
    h = hashlib.sha256()
    for path in sorted(p for p in Path(out).rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.name == "ptofuzz.json":
            manifest = json.loads(data)
            for k in IGNORED:
                manifest.pop(k, None)
            data = json.dumps(manifest, sort_keys=True).encode()
        h.update(str(path.relative_to(out)).encode() + b"\0" + data + b"\0")
    return h.hexdigest()


extra = {} if args["draw_version"] is None else {"draw_version": args["draw_version"]}
wanted = set(args["ops"] or ())
print(json.dumps({"numpy": np.__version__, "python": sys.version.split()[0]}), flush=True)
for name, inst in sorted(registry.all_instructions().items()):
    if wanted and name.lower() not in wanted:
        continue
    for platform in sorted(inst.platforms):
        for mode, random in (("canonical", None), (f"random{args['random']}", args["random"])):
            out = tempfile.mkdtemp(prefix="ptofuzz-streams-")
            try:
                api.generate(name, platform, out, seed=args["seed"], random=random, keep=False, **extra)
                sha = digest(out)
            except Exception as e:  # a refusal is output too: both sides must refuse alike
                sha = "refused " + hashlib.sha256(str(e).replace(out, "OUT").encode()).hexdigest()
            finally:
                shutil.rmtree(out, ignore_errors=True)
            print(json.dumps({"op": name, "platform": platform, "mode": mode, "sha256": sha}), flush=True)
"""


def interpreter(env: str) -> str:
    """A virtual environment's python, or the interpreter itself."""
    p = Path(env)
    return str(p / "bin" / "python") if p.is_dir() else env


def run(python: str, args: dict) -> tuple[dict, dict[tuple[str, str, str], str]]:
    # from a neutral folder: a checkout in the current folder would shadow the environment's installed ptofuzz
    done = subprocess.run([python, "-c", CHILD, json.dumps(args)], capture_output=True, text=True, check=False,
                          cwd=tempfile.gettempdir())
    if done.returncode:
        raise SystemExit(f"{python}: exit {done.returncode}: {done.stderr.strip()[-2000:]}")
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return lines[0], {(d["op"], d["platform"], d["mode"]): d["sha256"] for d in lines[1:]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("env_a")
    ap.add_argument("env_b")
    ap.add_argument("--random", type=int, default=4, help="random cases per op and platform (default 4)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--draw-version", type=int, default=None, help="pass --draw-version N (default: ptofuzz's)")
    ap.add_argument("--plain-a", action="store_true", help="do not pass --draw-version to ENV_A (an older ptofuzz)")
    ap.add_argument("--plain-b", action="store_true", help="do not pass --draw-version to ENV_B (an older ptofuzz)")
    ap.add_argument("--ops", default="", help="comma-separated instructions (default: all)")
    a = ap.parse_args(argv)
    ops = [o.strip().lower() for o in a.ops.split(",") if o.strip()]
    base = {"random": a.random, "seed": a.seed, "ops": ops}
    sides = [(interpreter(a.env_a), {**base, "draw_version": None if a.plain_a else a.draw_version}),
             (interpreter(a.env_b), {**base, "draw_version": None if a.plain_b else a.draw_version})]
    with ThreadPoolExecutor(2) as pool:
        (info_a, got_a), (info_b, got_b) = pool.map(lambda s: run(*s), sides)
    print(f"A: {sides[0][0]} (python {info_a['python']}, numpy {info_a['numpy']})")
    print(f"B: {sides[1][0]} (python {info_b['python']}, numpy {info_b['numpy']})")
    differ = 0
    for key in sorted(set(got_a) | set(got_b)):
        sa, sb = got_a.get(key, "-"), got_b.get(key, "-")
        same = sa == sb
        differ += not same
        print(f"{'same' if same else 'DIFF'}  {'/'.join(key):36s} {sa}" + ("" if same else f"  B: {sb}"))
    total = len(set(got_a) | set(got_b))
    print(f"{total - differ} of {total} op x platform x mode digests identical"
          + (f"; {differ} differ" if differ else ""))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
