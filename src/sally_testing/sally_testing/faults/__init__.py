"""The fault matrix: real node processes on loopback DDS, killed, fed bad input, given bad
parameters and absurd physics; see :mod:`.cases`. Run it with ``benchmarks/faults.py``."""
