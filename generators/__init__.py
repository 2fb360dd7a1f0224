"""Case and value generators over the :class:`~ptofuzz.generators.source.Source` protocol.

Imported as ``ptofuzz.generators``.
"""
