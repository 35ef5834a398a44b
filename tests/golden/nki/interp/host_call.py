# Kernels called from host code with numpy arrays, as the NKI tutorials' test scripts do:
# `kernel(a, b)` on a jit kernel, nki.simulate_kernel, nki.baremetal with an output argument
# written in place, and an SPMD grid launched from the host. Run as a program, so the
# `if __name__ == "__main__":` block runs (a kernel file loaded by the harness skips it).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def add_kernel(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, nl.add(nl.load(a), nl.load(b)))
    return out


@nki.jit
def split_kernel(a):
    lo = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    hi = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.store(lo, nl.minimum(t, 0.5))
    nl.store(hi, nl.maximum(t, 0.5))
    return lo, hi


def scale_into(a, out):
    nl.store(out, nl.multiply(nl.load(a), 2.0))


@nki.jit
def tile_add(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    rows = nl.arange(4)[:, None]
    cols = nl.arange(8)[None, :]
    nl.store(out[i * 4 + rows, cols], nl.load(a[i * 4 + rows, cols]) + nl.load(b[i * 4 + rows, cols]))
    return out


def main():
    np.random.seed(0)
    a = np.random.rand(8, 8).astype(np.float32)
    b = np.random.rand(8, 8).astype(np.float32)
    a0 = a.copy()
    out = add_kernel(a, b)
    print("ndarray", out.shape, out.dtype, np.allclose(out, a + b))
    out2 = nki.simulate_kernel(add_kernel, a, b)
    print("simulate_kernel", np.array_equal(out, out2))
    lo, hi = split_kernel(a)
    print("tuple", np.allclose(lo, np.minimum(a, 0.5)), np.allclose(hi, np.maximum(a, 0.5)))
    res = np.zeros((8, 8), dtype=np.float32)
    r = nki.baremetal(scale_into)(a, res)
    print("baremetal", r is None, np.allclose(res, 2 * a))
    grid = tile_add[2](a, b)
    print("grid", np.allclose(grid, a + b))
    print("inputs unchanged", np.array_equal(a, a0))


print(__name__)
if __name__ == "__main__":
    main()
