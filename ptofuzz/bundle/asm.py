"""The assembly text of bundle command words: :func:`assemble` and :func:`disassemble`.

One command per statement; statements are separated by ``;`` or new lines, ``#`` and ``//`` start comments.
The canonical spellings (what :func:`disassemble` prints, and :func:`assemble` reads back to the same words)::

    BSTART.SFU TSORT, FP32              # or BSTART.VEC for VEC operations; BSTART.TEPL 3, 12, FP32 also reads
    B.DIM zero, 16, ->LB0               # also: B.DIM LB0=16
    B.IOR a0                            # rs0[, rs1[, rs2]][, ->rd]
    B.IOT M#1, mask=1111, ->T<SizeCode 1>
    B.IOT mask=1111, <last>, ->U<SizeCode 1>
    B.IOT T#1, U#2, mask=1000, <last>   # sources only (dontcare=N keeps ignored bits 8:7)
    B.IOS S#5, mask=1111, ->S<SizeCode 2>
    B.DATR cmode=EQ, pad=Zero, sat=0, canon=0, dtype=NONE, rmode=DEFAULT, layout=NORM
    BSTOP
    BSTART.STD.COND simm17=-12          # every other form of the 0.58.3 catalog: NAME field=value, ...
    B.CATR dr=0, trap=1, far=0, atom=0, aq=1, rl=0

Tiles are written ``T#1``..``N#16`` (hands T, U, M, N) or as the raw 6-bit index. Errors name the line, the
column and the offending token.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ptofuzz.bundle import catalog
from ptofuzz.bundle import encoding as enc
from ptofuzz.bundle.encoding import Command


class AsmError(ValueError):
    def __init__(self, message: str, line: int, col: int, token: str, source: str = "") -> None:
        where = f"{source}:" if source else ""
        super().__init__(f"{where}{line}:{col}: {message} (at {token!r})")
        self.line, self.col, self.token = line, col, token


# ---- disassembly ------------------------------------------------------------------------------------------------

def _tile(index: int) -> str:
    return enc.tile_name(index)


def _mask(pemode: int) -> str:
    return f"mask={enc.PE_MASKS[pemode]}"


def text(cmd: Command) -> str:
    """The canonical text of one command."""
    f = cmd.fields
    if not cmd.executed:  # a catalog form the executor does not run: NAME field=value, ...
        return " ".join((cmd.form, ", ".join(f"{k}={v}" for k, v in f.items()))).rstrip()
    if cmd.form == "BSTOP":
        return "BSTOP"
    if cmd.form == "BSTART.TEPL":
        op = enc.SELECTORS[f["selector"]]
        return f"BSTART.{enc.ENGINE[op]} {op}, {enc.DATATYPES[f['datatype']]}"
    if cmd.form == "B.DIM":
        return f"B.DIM {enc.GPRS[f['rs']]}, {f['imm']}, ->LB{f['lb']}"
    if cmd.form == "B.IOR":
        regs = [f["rs0"], f["rs1"], f["rs2"]]
        while len(regs) > 1 and regs[-1] == 0:
            regs.pop()
        out = "B.IOR " + ", ".join(enc.GPRS[r] for r in regs)
        return out + (f", ->{enc.GPRS[f['rd']]}" if f["rd"] else "")
    if cmd.form == "B.IOS":
        out = f"B.IOS S#{f['tid']}, {_mask(f['pemode'])}"
        return out + (f", ->S<SizeCode {f['size']}>" if f["size"] else "")
    if cmd.form == "B.DATR":
        return (f"B.DATR cmode={enc.CMODES[f['cmode']]}, pad={enc.PADS[f['pad']]}, sat={f['sat']}, "
                f"canon={f['canon']}, dtype={enc.DATATYPES[f['datatype']]}, rmode={enc.RMODES[f['rmode']]}, "
                f"layout={enc.LAYOUTS[f['layout']]}")
    parts = []  # B.IOT
    if "src0" in f:
        parts.append(_tile(f["src0"]))
    if "src1" in f:
        parts.append(_tile(f["src1"]))
    parts.append(_mask(f["pemode"]))
    if f["last"]:
        parts.append("<last>")
    if "dst" in f:
        parts.append(f"->{enc.HANDS[f['dst']]}<SizeCode {f['size']}>")
    if cmd.dont_care:
        parts.append(f"dontcare={cmd.dont_care >> 7}")
    return "B.IOT " + ", ".join(parts)


def disassemble(words: Iterable[int]) -> list[str]:
    """One line per word: its canonical text, or ``.word 0x... # illegal: <reason>``."""
    out = []
    for w in words:
        try:
            out.append(text(enc.decode(w)))
        except enc.DecodeError as e:
            out.append(f".word {w:#010x}  # illegal: {e}")
    return out


