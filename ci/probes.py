"""Robustness probes: ptofuzz used as an unlucky user or CI machine would (damaged files, signals, a full disk,
two runs at once, hostile targets, a damaged simulator cache), each checked for what must never happen: data
loss, a read outside the files given, a hang, unbounded memory, an internal error (exit 3) or a traceback.

    python ci/probes.py [--only CLASS,...] [--markdown FILE]

Each probe is a bash scenario run in a fresh folder: ``setup`` (must succeed), then ``run`` (the probed command,
whose exit status is ``$RC`` for ``check``), then ``check`` (exit 0 when the outcome is the wanted one). ``$P``
runs the installed ptofuzz; ``$SECRET`` is a file outside everything the command is given, whose text must
never show in its output. Every process the probe starts carries a mark in its environment; one still running
afterwards is a leak. Full-disk probes need root (a 1 MiB tmpfs); cache probes need PTO_ISA_DIR. It prints a
Markdown table and exits 1 when any probe fails.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SMALL = "$P gen tpartmin --platform a5 --dst 2x2 --out small >/dev/null"
RUN = "$P fuzz tpartmax --runs 3000 --seed 0 --shape 8x16 --out run >/dev/null || true"
FIRST = "F=$(ls -d run/*/ | grep -v '[.]min/$' | head -1)"
CASE = 'C=$(ls -d small/*/ | head -1)'
TARGET_CP = "cp {case}/golden.bin {case}/output.bin"


@dataclasses.dataclass(frozen=True)
class Probe:
    klass: str
    name: str
    run: str
    check: str = "true"
    setup: str = "true"
    timeout: float = 120.0
    memory: int = 3 << 30  # address-space limit of the probed command (bytes)
    needs: str = ""  # "root" (a tmpfs) or "sim" (PTO_ISA_DIR)


PROBES = [
    # ---- damaged files --------------------------------------------------------------------------------------
    Probe("damaged", "record.json is junk: replay", "$P replay run", "[ $RC = 2 ]",
          f"{RUN}; {FIRST}; echo junk > $F/record.json"),
    Probe("damaged", "record.json has duplicate keys: replay", "$P replay run", "[ $RC = 2 ]",
          f"{RUN}; {FIRST}; python3 -c \"import sys; p=sys.argv[1]+'record.json'; t=open(p).read(); "
          "open(p,'w').write(t.replace('{', '{\\\"op\\\": \\\"TPARTMAX\\\", ', 1))\" $F"),
    Probe("damaged", "record.json is a link to a file outside: replay", "$P replay run", "[ $RC = 2 ]",
          f"{RUN}; {FIRST}; rm $F/record.json; ln -s $SECRET $F/record.json"),
    Probe("damaged", "record.json is junk: triage", "$P triage run", "[ $RC = 2 ]",
          f"{RUN}; {FIRST}; echo junk > $F/record.json"),
    Probe("damaged", "record.json is junk: fuzz --corpus", "$P fuzz tpartmax --runs 100 --corpus run",
          "[ $RC = 2 ]", f"{RUN}; {FIRST}; echo junk > $F/record.json"),
    Probe("damaged", "campaign.json is junk: fuzz --out (the summary is rewritten, the records kept)",
          "$P fuzz tpartmax --runs 100 --out run", "[ $RC = 0 ] && python3 -m json.tool run/campaign.json >/dev/null "
          "&& [ $(ls -d run/*/ | wc -l) -ge 3 ]", f"{RUN}; echo junk > run/campaign.json"),
    Probe("damaged", "ptofuzz.json truncated: check", "$P check small", "[ $RC = 2 ]",
          f"{SMALL}; {CASE}; head -c 40 $C/ptofuzz.json > t && mv t $C/ptofuzz.json"),
    Probe("damaged", "golden.bin truncated: check", "$P check small", "[ $RC = 1 ] || [ $RC = 2 ]",
          f"{SMALL}; {CASE}; truncate -s 3 $C/golden.bin"),
    Probe("damaged", "golden.bin of 10 GB (sparse): check under 1 GiB", "$P check small",
          "[ $RC = 1 ] || [ $RC = 2 ]", f"{SMALL}; {CASE}; truncate -s 10G $C/golden.bin", memory=1 << 30),
    Probe("damaged", "an input file missing: check", "$P check small", "[ $RC = 1 ] || [ $RC = 2 ]",
          f"{SMALL}; {CASE}; rm $C/input1.bin"),
    Probe("damaged", "a 10 GB atheris --rerun input (sparse)",
          "$P fuzz tpartmax --engine atheris --rerun big --runs 1", "[ $RC = 2 ]", "truncate -s 10G big",
          memory=1 << 30),
    # ---- overwriting what is not ours ---------------------------------------------------------------------
    Probe("overwrite", "--html onto a user's page", "$P check small --html page.html",
          "[ $RC = 2 ] && [ \"$(cat page.html)\" = '<html>my page</html>' ]",
          f"{SMALL}; echo '<html>my page</html>' > page.html"),
    Probe("overwrite", "gen --force over a case folder holding the user's notes",
          "$P gen tpartmin --platform a5 --dst 2x2 --out small --force",
          f"{CASE}; [ $RC = 2 ] && [ \"$(cat $C/notes.txt)\" = mine ]", f"{SMALL}; {CASE}; echo mine > $C/notes.txt"),
    Probe("overwrite", "asm a.s -o a.s --force (its own source)", "$P asm a.s -o a.s --force",
          "[ $RC = 2 ] && grep -q BSTOP a.s", "printf 'BSTART.SFU TSORT, FP32\\nBSTOP\\n' > a.s"),
    Probe("overwrite", "minimize --force onto a .min folder holding notes",
          f"{FIRST}; $P minimize $F --force", f"{FIRST}; [ $RC = 2 ] && [ \"$(cat ${{F%/}}.min/notes.txt)\" = mine ]",
          f"{RUN}; {FIRST}; mkdir ${{F%/}}.min; echo mine > ${{F%/}}.min/notes.txt"),
    # ---- signals -------------------------------------------------------------------------------------------
    Probe("signals", "TERM to gen --force after 1 s, then another gen: the old content",
          "$P gen tpartadd --platform a5 --random 20000 --special-rate 0.3 --force --out o >/dev/null & "
          "p=$!; sleep 1; kill -TERM $p; wait $p; RC=$?; $P gen tpartmul --platform a5 --random 1 --out o >/dev/null",
          "[ $RC = 143 ] && diff -q before <(ls -A o | grep -v TPARTMUL) && [ \"$(cat o/notes.txt)\" = mine ]",
          "$P gen tpartadd --platform a5 --random 3000 --out o >/dev/null; echo mine > o/notes.txt; ls -A o > before"),
    Probe("signals", "Ctrl-C of run --target 'sleep 1000': at once", "set -m; $P run small --target 'sleep 1000' & "
          "p=$!; sleep 2; kill -INT -$p; wait $p", "[ $RC = 130 ]", SMALL, timeout=30),
    Probe("signals", "TERM to fuzz: its summary written", "$P fuzz tpartmax --time 30 --out run2 >/dev/null & "
          "p=$!; sleep 3; kill -TERM $p; wait $p",
          "[ $RC = 143 ] && python3 -m json.tool run2/campaign.json >/dev/null",
          timeout=30),
    Probe("signals", "KILL to fuzz --jobs 2: no worker left", "$P fuzz tpartmax --time 30 --jobs 2 --out run2 "
          ">/dev/null & p=$!; sleep 3; kill -KILL $p; wait $p", "[ $RC = 137 ]", timeout=30),
    Probe("signals", "TERM to fuzz --engine atheris --jobs 2: summary kept, scratch gone",
          "$P fuzz tpartmax --engine atheris --jobs 2 --time 30 --out run2 >/dev/null & p=$!; sleep 6; "
          "kill -TERM $p; wait $p", "[ $RC = 143 ] && [ -f run2/campaign.json ] && [ -z \"$(ls $TMPDIR)\" ]",
          timeout=40),
    Probe("signals", "Ctrl-C of sim build: at once, nothing left", "set -m; $P sim build --cache-dir cache & p=$!; "
          "sleep 8; kill -INT -$p; wait $p", "[ $RC = 130 ] && [ -z \"$(ls -A cache/cpusim | grep build)\" ]",
          timeout=40, needs="sim"),
    # ---- a full disk (1 MiB) -------------------------------------------------------------------------------
    Probe("full disk", "gen onto a full disk", "$P gen tpartadd --platform a5 --random 2000 --out $FULL/o",
          "[ $RC = 2 ] && grep -q 'free some space' err && [ ! -e $FULL/o ]", needs="root"),
    Probe("full disk", "fuzz --out on a full disk", "$P fuzz tpartmax --runs 20000 --special-rate 0.3 "
          "--out $FULL/run", "[ $RC = 2 ]", "head -c 1000000 /dev/zero > $FULL/filler", needs="root"),
    Probe("full disk", "check --html onto a full disk", "$P check o --html $FULL/r.html",
          "[ $RC = 2 ] && [ ! -e $FULL/r.html ] && [ \"$(ls -A $FULL)\" = filler ]",
          "$P gen tpartadd --platform a5 --random 3000 --out o >/dev/null; head -c 1000000 /dev/zero > $FULL/filler",
          needs="root"),
    Probe("full disk", "sim build into a full cache", "$P sim build --cache-dir $FULL/cache",
          "[ $RC = 2 ] && grep -q 'no space left' err", needs="root,sim", timeout=300),
    # ---- two runs at once ----------------------------------------------------------------------------------
    Probe("concurrency", "two gen into one folder", "$P gen tpartadd --platform a5 --random 3000 --out o "
          ">/dev/null & $P gen tpartmul --platform a5 --random 3000 --out o >/dev/null; a=$?; wait $!; "
          "RC=$((a + $?))", "[ $RC = 0 ] && [ $(ls o | wc -l) = 6000 ] && [ -z \"$(ls -A o | grep '^\\.')\" ]"),
    Probe("concurrency", "two gen --force over one folder", "$P gen tpartadd --platform a5 --random 3000 --out o "
          "--force >/dev/null & $P gen tpartadd --platform a5 --random 3000 --out o --force >/dev/null; a=$?; "
          "wait $!; RC=$((a + $?))", "$P check o >/dev/null && [ -z \"$(ls -A o | grep '^\\.')\" ]",
          "$P gen tpartadd --platform a5 --random 3000 --out o >/dev/null"),
    Probe("concurrency", "two fuzz into one --out", "$P fuzz tpartmax --runs 50000 --out run >/dev/null & "
          "$P fuzz tpartmax --runs 50000 --seed 1 --out run >/dev/null; wait $!; $P replay run >/dev/null",
          "[ $RC = 0 ] || [ $RC = 1 ]"),
    Probe("concurrency", "two sim build into one cache", "$P sim build --cache-dir cache >/dev/null & "
          "$P sim build --cache-dir cache >/dev/null; a=$?; wait $!; RC=$((a + $?))",
          "[ $RC = 0 ] && [ $(ls cache/cpusim | grep -c -v probes) = 1 ]", needs="sim", timeout=400),
    # ---- hostile targets -----------------------------------------------------------------------------------
    Probe("targets", "a target printing 1.5 GB, under 1 GiB", f"$P run small --target 'head -c 1500M /dev/zero; "
          f"{TARGET_CP}'", "[ $RC = 0 ]", SMALL, memory=1 << 30),
    Probe("targets", "a target detaching with setsid", f"$P run small --timeout 20 --target 'setsid sleep 90 & "
          f"{TARGET_CP}'", "[ $RC = 0 ]", SMALL, timeout=30),
    Probe("targets", "a target leaving a background child", f"$P run small --timeout 20 --target 'sleep 300 & "
          f"{TARGET_CP}'", "[ $RC = 0 ]", SMALL, timeout=30),
    Probe("targets", "a target that hangs, --timeout 1", "$P run small --timeout 1 --target 'sleep 1000'",
          "[ $RC = 1 ] && grep -q 'timed out' out", SMALL, timeout=30),
    Probe("targets", "a target that is not there", "$P run small --target './no-such-target {case}'",
          "[ $RC = 1 ] && grep -q 'status 127' out", SMALL),
    Probe("targets", "a target writing a truncated output.bin",
          "$P run small --target 'head -c 3 {case}/golden.bin > {case}/output.bin'", "[ $RC = 1 ]", SMALL),
    Probe("targets", "fuzz --target on a two-output instruction",
          "$P fuzz tpartargmax --oracles cpu,target --runs 200 --target 'cp {case}/golden_val.bin "
          "{case}/output_val.bin; cp {case}/golden_idx.bin {case}/output_idx.bin'", "[ $RC = 0 ]"),
    # ---- a damaged simulator cache -------------------------------------------------------------------------
    Probe("cache", "the harness lost its execute bit", "$P fuzz tpartadd --oracles cpu,cpusim --runs 2000 "
          "--cache-dir cache --out f", "[ $RC = 0 ] && [ -z \"$(ls f | grep -i crash)\" ]",
          "$P sim build --cache-dir cache >/dev/null; chmod -x cache/cpusim/*/harness", needs="sim", timeout=300),
    Probe("cache", "the harness truncated", "$P fuzz tpartadd --oracles cpu,cpusim --runs 2000 --cache-dir cache "
          "--out f", "[ $RC = 0 ] && [ -z \"$(ls f | grep -i crash)\" ]",
          "$P sim build --cache-dir cache >/dev/null; truncate -s 100 cache/cpusim/*/harness", needs="sim",
          timeout=300),
    Probe("cache", "the harness echoes its input", "$P fuzz tpartadd --oracles cpu,cpusim --runs 2000 "
          "--cache-dir cache --out f", "[ $RC = 0 ] && [ -z \"$(ls f | grep -i crash)\" ]",
          "$P sim build --cache-dir cache >/dev/null; for h in cache/cpusim/*/harness; do printf '#!/bin/sh\\ncat\\n'"
          " > $h; done", needs="sim", timeout=300),
    Probe("cache", "an 8 GB stray file (sparse) in the tree's include/", "$P sim build --pto-isa tree "
          "--cache-dir cache", "[ $RC = 0 ]", "mkdir tree; cp -r $PTO_ISA_DIR/include tree/; "
          "truncate -s 8G tree/include/stray.bin", needs="sim", timeout=400, memory=2 << 30),
    Probe("cache", "the cache folder is a file", "$P sim build --cache-dir afile", "[ $RC = 2 ]", "touch afile",
          needs="sim"),
]


def _marked(mark: str) -> list[str]:
    from ptofuzz.core import processes

    return processes.carrying("PTOFUZZ_PROBE", mark)


def _limit(memory: int):  # type: ignore[no-untyped-def]
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (memory, memory))


def run_probe(probe: Probe, number: int, work: Path, full: Path | None) -> tuple[str, str, str]:
    """(exit status, first line said, verdict) of one probe."""
    folder = work / f"probe{number}"
    folder.mkdir()
    (folder / "tmp").mkdir()
    secret = work / "secret.txt"
    secret.write_text("SECRET-3141592653\n")
    ptofuzz = shutil.which("ptofuzz") or f"{sys.executable} -m ptofuzz"
    env = {**os.environ, "P": ptofuzz, "SECRET": str(secret), "TMPDIR": str(folder / "tmp"),
           "PTOFUZZ_PROBE": folder.name, "FULL": str(full or ""), "NO_COLOR": "1"}
    setup = subprocess.run(["bash", "-c", probe.setup], check=False, cwd=folder, env=env, capture_output=True,
                           text=True)
    if setup.returncode != 0:
        return "-", setup.stderr.strip()[-100:], "SETUP FAILED"
    script = f"{{ {probe.run}\n}} > out 2> err\nRC=${{RC:-$?}}\necho $RC > rc\n"
    start = time.monotonic()
    try:
        subprocess.run(["bash", "-c", script], check=False, cwd=folder, env=env, timeout=probe.timeout,
                       preexec_fn=_limit(probe.memory), start_new_session=True)
    except subprocess.TimeoutExpired:
        return "-", f"no end within {probe.timeout:g} s", "HANG"
    took = time.monotonic() - start
    rc = (folder / "rc").read_text().strip() if (folder / "rc").exists() else "?"
    out = (folder / "out").read_text(errors="replace") if (folder / "out").exists() else ""
    err = (folder / "err").read_text(errors="replace") if (folder / "err").exists() else ""
    said = (err.strip().splitlines() or out.strip().splitlines() or [""])[-1 if not err.strip() else 0][:110]
    problems = []
    if rc == "3":
        problems.append("exit 3")
    if "Traceback" in err:
        problems.append("traceback")
    if "SECRET-3141592653" in out + err:
        problems.append("read outside")
    if "MemoryError" in err:
        problems.append("memory")
    time.sleep(0.3)
    left = _marked(folder.name)
    if left:
        problems.append(f"left running: {left[0]}")
    checked = subprocess.run(["bash", "-c", probe.check], check=False, cwd=folder, env={**env, "RC": rc},
                             capture_output=True)
    if checked.returncode != 0:
        problems.append("outcome not the wanted one")
    verdict = "ok" if not problems else "FAIL: " + "; ".join(problems)
    return rc, f"{said} ({took:.1f} s)", verdict


def _tmpfs(work: Path) -> Path | None:
    full = work / "full"
    full.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(full)],
                                           check=False, capture_output=True).returncode != 0:
        return None
    return full


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma list of probe classes")
    ap.add_argument("--markdown", type=Path, help="also write the table here")
    args = ap.parse_args()
    only = {c.strip() for c in args.only.split(",") if c.strip()}
    rows = ["| class | probe | exit | what it said (time) | verdict |", "|---|---|---|---|---|"]
    failed = 0
    with tempfile.TemporaryDirectory(prefix="ptofuzz-probes-") as tmp:
        work = Path(tmp)
        full = _tmpfs(work)
        try:
            for number, probe in enumerate(PROBES):
                if only and probe.klass not in only:
                    continue
                missing = [n for n in probe.needs.split(",") if n and not (
                    full if n == "root" else os.environ.get("PTO_ISA_DIR"))]
                if missing:
                    rc, said, verdict = "-", "", f"not run (needs {', '.join(missing)})"
                else:
                    if full is not None:
                        subprocess.run(["bash", "-c", f"rm -rf {full}/* {full}/.[!.]*"], check=False)
                    rc, said, verdict = run_probe(probe, number, work, full)
                failed += verdict.startswith(("FAIL", "HANG", "SETUP"))
                row = f"| {probe.klass} | {probe.name} | {rc} | {said.replace('|', '/')} | {verdict} |"
                rows.append(row)
                print(row, flush=True)
        finally:
            if full is not None:
                subprocess.run(["umount", str(full)], check=False)
    table = "\n".join(rows) + "\n"
    if args.markdown:
        args.markdown.write_text(table)
    print(f"{len(rows) - 2} probes, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
