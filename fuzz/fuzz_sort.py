#!/usr/bin/env python3
"""libFuzzer-style target: TSORT32 and TMRGSORT across the cpu, a2a3 and a5 oracles.

    python fuzz/fuzz_sort.py corpus/ -max_total_time=60

Crashes on an oracle exception or an undocumented disagreement (see ``fuzz/_harness.py``).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _harness import main

if __name__ == "__main__":
    main(["TSORT32", "TMRGSORT"])