# ---- assembly ---------------------------------------------------------------------------------------------------



class _Stmt:
    def __init__(self, line: int, col: int, mnemonic: str, ops: list[tuple[int, str]], source: str) -> None:
        self.line, self.col, self.mnemonic, self.ops, self.source = line, col, mnemonic, ops, source

    def error(self, message: str, op: tuple[int, str] | None = None) -> AsmError:
        col, tok = op if op is not None else (self.col, self.mnemonic)
        return AsmError(message, self.line, col, tok, self.source)


def _statements(src: str, source: str) -> list[_Stmt]:
    out = []
    for n, raw in enumerate(src.splitlines(), 1):
        line = re.split(r"//|#(?!\d)", raw, maxsplit=1)[0]  # "#" before a digit is a tile (M#1)
        start = 0
        for part in line.split(";"):
            body = part.strip()
            if body:
                col = start + part.index(body) + 1
                m = re.match(r"(\S+)\s*(.*)$", body)
                assert m
                mnem, rest = m.group(1), m.group(2)
                rest_col = col + m.start(2)
                ops = []
                if rest.strip():
                    offset = 0
                    for piece in rest.split(","):
                        tok = piece.strip()
                        where = rest_col + offset + (piece.index(tok) if tok else 0)
                        if not tok:
                            raise AsmError("empty operand", n, where, ",", source)
                        ops.append((where, tok))
                        offset += len(piece) + 1
                out.append(_Stmt(n, col, mnem, ops, source))
            start += len(part) + 1
    return out


def _gpr(st: _Stmt, op: tuple[int, str]) -> int:
    name = op[1].lower()
    if name in enc.GPR_CODES:
        return enc.GPR_CODES[name]
    raise st.error(f"unknown register (use {', '.join(enc.GPRS[:4])}, ..., a7, ra, s0..s8, x0..x3)", op)


def _int(st: _Stmt, op: tuple[int, str], lo: int, hi: int, what: str) -> int:
    try:
        v = int(op[1], 0)
    except ValueError:
        raise st.error(f"{what} must be a number", op) from None
    if not lo <= v <= hi:
        raise st.error(f"{what} {v} is outside {lo}..{hi}", op)
    return v


def _tile_index(st: _Stmt, op: tuple[int, str]) -> int:
    m = re.fullmatch(r"([TUMN])#(\d+)", op[1].upper())
    if m:
        num = int(m.group(2))
        if not 1 <= num <= 16:
            raise st.error("tile number must be 1..16 (T#1..T#16)", op)
        return enc.HANDS.index(m.group(1)) * 16 + num - 1
    return _int(st, op, 0, 63, "tile index")


def _kv(st: _Stmt, op: tuple[int, str]) -> tuple[str, str]:
    if "=" not in op[1]:
        raise st.error("expected key=value", op)
    k, v = op[1].split("=", 1)
    return k.strip().lower(), v.strip()


def _lookup(st: _Stmt, op: tuple[int, str], value: str, table: dict[str, int] | tuple[str, ...], what: str) -> int:
    names = {n.upper(): k for k, n in enumerate(table)} if isinstance(table, tuple) else \
        {n.upper(): k for n, k in table.items()}
    if value.upper() in names:
        return names[value.upper()]
    try:
        return int(value, 0)
    except ValueError:
        more = ", ..." if len(names) > 12 else ""
        raise st.error(f"unknown {what} (use one of: {', '.join(list(names)[:12])}{more})", op) from None


def _bstart_dtype(st: _Stmt, op: tuple[int, str]) -> int:
    dt = _lookup(st, op, op[1], enc.DATATYPE_CODES, "DataType")
    if dt not in enc.BSTART_DATATYPES:
        raise st.error(f"DataType {dt} is {'DTYPE_NONE' if dt == 31 else 'reserved'} for BSTART", op)
    return dt


def _once(st: _Stmt, seen: set[str], key: str, op: tuple[int, str]) -> None:
    if key in seen:
        raise st.error(f"{key} given twice", op)
    seen.add(key)


def _mask_value(st: _Stmt, op: tuple[int, str]) -> int:
    k, v = _kv(st, op)
    if k != "mask" or v not in enc.PEMODE_OF_MASK:
        raise st.error(f"expected mask=<one of {', '.join(enc.PE_MASKS)}>", op)
    return enc.PEMODE_OF_MASK[v]


_DEST = re.compile(r"->\s*([TUMNS])\s*<\s*SizeCode\s+(\d+)\s*>", re.IGNORECASE)


