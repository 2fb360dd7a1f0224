#!/usr/bin/env python3
"""libFuzzer-style target: the bundle decoder, assembler/disassembler and executor.

    python fuzz/fuzz_bundle.py corpora/bundle-atheris/ -max_total_time=300

Each input is a sequence of little-endian 32-bit words (the first byte picks one of a few machine states).
Decode errors, assembler errors and architectural faults are expected outcomes; anything else raising is a
crash. It also checks, for every word that decodes, that encode(decode(w)) == w and that the disassembly
assembles back to w.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def target():
    """The ``TestOneInput`` function (importable without atheris: the tests replay the corpus through it)."""
    from ptofuzz.bundle import asm, encoding, executor
    from ptofuzz.generators import bundle as gb
    from ptofuzz.generators import values
    from ptofuzz.generators.source import seeded
    from ptofuzz.instructions import registry

    machines = [gb.illegal(k, seeded(0, "fuzz-bundle", k)) for k in ("dont-care", "noop")]
    tadd = registry.get("TADD")  # FP32 sources at M#1, M#2 (16x2, valid 1x2): the elementwise operations' state
    case = tadd.explicit_case("spec", {"dtype": "float32", "dst": (1, 2)})
    machines.append(gb.bundle_for(case, tadd.draw_inputs(seeded(0, "fuzz-bundle", "tadd"), case, values.ValueMix())))
    tand = registry.get("TAND")  # S16 sources at M#1, M#2 (valid 2x8): the bitwise operations' state
    case = tand.explicit_case("spec", {"dtype": "int16", "dst": (2, 8)})
    machines.append(gb.bundle_for(case, tand.draw_inputs(seeded(0, "fuzz-bundle", "tand"), case, values.ValueMix())))
    tcvt = registry.get("TCVT")  # an FP32 source at M#1 (valid 2x8): TCVT's state
    case = tcvt.explicit_case("spec", {"dtype": "float32", "to": "float16", "dst": (2, 8)})
    machines.append(gb.bundle_for(case, tcvt.draw_inputs(seeded(0, "fuzz-bundle", "tcvt"), case, values.ValueMix())))

    def test_one_input(data: bytes) -> None:
        if not data:
            return
        base = machines[data[0] % len(machines)]
        body = data[1:]
        words = [int.from_bytes(body[k:k + 4], "little") for k in range(0, len(body) - 3, 4)][:64]
        for w in words:
            try:
                cmd = encoding.decode(w)
            except encoding.DecodeError:
                continue
            if encoding.encode(cmd) != w:
                raise AssertionError(f"encode(decode({w:#010x})) != word")
            if asm.assemble(asm.text(cmd)) != [w]:
                raise AssertionError(f"{w:#010x} does not assemble back from {asm.text(cmd)!r}")
        tiles = {k: executor.LocalTile(t.dtype, t.rows, t.cols, t.valid_rows, t.valid_cols, t.data.copy(), t.capacity,
                                       t.mask) for k, t in base.tiles.items()}
        result = executor.execute(words, tiles, {"a0": body[0] % 3 if body else 0})
        if result.fault is not None and result.fault.trap not in (4, 5):
            raise AssertionError(f"unexpected trap {result.fault}")
        try:
            asm.assemble(body.decode("latin-1"))
        except asm.AsmError:
            pass

    return test_one_input


def main() -> None:
    import atheris

    with atheris.instrument_imports(include=["ptofuzz.bundle"], exclude=["ptofuzz.bundle.__init__"]):
        import ptofuzz.bundle.asm
        import ptofuzz.bundle.encoding
        import ptofuzz.bundle.executor  # noqa: F401
    atheris.Setup(sys.argv, target())
    atheris.Fuzz()


if __name__ == "__main__":
    main()
