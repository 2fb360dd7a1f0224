"""JSON Schemas (draft 2020-12) of the files ptofuzz writes and reads back; see ptofuzz/validate.py."""
