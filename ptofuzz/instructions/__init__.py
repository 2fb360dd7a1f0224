"""Instruction families; each module exposes ``instructions()`` and is listed in ``ptofuzz.registry.MODULES``."""