def _command(st: _Stmt) -> Command:
    m = st.mnemonic.upper()
    ops = st.ops
    if m in catalog.BY_NAME:
        return _catalog_command(st, catalog.BY_NAME[m])
    if m == "BSTOP":
        if ops:
            raise st.error("BSTOP takes no operands", ops[0])
        return Command("BSTOP", {})
    if m in ("BSTART.SFU", "BSTART.VEC"):
        if len(ops) != 2:
            raise st.error(f"{m} takes <operation>, <DataType>")
        name = ops[0][1].upper()
        if name not in enc.SELECTOR_OF:
            raise st.error("unknown operation (TSORT, TMRGSORT, TPARTADD, TADD, ...)", ops[0])
        if enc.ENGINE[name] != m.split(".")[1]:
            raise st.error(f"{name} runs on the {enc.ENGINE[name]}: write BSTART.{enc.ENGINE[name]}", ops[0])
        dt = _bstart_dtype(st, ops[1])
        return Command("BSTART.TEPL", {"datatype": dt, "selector": enc.SELECTOR_OF[name]})
    if m == "BSTART.TEPL":
        if len(ops) != 3:
            raise st.error("BSTART.TEPL takes <Mode>, <Function>, <DataType>")
        mode = _int(st, ops[0], 0, 3, "Mode")
        fn = _int(st, ops[1], 0, 31, "Function")
        if mode << 5 | fn not in enc.SELECTORS:
            raise st.error(f"Mode {mode}, Function {fn} (selector {mode << 5 | fn:#04x}) is a reserved hole", ops[1])
        dt = _bstart_dtype(st, ops[2])
        return Command("BSTART.TEPL", {"datatype": dt, "selector": mode << 5 | fn})
    if m == "B.DIM":
        if len(ops) == 1 and re.fullmatch(r"LB\d+\s*=.*", ops[0][1], re.IGNORECASE):
            k, v = ops[0][1].split("=", 1)
            lb = _int(st, (ops[0][0], k.strip()[2:]), 0, 2, "loop bound")
            vcol = ops[0][0] + ops[0][1].index("=") + 1 + (len(v) - len(v.lstrip()))
            return Command("B.DIM", {"lb": lb, "rs": 0, "imm": _int(st, (vcol, v.strip()), 0, (1 << 17) - 1,
                                                                     "immediate")})
        if len(ops) != 3 or not re.fullmatch(r"->\s*LB\d", ops[2][1], re.IGNORECASE):
            raise st.error("B.DIM takes <reg>, <imm17>, ->LB0|LB1|LB2 (or LB0=<imm>)")
        lb = _int(st, (ops[2][0], ops[2][1].split("LB")[-1].split("lb")[-1]), 0, 2, "loop bound")
        return Command("B.DIM", {"lb": lb, "rs": _gpr(st, ops[0]), "imm": _int(st, ops[1], 0, (1 << 17) - 1,
                                                                              "immediate")})
    if m == "B.IOR":
        regs: list[int] = []
        rd, seen = 0, set[str]()
        for op in ops:
            if op[1].startswith("->"):
                _once(st, seen, "->rd", op)
                rd = _gpr(st, (op[0] + 2, op[1][2:].strip()))
            else:
                regs.append(_gpr(st, op))
        if not 1 <= len(regs) <= 3:
            raise st.error("B.IOR takes 1 to 3 source registers and an optional ->rd")
        regs += [0] * (3 - len(regs))
        return Command("B.IOR", {"rd": rd, "rs0": regs[0], "rs1": regs[1], "rs2": regs[2]})
    if m == "B.IOS":
        if len(ops) not in (2, 3):
            raise st.error("B.IOS takes S#<tid>, mask=<mask>[, ->S<SizeCode n>]")
        tm = re.fullmatch(r"S#(\d+)", ops[0][1], re.IGNORECASE)
        if not tm or not 0 <= int(tm.group(1)) <= 255:
            raise st.error("expected a Shared tile S#0..S#255", ops[0])
        size = 0
        if len(ops) == 3:
            dm = _DEST.fullmatch(ops[2][1])
            if not dm or dm.group(1).upper() != "S":
                raise st.error("expected ->S<SizeCode n>", ops[2])
            size = _int(st, (ops[2][0], dm.group(2)), 1, 12, "SizeCode")
        return Command("B.IOS", {"tid": int(tm.group(1)), "size": size, "pemode": _mask_value(st, ops[1])})
    if m == "B.DATR":
        defaults = {"cmode": 0, "pad": 0, "sat": 0, "canon": 0, "datatype": 31, "rmode": 0, "layout": 0}
        tables: dict[str, dict[str, int] | tuple[str, ...]] = {
            "cmode": enc.CMODES, "pad": enc.PADS, "rmode": enc.RMODES, "layout": enc.LAYOUT_CODES,
            "dtype": enc.DATATYPE_CODES}
        legal = {"cmode": set(range(len(enc.CMODES))), "pad": set(range(4)), "rmode": set(range(8)),
                 "layout": set(enc.LAYOUTS), "dtype": set(enc.DATATYPES)}
        seen = set()
        for op in ops:
            k, v = _kv(st, op)
            if k in ("sat", "canon"):
                _once(st, seen, k, op)
                defaults[k] = _int(st, (op[0], v), 0, 1, k)
            elif k in tables:
                _once(st, seen, k, op)
                value = _lookup(st, op, v, tables[k], k)
                if value not in legal[k]:
                    raise st.error(f"{k} {value} is reserved or unassigned", op)
                defaults["datatype" if k == "dtype" else k] = value
            else:
                raise st.error("unknown B.DATR field (cmode, pad, sat, canon, dtype, rmode, layout)", op)
        return Command("B.DATR", defaults)
    if m == "B.IOT":
        srcs, pemode, last, dest, dc = [], None, 0, None, 0
        seen = set()
        for op in ops:
            t = op[1]
            if t.lower().startswith("mask="):
                _once(st, seen, "mask=", op)
                pemode = _mask_value(st, op)
            elif t.lower() == "<last>":
                _once(st, seen, "<last>", op)
                last = 1
            elif t.startswith("->"):
                _once(st, seen, "a destination", op)
                dm = _DEST.fullmatch(t)
                if not dm or dm.group(1).upper() == "S":
                    raise st.error("expected ->T|U|M|N<SizeCode n>", op)
                dest = (enc.HANDS.index(dm.group(1).upper()), _int(st, (op[0], dm.group(2)), 1, 10, "SizeCode"))
            elif t.lower().startswith("dontcare="):
                _once(st, seen, "dontcare=", op)
                dc = _int(st, (op[0], t.split("=", 1)[1]), 0, 3, "dontcare") << 7
            else:
                if dest is not None or pemode is not None:
                    raise st.error("sources come first", op)
                srcs.append(_tile_index(st, op))
        if pemode is None:
            raise st.error("B.IOT needs mask=<PE mask>")
        if len(srcs) > 2:
            raise st.error("B.IOT takes at most two sources")
        if dc and (dest is not None or not srcs):
            raise st.error("dontcare= exists only on source-only bindings")
        fields: dict[str, int] = {"last": last, "pemode": pemode}
        if srcs:
            fields["src0"] = srcs[0]
        if len(srcs) == 2:
            fields["src1"] = srcs[1]
        if dest is not None:
            fields["dst"], fields["size"] = dest
        form = {(2, True): "B.IOT.SSD", (2, False): "B.IOT.SS", (1, True): "B.IOT.SD", (1, False): "B.IOT.S",
                (0, True): "B.IOT.D"}.get((len(srcs), dest is not None))
        if form is None:
            raise st.error("B.IOT binds a source, a destination or both")
        return Command(form, fields, dc)
    raise st.error("unknown command (BSTART.SFU/VEC/TEPL, B.DIM, B.IOR, B.IOT, B.IOS, B.DATR, BSTOP, or another "
                   "form of the 0.58.3 catalog written NAME field=value, ...)")


def _catalog_command(st: _Stmt, form: catalog.CatalogForm) -> Command:
    """``NAME field=value, ...`` with every field of the form once."""
    values: dict[str, int] = {}
    names = [f.name for f in form.fields]
    for op in st.ops:
        key, raw = _kv(st, op)
        if key not in names:
            raise st.error(f"{form.name} has no field {key!r} (its fields: {', '.join(names) or 'none'})", op)
        if key in values:
            raise st.error(f"{key}= given twice", op)
        try:
            values[key] = int(raw, 0)
        except ValueError:
            raise st.error(f"{key} must be a number", op) from None
    missing = [n for n in names if n not in values]
    if missing:
        raise st.error(f"{form.name} needs {', '.join(f'{n}=' for n in missing)}")
    return Command(form.name, values)


def assemble(src: str, source: str = "") -> list[int]:
    """The words of an assembly text; :class:`AsmError` at the first bad token."""
    words = []
    for st in _statements(src, source):
        cmd = _command(st)
        try:
            words.append(enc.encode(cmd))
        except (enc.DecodeError, ValueError) as e:
            raise st.error(str(e)) from None
    return words
