"""PTO bundles: command-word encodings, the assembly text form and a spec-level executor (pto-spec 0.58.3)."""
