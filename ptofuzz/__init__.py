"""ptofuzz: golden data and differential fuzzing for PTO tile instructions.

The library API lives in :mod:`ptofuzz.api`; this package root stays import-light so that
``ptofuzz --help`` does not pay for numpy.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
