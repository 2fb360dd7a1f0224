"""ptofuzz.core.digest: the built-in SHA-256 and hashlib's give the same digest, on either side of the size that
picks one, and gen's manifests carry it."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest

from ptofuzz.core import digest


@pytest.mark.parametrize("size", [0, 1, 55, 56, 64, 1000, digest.OPENSSL_FROM - 1, digest.OPENSSL_FROM,
                                  digest.OPENSSL_FROM + 1])
def test_the_digest_is_sha256_whichever_implementation_runs(size):
    data = bytes((i * 7 + size) & 0xFF for i in range(size))
    assert digest.sha256_hex(data) == hashlib.sha256(data).hexdigest()
    if digest._BUILTIN is not None:  # the built-in one, asked directly, agrees as well
        assert digest._BUILTIN(data).hexdigest() == hashlib.sha256(data).hexdigest()


def test_known_vectors():
    assert digest.sha256_hex(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert digest.sha256_hex(b"abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_a_canonical_gen_writes_sha256_of_each_file_without_loading_openssl(tmp_path):
    code = ("import sys; from ptofuzz.engine import generate\n"
            "generate.generate('tsort32', 'a5', sys.argv[1])\n"
            "print('hashlib' in sys.modules, '_hashlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == (["True", "True"] if digest._BUILTIN is None else ["False", "False"])
    folders = list(tmp_path.iterdir())
    assert folders
    for folder in folders:
        files = json.loads((folder / "ptofuzz.json").read_text())["files"]
        assert files and all(f["sha256"] == hashlib.sha256((folder / f["name"]).read_bytes()).hexdigest()
                             for f in files)
