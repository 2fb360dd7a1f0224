#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: every fuzz/fuzz_*.py target into $OUT, each with its seed corpus
# ($OUT/<target>_seed_corpus.zip, from corpora/<target without fuzz_>-atheris/: checked-in libFuzzer inputs).
#
# In the builder image, compile_python_fuzzer (PyInstaller) packages each target. Run locally (the tests do):
#   OUT=/tmp/out SRC=/path/holding/a/ptofuzz/checkout bash .clusterfuzzlite/build.sh
# where PyInstaller is absent only the packaging step is skipped: $OUT/<target> is then a launcher that runs
# the target script with this Python.
: "${SRC:?set SRC (the folder holding the ptofuzz checkout as SRC/ptofuzz)}"
: "${OUT:?set OUT (where the fuzz targets go)}"
PROJECT="$SRC/ptofuzz"
PYTHON="${PYTHON:-python3}"
cd "$PROJECT"
mkdir -p "$OUT"

# ptofuzz itself (with numpy, ml_dtypes, ...): installed once, where it is not importable yet
"$PYTHON" -c "import ptofuzz.instructions.registry" 2>/dev/null || "$PYTHON" -m pip install .

for fuzzer in fuzz/fuzz_*.py; do
    name="$(basename "$fuzzer" .py)"
    if command -v compile_python_fuzzer >/dev/null 2>&1; then
        compile_python_fuzzer "$fuzzer"
    elif "$PYTHON" -m PyInstaller --version >/dev/null 2>&1; then
        "$PYTHON" -m PyInstaller --distpath "$OUT" --workpath "$OUT/.pyinstaller/$name" --specpath \
            "$OUT/.pyinstaller" --onefile --name "$name.pkg" --paths "$PROJECT/fuzz" "$fuzzer" >/dev/null
        printf '#!/bin/sh\n# ptofuzz fuzz target %s (PyInstaller package)\nexec "$(dirname "$0")/%s.pkg" "$@"\n' \
            "$name" "$name" > "$OUT/$name"
        chmod +x "$OUT/$name"
    else  # no PyInstaller here: the packaging step is skipped, the target runs from the checkout
        printf '#!/bin/sh\n# ptofuzz fuzz target %s (PyInstaller absent: runs the script)\nexec "%s" "%s" "$@"\n' \
            "$name" "$(command -v "$PYTHON")" "$PROJECT/$fuzzer" > "$OUT/$name"
        chmod +x "$OUT/$name"
    fi
    corpus="corpora/${name#fuzz_}-atheris"
    if [ -d "$corpus" ]; then
        "$PYTHON" - "$corpus" "$OUT/${name}_seed_corpus.zip" <<'PY'
import sys, zipfile
from pathlib import Path

src, dest = Path(sys.argv[1]), Path(sys.argv[2])
with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:  # flat, sorted: the same zip from the same inputs
    for f in sorted(p for p in src.iterdir() if p.is_file()):
        info = zipfile.ZipInfo(f.name, date_time=(1980, 1, 1, 0, 0, 0))
        z.writestr(info, f.read_bytes(), zipfile.ZIP_DEFLATED)
PY
    fi
done
