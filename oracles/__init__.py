"""Pure numpy oracles: raw element bits in, raw element bits (plus per-element classes) out.

No I/O, no randomness, no global state. Imported as ``ptofuzz.oracles``.
"""
