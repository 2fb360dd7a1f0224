"""``ptofuzz asm`` and ``ptofuzz disasm``: PTO bundle command words to and from their assembly.
"""

# No "from __future__ import annotations" here: typer reads every command's annotations when it builds the CLI,
# twice per command; as strings they would be parsed and evaluated each time (about a fifth of `ptofuzz --help`),
# as plain annotations they are built once, at import.
from pathlib import Path
from typing import Annotated

import typer

from ptofuzz.cli.common import JsonOpt, _errors, app
from ptofuzz.core.errors import UsageError


@app.command("asm")
def asm_(
    source: Annotated[Path, typer.Argument(help="Assembly text (.s), one command per line or ';'.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the words here (little-endian u32).")]
    = None,
    hex_out: Annotated[bool, typer.Option("--hex", help="Print the words as hex, one per line.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing --out file.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Assemble bundle commands (BSTART.SFU TSORT, FP32; B.DIM LB0=16; ...; BSTOP) into 32-bit words.

    Examples: `ptofuzz asm bundle.s -o bundle.bin`, `ptofuzz asm bundle.s --hex`, `ptofuzz asm bundle.s --json`.
    """
    with _errors():
        import struct

        from ptofuzz.bundle.asm import AsmError, assemble

        if out is None and not hex_out and not json_out:
            raise UsageError("give -o FILE.bin, --hex or --json")
        if out is not None:
            from ptofuzz.report.terminal import check_export_path

            check_export_path(out, "-o")
            if out.exists() and source.exists() and out.samefile(source):
                raise UsageError(f"-o {str(out)!r} is the assembly source itself; write the words to another file")
        try:
            text = _bounded(source, MAX_ASM_BYTES, "an assembly source").decode()
        except UnicodeDecodeError as e:
            raise UsageError(f"cannot read {str(source)!r}: not UTF-8 text ({e.reason} at byte {e.start})") from None
        try:
            words = assemble(text, str(source))
        except AsmError as e:
            raise UsageError(f"{e}") from None
        if out is not None:
            if out.exists() and not force:
                raise UsageError(f"{str(out)!r} already exists; pass --force to overwrite")
            from ptofuzz.core.atomic import write_file

            write_file(out, struct.pack(f"<{len(words)}I", *words))
        if json_out:
            import json

            typer.echo(json.dumps({"source": str(source), "out": str(out) if out is not None else None,
                                   "words": [f"{w:#010x}" for w in words]}, indent=1))
        elif hex_out:
            for w in words:
                typer.echo(f"{w:#010x}")


@app.command()
def disasm(
    source: Annotated[Path | None, typer.Argument(help="Little-endian u32 words (.bin).")] = None,
    hex_words: Annotated[list[str] | None, typer.Option("--hex", help="A word in hex (repeatable) instead of a "
                                                                          "file.")] = None,
    hex_out: Annotated[bool, typer.Option("--show-hex", help="Prefix each line with its word.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Disassemble bundle command words; an illegal word shows as `.word 0x... # illegal: <reason>`.

    Examples: `ptofuzz disasm bundle.bin`, `ptofuzz disasm --hex 0x0EC19181 --show-hex`, `... --json`.
    """
    with _errors():
        from ptofuzz.bundle.asm import disassemble

        if (source is None) == (not hex_words):
            raise UsageError("give a .bin file or --hex WORD (not both)")
        if hex_words:
            words = []
            for h in hex_words:
                try:
                    w = int(h, 16)
                except ValueError:
                    raise UsageError(f"--hex {h!r} is not a hex word (e.g. 0x0EC19181)") from None
                if not 0 <= w <= 0xFFFFFFFF:
                    raise UsageError(f"--hex {h!r} does not fit 32 bits")
                words.append(w)
        else:
            assert source is not None
            data = _bounded(source, MAX_BUNDLE_BYTES, "a bundle")
            if len(data) % 4:
                raise UsageError(f"{str(source)!r} holds {len(data)} bytes, not a whole number of 32-bit words")
            import struct

            words = list(struct.unpack(f"<{len(data) // 4}I", data))
        if json_out:  # a word and its line each
            import json

            typer.echo(json.dumps([{"word": f"{w:#010x}", "text": line} for w, line in
                                   zip(words, disassemble(words))], indent=1))
            return
        for start in range(0, len(words), 1 << 14):  # a write per chunk: an echo per line costs more than decoding
            chunk = words[start:start + (1 << 14)]
            lines = disassemble(chunk)
            if hex_out:
                lines = [f"{w:#010x}  {line}" for w, line in zip(chunk, lines)]
            typer.echo("\n".join(lines))


MAX_ASM_BYTES = 4 << 20  # an assembly source (a bundle of 1M commands is far beyond any real one)


MAX_BUNDLE_BYTES = 4 << 20  # 1,048,576 command words


def _bounded(path: Path, limit: int, what: str) -> bytes:
    """A file's bytes, reading at most ``limit`` (so /dev/zero, a huge or sparse file costs no memory; a FIFO,
    which would wait for a writer, is refused)."""
    from ptofuzz.core import reading

    try:
        return reading.read_bytes(path, limit, devices=True)
    except ValueError as e:
        raise UsageError(f"cannot read {str(path)!r} as {what}: {e}; give the right file") from None
