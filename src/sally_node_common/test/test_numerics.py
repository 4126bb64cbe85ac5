"""OpenBLAS's kernel pinned where the CPU has AVX-512: the same lockstep figures on every such CPU."""

import json
import subprocess
import sys

import pytest

from sally_node_common.numerics import BLAS_KERNEL, VARIABLE, has_avx512, pin_blas

FLAGS = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 {extra}\n"


def cpuinfo(tmp_path, extra=""):
    path = tmp_path / "cpuinfo"
    path.write_text(FLAGS.format(extra=extra))
    return path


def test_a_cpu_with_avx512_gets_the_pinned_kernel_and_one_without_keeps_openblas_s_choice(tmp_path):
    env = {}
    pin_blas(env, cpuinfo(tmp_path, "avx512f avx512dq"))
    assert env == {VARIABLE: BLAS_KERNEL}
    env = {}
    pin_blas(env, cpuinfo(tmp_path, "avx512_bf16"))  # a flag that only starts like it
    assert env == {}
    pin_blas(env, tmp_path / "missing")
    assert env == {}


def test_a_kernel_the_environment_set_gives_way_on_a_cpu_with_avx512_and_stays_on_one_without(tmp_path):
    env = {VARIABLE: "Haswell"}  # as one machine's environment had it: the references' figures moved
    pin_blas(env, cpuinfo(tmp_path, "avx512f"))
    assert env == {VARIABLE: BLAS_KERNEL}
    env = {VARIABLE: "Haswell"}
    pin_blas(env, cpuinfo(tmp_path))
    assert env == {VARIABLE: "Haswell"}


@pytest.mark.skipif(not has_avx512(), reason="this CPU has no AVX-512: OpenBLAS keeps its own kernel")
def test_a_graph_s_process_runs_numpy_on_the_pinned_kernel():
    from sally_bringup.environment import graph_environment

    env = graph_environment(0, {**__import__("os").environ, VARIABLE: "Haswell"})
    code = "import json, numpy, threadpoolctl; print(json.dumps(threadpoolctl.threadpool_info()))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    blas = [lib for lib in json.loads(out.stdout) if lib.get("internal_api") == "openblas"]
    assert blas and all(lib["architecture"] == BLAS_KERNEL for lib in blas), blas
