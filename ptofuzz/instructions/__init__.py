"""Instruction families; each module exposes ``instructions()``, listed in ``registry.MODULES``."""
