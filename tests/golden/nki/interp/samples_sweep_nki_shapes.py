# nki-language.md 1.7 (call shapes in the nki-samples corpus): the harness decorators and host entry points as called there.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki import benchmark, baremetal, simulate_kernel, profile
from neuronxcc.nki.typing import tensor
import neuronxcc.nki.typing as nt


@nki.jit
def k(a: nt.tensor, scale: float = 1.0, *, flag=False) -> None:
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t: tensor[128, 4] = nl.load(a)
    nl.store(out, value=nl.multiply(t, scale))
    return out


a = np.ones((128, 4), dtype=np.float32)
print(simulate_kernel(k, a, 2.0).sum())
print(nki.simulate_kernel(k, a, 2.0, flag=True).sum())
print(nki.baremetal(k)(a).sum())
print(nki.baremetal(additional_compile_opt="x", save_neff_name="f.neff", save_trace_name="t.ntff")(k)(a).sum())
print(nki.baremetal(artifacts_dir="/tmp/x", additional_compile_opt="x")(k)(a).sum())
print(baremetal(k)(a).sum())
print(nki.benchmark(warmup=2, iters=5)(k)(a).sum())
print(nki.benchmark(k, save_neff_name="x", save_trace_name="y")(a).sum())
print(benchmark(warmup=2, iters=5, save_neff_name="x", save_trace_name="y")(k)(a).sum())
print(nki.profile(working_directory="/tmp/p", save_neff_name="f", overwrite=True, save_trace_name="t", num_execs=3, profile_nth=2)(k)(a).sum())
print(profile(working_directory="/tmp/p", save_neff_name="f", save_trace_name="t", profile_nth=2)(k)(a).sum())
print(nki.jit(additional_compile_opt="--x")(k)(a).sum())
print(nki.jit(platform_target="trn2")(k)(a).sum())
