"""The same numbers from the same run on every x86 CPU that can: OpenBLAS's kernels pinned.

A lockstep run is chaotic at the micrometre scale: a last-bit difference in one matrix product
grows, over a climb's thousands of IK solves and estimates, into tenths of a millimetre in a plant
(the climbs' reference reports hold positions to 0.2 mm). numpy's OpenBLAS picks its kernels by
the CPU it finds, or by ``OPENBLAS_CORETYPE``, and kernels of different vector widths round sums
differently. An AMD EPYC with AVX-512 whose environment set ``OPENBLAS_CORETYPE=Haswell`` (AVX2
kernels) put f2w_all's BR foot 0.6 mm and w2c's FR plant 0.17 mm from the reference runs of an
Intel machine, whose OpenBLAS used its SkylakeX (AVX-512) kernels; with
``OPENBLAS_CORETYPE=SkylakeX`` the same EPYC gave f2w's and f2w_all's reference figures to the last
digit (numpy's own CPU dispatch, MuJoCo and the compiled kernels gave the same bits either way).

So every process of a graph runs with :data:`BLAS_KERNEL` where the CPU has AVX-512 (the kernel
needs it), whatever the environment said: the kernel is how the numbers are computed, not a choice
of the user's. A CPU without AVX-512 keeps what it had: its lockstep runs are repeatable, but may
differ from those of AVX-512 machines in the last digits, as any two CPUs did before. The variable
is read once, when numpy loads OpenBLAS, so it must be in a process's environment when it starts:
:func:`pin_blas` sets it in the environment a graph's processes are started with, and
``scripts/env.sh`` exports it for everything the scripts start.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from pathlib import Path

BLAS_KERNEL = "SkylakeX"
"""OpenBLAS's kernel on CPUs with AVX-512 (the kernel the climbs' reference reports were made with)."""
VARIABLE = "OPENBLAS_CORETYPE"


def has_avx512(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether this CPU has AVX-512 (``avx512f`` among its flags; False where that cannot be read)."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        return False
    return any(line.startswith("flags") and "avx512f" in line.split() for line in text.splitlines())


def pin_blas(environ: MutableMapping[str, str], cpuinfo: Path = Path("/proc/cpuinfo")) -> None:
    """``OPENBLAS_CORETYPE`` in ``environ`` set to :data:`BLAS_KERNEL` where the CPU has AVX-512 (a
    process started with ``environ`` computes as the reference runs did); elsewhere left as it is."""
    if has_avx512(cpuinfo):
        environ[VARIABLE] = BLAS_KERNEL
