# A kernel as a tutorial reader writes it after the "getting started" page: @nki.jit with mode=
# and compiler options, the tile shape passed in as a tuple argument, helper functions that
# return tiles, dtypes given as strings, nl.device_print while debugging, and a host-side test
# block under `if __name__ == "__main__":` (skipped when the harness loads the file).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


def load_tile(src, row, col, rows, cols):
    return nl.load(src[nl.ds(row * rows, rows), nl.ds(col * cols, cols)], dtype="float32")


def gelu_tanh(t):
    # 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
    inner = nl.multiply(nl.add(t, nl.multiply(nl.multiply(t, t), t, dtype="float32") * 0.044715), 0.7978845608028654)
    return nl.multiply(nl.multiply(t, 0.5), nl.add(nl.tanh(inner), 1.0))


@nki.jit(mode="simulation", additional_compile_opt="--verbose=error", show_compiler_tool_output=False)
def kernel(x, tile_shape, debug=False):
    rows, cols = tile_shape
    M, N = x.shape
    assert M % rows == 0 and N % cols == 0, f"shape {x.shape} is not a multiple of {tile_shape}"
    out = nl.ndarray((M, N), dtype="float32", buffer=nl.shared_hbm)
    for i in nl.affine_range(M // rows):
        for j in nl.affine_range(N // cols):
            t = load_tile(x, i, j, rows, cols)
            y = gelu_tanh(t)
            if debug:
                nl.device_print("gelu tile", y)
            nl.store(out[nl.ds(i * rows, rows), nl.ds(j * cols, cols)], value=y)
    return out


if __name__ == "__main__":
    a = np.random.rand(256, 512).astype(np.float32)
    b = kernel(a, (128, 256), debug=True)
    assert np.allclose(b, 0.5 * a * (1 + np.tanh(0.7978845608028654 * (a + 0.044715 * a ** 3))), atol=1e-5)
    raise SystemExit("this block runs only as a program")
