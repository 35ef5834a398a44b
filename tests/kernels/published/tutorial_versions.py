"""
Vector addition, three versions, as an NKI tutorial publishes it: the kernels, a benchmark
wrapper, and an argparse driver that simulates the chosen version. For examples/add (two
256x512 float32 inputs). Run unchanged: accelopt eval --entry add_v2 ...
"""
import argparse
import os
import time

import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki import benchmark, baremetal, simulate_kernel

os.environ["NEURON_CC_FLAGS"] = "--verbose=info"  # host-side setting: does nothing here


@nki.jit
def add_v1(a_input, b_input):
    """One partition tile of rows at a time, nl.add."""
    out = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    rows, cols = a_input.shape
    for r in nl.affine_range(rows // nl.tile_size.pmax):
        i_p = r * nl.tile_size.pmax + nl.arange(nl.tile_size.pmax)[:, None]
        i_f = nl.arange(cols)[None, :]
        a_tile = nl.load(a_input[i_p, i_f])
        b_tile = nl.load(b_input[i_p, i_f])
        nl.store(out[i_p, i_f], value=nl.add(a_tile, b_tile))
    return out


@nki.jit
def add_v2(a_input, b_input):
    """Row tiles by slices, the Vector Engine's tensor_tensor."""
    out = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    P = nl.tile_size.pmax
    for r in nl.affine_range(a_input.shape[0] // P):
        a_tile = nl.load(a_input[r * P:(r + 1) * P, :])
        b_tile = nl.load(b_input[r * P:(r + 1) * P, :])
        nl.store(out[r * P:(r + 1) * P, :], value=nisa.tensor_tensor(a_tile, b_tile, op=nl.add))
    return out


@nki.jit
def add_v3(a_input, b_input):
    """Row tiles and two column blocks of 256."""
    out = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    P, F = 128, 256
    for r in nl.affine_range(a_input.shape[0] // P):
        for c in nl.affine_range(a_input.shape[1] // F):
            a_tile = nl.load(a_input[r * P:(r + 1) * P, c * F:(c + 1) * F])
            b_tile = nl.load(b_input[r * P:(r + 1) * P, c * F:(c + 1) * F])
            nl.store(out[r * P:(r + 1) * P, c * F:(c + 1) * F], value=a_tile + b_tile)
    return out


@benchmark(warmup=5, iters=20, save_neff_name="file.neff")
def bench_v3(a_input, b_input):
    return add_v3(a_input, b_input)


def parse_args():
    parser = argparse.ArgumentParser(description="vector add tutorial")
    parser.add_argument("--version", choices=["v1", "v2", "v3"], default="v3")
    parser.add_argument("--rows", type=int, default=256)
    return parser.parse_args()


if __name__ == "__main__":
    args = parse_args()
    a = np.random.rand(args.rows, 512).astype(np.float32)
    b = np.random.rand(args.rows, 512).astype(np.float32)
    kernels = {"v1": add_v1, "v2": add_v2, "v3": add_v3}
    start = time.time()
    out = nki.simulate_kernel(kernels[args.version], a, b)
    print(f"{args.version}: {time.time() - start:.3f}s, match: {np.allclose(out, a + b)}")
    bench_v3(a, b)
    print(bench_v3.benchmark_result.nc_latency.get_latency_percentile(50))
