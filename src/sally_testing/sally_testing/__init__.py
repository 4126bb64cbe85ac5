"""The test harness of the Sally sim stack, apart from the product: the fault matrix
(:mod:`sally_testing.faults`) that the tests and ``benchmarks/faults.py`` run against real graphs."""
