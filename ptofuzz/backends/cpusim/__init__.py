"""The real pto-isa CPU simulator as an oracle (``cpusim``).

ptofuzz ships a small C++ harness (``harness.cpp``, ptofuzz's own code) that includes pto-isa's headers from a
tree named at run time (``--pto-isa DIR`` or ``PTO_ISA_DIR``); :mod:`.build` compiles and caches it,
:mod:`.worker` runs it out of process, :mod:`.session` holds this process's configured build and worker, and
:mod:`.tpart` turns TPART* cases into harness requests and its replies into outcomes.
"""
