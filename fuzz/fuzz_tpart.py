#!/usr/bin/env python3
"""libFuzzer-style target: the TPART* family across each instruction's default oracles (TPARTADD, TPARTMUL,
TPARTMAX, TPARTMIN: spec, cpu, a2a3, a5; TPARTARGMAX, TPARTARGMIN: cpu, a2a3, a5).

    python fuzz/fuzz_tpart.py corpus/ -max_total_time=60

Crashes on an oracle exception or an undocumented disagreement (see ``fuzz/_harness.py``).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _harness import main

if __name__ == "__main__":
    main(["TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN", "TPARTARGMAX", "TPARTARGMIN"])
