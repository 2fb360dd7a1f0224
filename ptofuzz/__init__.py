"""ptofuzz: golden data and differential fuzzing for PTO tile instructions.

The library API lives in :mod:`ptofuzz.api`; this package root stays import-light so that
``ptofuzz --help`` does not pay for numpy.
"""

__version__ = "0.1.0"
# the upstream versions ptofuzz's models and layouts follow (recorded in every campaign.json)
MODELS = {"pto-isa": "3186c381", "pto-spec": "0.58.3"}
__all__ = ["MODELS", "__version__"]
