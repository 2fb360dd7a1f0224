#!/usr/bin/env python
"""Time ``ptofuzz --help`` against a bare two-command typer app's ``--help``, and check what it imports.

Every run is a fresh interpreter (``subprocess``), so the figures are start-up + import + help rendering, what a
user waits for. Compared, interleaved, ``--repeat`` times each after ``--warmup`` untimed rounds:

* ``ptofuzz``: the console script next to ``sys.executable`` (else ``python -m ptofuzz``; ``--module`` forces
  that), ``--help``;
* ``bare``: ``python bare_app.py --help`` for a temporary two-command app with ``typer.Typer()`` defaults: the
  issue's reference. With rich installed its help is rendered by rich, which ptofuzz turns off, so this is
  a loose bar;
* ``bare-plain``: the same two commands with ptofuzz's Typer settings (``add_completion=False,
  rich_markup_mode=None, pretty_exceptions_enable=False``): like for like, the strict bar;
* ``python -c pass``: interpreter start-up alone, for reference (not gated).

Target: median(ptofuzz) <= 1.3 x median(bare) and <= 1.3 x median(bare-plain) (``--bare`` picks one). A
separate subprocess imports ``ptofuzz.cli.app``, renders the help and fails the run if numpy, ml_dtypes, the
oracles, generators, instructions or ``ptofuzz.api`` are in ``sys.modules``. Exit status 1 on any failure.

Not part of the pytest suite:

    python benchmarks/bench_help.py [--repeat 20] [--importtime]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

TARGET = 1.3

BARE_APP = '''\
import typer

app = typer.Typer({settings})


@app.command()
def hello(name: str = "world") -> None:
    """Say hello."""
    print(f"hello {{name}}")


@app.command()
def bye(name: str = "world") -> None:
    """Say goodbye."""
    print(f"bye {{name}}")


if __name__ == "__main__":
    app()
'''
PTOFUZZ_SETTINGS = "add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False"

# Modules that must not be loaded to print the help.
FORBIDDEN_PREFIXES = ("numpy", "ml_dtypes", "ptofuzz.oracles", "ptofuzz.generators", "ptofuzz.instructions",
                      "ptofuzz.api", "oracles", "generators")

IMPORT_CHECK = textwrap.dedent('''\
    import json, sys
    from ptofuzz.cli.app import app
    try:
        app(["--help"], prog_name="ptofuzz")
        code = 0
    except SystemExit as e:
        code = e.code or 0
    prefixes = tuple(json.loads(sys.argv[1]))
    bad = sorted(m for m in sys.modules if any(m == p or m.startswith(p + ".") for p in prefixes))
    mods = sorted(m for m in sys.modules if m.split(".")[0] in ("ptofuzz", "rich", "typer", "click"))
    sys.stdout.flush()
    print("\\n@@" + json.dumps({"code": code, "forbidden": bad, "modules": mods}))
''')


def ptofuzz_command(force_module: bool) -> list[str]:
    bindir = Path(sys.executable).parent
    for name in ("ptofuzz", "ptofuzz.exe"):
        script = bindir / name
        if not force_module and script.is_file():
            # Run the console script with this interpreter, as its shebang would (and as bare_app.py is run).
            return [sys.executable, str(script)] if name == "ptofuzz" else [str(script)]
    return [sys.executable, "-m", "ptofuzz"]


def run_once(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    return dt


def check_output(cmd: list[str], env: dict[str, str]) -> None:
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0 or "Usage" not in out.stdout:
        raise SystemExit(f"{' '.join(cmd)} printed no help (exit {out.returncode}):\n{out.stdout}{out.stderr}")


def import_check(env: dict[str, str]) -> dict:
    proc = subprocess.run([sys.executable, "-c", IMPORT_CHECK, json.dumps(FORBIDDEN_PREFIXES)],
                          capture_output=True, text=True, env=env)
    marker = proc.stdout.rfind("\n@@")
    if proc.returncode != 0 or marker < 0:
        raise SystemExit(f"import check failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return json.loads(proc.stdout[marker + 3:])


def importtime(cmd: list[str], env: dict[str, str], top: int) -> list[tuple[int, int, str]]:
    """(self us, cumulative us, module) of the ``top`` slowest imports by cumulative time."""
    proc = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], capture_output=True, text=True, env=env)
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cum_us, name = line[len("import time:"):].split("|", 2)
        rows.append((int(self_us), int(cum_us), name.rstrip()))
    return sorted(rows, key=lambda r: -r[1])[:top]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=20, help="timed runs per command (default 20)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed rounds first (default 2)")
    ap.add_argument("--target", type=float, default=TARGET, help=f"max median ratio (default {TARGET})")
    ap.add_argument("--bare", choices=("default", "plain", "both"), default="both",
                    help="which bare app(s) gate the result (default both)")
    ap.add_argument("--module", action="store_true", help="time `python -m ptofuzz` instead of the console script")
    ap.add_argument("--importtime", action="store_true",
                    help="also print the slowest imports of `ptofuzz --help` (python -X importtime)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")

    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.setdefault("COLUMNS", "100")
    with tempfile.TemporaryDirectory(prefix="ptofuzz-bench-help-") as tmp:
        bare = Path(tmp) / "bare_app.py"
        bare.write_text(BARE_APP.format(settings=""))
        plain = Path(tmp) / "bare_app_plain.py"
        plain.write_text(BARE_APP.format(settings=PTOFUZZ_SETTINGS))
        commands = {
            "ptofuzz --help": ptofuzz_command(args.module) + ["--help"],
            "bare_app.py --help": [sys.executable, str(bare), "--help"],
            "bare_app_plain.py --help": [sys.executable, str(plain), "--help"],
            "python -c pass": [sys.executable, "-c", "pass"],
        }
        for cmd in list(commands.values())[:3]:
            check_output(cmd, env)
        for _ in range(args.warmup):
            for cmd in commands.values():
                run_once(cmd, env)
        times: dict[str, list[float]] = {k: [] for k in commands}
        keys = list(commands)
        for i in range(args.repeat):
            order = keys if i % 2 == 0 else keys[::-1]  # interleaved, alternating order
            for k in order:
                times[k].append(run_once(commands[k], env))
        imports = import_check(env)
        slow = importtime(commands["ptofuzz --help"][:-1] + ["--help"], env, 12) if args.importtime else []

    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"--help start-up, median of {args.repeat} interleaved runs (python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs)")
    print(f"  ptofuzz command: {' '.join(commands['ptofuzz --help'])}")
    head = f"{'command':<28} {'median ms':>10} {'min ms':>8} {'max ms':>8}"
    print(head)
    print("-" * len(head))
    for k in keys:
        print(f"{k:<28} {med[k] * 1e3:>10.1f} {min(times[k]) * 1e3:>8.1f} {max(times[k]) * 1e3:>8.1f}")
    print()
    failed = False
    gates = {"default": "bare_app.py --help", "plain": "bare_app_plain.py --help"}
    for which, key in gates.items():
        ratio = med["ptofuzz --help"] / med[key]
        gated = args.bare in (which, "both")
        ok = ratio <= args.target
        failed |= gated and not ok
        verdict = ("PASS" if ok else "FAIL") if gated else ("(pass)" if ok else "(fail, not gated)")
        print(f"ptofuzz / {key:<26} {ratio:5.2f}x  target {args.target:.1f}x  {verdict}")
    bad = imports["forbidden"]
    failed |= bool(bad) or imports["code"] != 0
    print(f"imports for --help: {'PASS' if not bad else 'FAIL'}: "
          + ("no numpy, ml_dtypes, oracles, generators, instructions or ptofuzz.api" if not bad
             else "loaded " + ", ".join(bad[:12]) + (" ..." if len(bad) > 12 else "")))
    ptofuzz_mods = [m for m in imports["modules"] if m.startswith("ptofuzz")]
    rich_loaded = any(m == "rich" or m.startswith("rich.") for m in imports["modules"])
    print(f"  ptofuzz modules loaded: {', '.join(ptofuzz_mods)}; rich loaded: {'yes' if rich_loaded else 'no'}")
    if slow:
        print("\nslowest imports of ptofuzz --help (python -X importtime, cumulative):")
        for self_us, cum_us, name in slow:
            print(f"  {cum_us / 1e3:8.1f} ms  (self {self_us / 1e3:6.1f} ms)  {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
