# Course assignment, part 2: vector addition on a NeuronCore.
# Implement vector_add_tiled; vector_add_naive is given. The timing loop at the bottom runs both
# on the device (python3 assignment.py). For examples/add: accelopt eval --entry vector_add_tiled
import time
import sys

import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
from neuronxcc.nki import baremetal

ROW_CHUNK = 128


@nki.jit
def vector_add_naive(a_vec, b_vec):
    out = nl.ndarray(a_vec.shape, dtype=a_vec.dtype, buffer=nl.hbm)
    for i in nl.affine_range(a_vec.shape[0] // ROW_CHUNK):
        for j in nl.affine_range(a_vec.shape[1]):
            a = nl.load(a_vec[i * ROW_CHUNK:(i + 1) * ROW_CHUNK, j:j + 1])
            b = nl.load(b_vec[i * ROW_CHUNK:(i + 1) * ROW_CHUNK, j:j + 1])
            nl.store(out[i * ROW_CHUNK:(i + 1) * ROW_CHUNK, j:j + 1], value=nl.add(a, b))
    return out


@nki.jit
def vector_add_tiled(a_vec, b_vec):
    # YOUR CODE HERE: whole rows per tile
    out = nl.ndarray(a_vec.shape, dtype=a_vec.dtype, buffer=nl.hbm)
    for i in nl.affine_range(a_vec.shape[0] // ROW_CHUNK):
        a = nl.load(a_vec[i * ROW_CHUNK:(i + 1) * ROW_CHUNK, :])
        b = nl.load(b_vec[i * ROW_CHUNK:(i + 1) * ROW_CHUNK, :])
        nl.store(out[i * ROW_CHUNK:(i + 1) * ROW_CHUNK, :], value=nl.add(a, b))
    return out


if __name__ == "__main__":
    a = np.random.rand(256, 512).astype(np.float32)
    b = np.random.rand(256, 512).astype(np.float32)
    for name, kern in [("naive", vector_add_naive), ("tiled", vector_add_tiled)]:
        times = []
        for _ in range(10):
            t0 = time.perf_counter()
            out = baremetal(kern)(a, b)
            times.append(time.perf_counter() - t0)
        print(f"{name}: {1000 * np.median(times):.2f} ms", file=sys.stderr)
        assert np.allclose(out, a + b)
