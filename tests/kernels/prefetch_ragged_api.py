import nki
import nki.language as nl
import nki.isa as nisa


# The newer API's pipeline over ragged row tiles: two buffers in a list, the next tile's rows
# (64 for the last) copied into the start of the other buffer before this tile's activation reads
# the same rows of its own. src/loopnest/unpipeline.cpp.
@nki.jit
def kernel(x, bias):
    rows, cols = x.shape
    P = nl.tile_size.pmax
    n = (rows + P - 1) // P
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    x_sb = [nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf) for _ in range(2)]
    nisa.dma_copy(dst=x_sb[0][0:P, :], src=x[0:P, :])
    for i in nl.sequential_range(n):
        nr = min(P, rows - i * P)
        if i + 1 < n:
            nn = min(P, rows - (i + 1) * P)
            nisa.dma_copy(dst=x_sb[(i + 1) % 2][0:nn, :], src=x[(i + 1) * P:(i + 1) * P + nn, :])
        b_sb = nl.ndarray((P, cols), dtype=bias.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=b_sb[0:nr, :], src=bias[0:nr, :])
        e = nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.activation(dst=e[0:nr, :], op=nl.exp, data=x_sb[i % 2][0:nr, :], scale=1.0)
        y = nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.scalar_tensor_tensor(dst=y[0:nr, :], data=e[0:nr, :], op0=nl.multiply, operand0=0.5, op1=nl.add,
                                  operand1=b_sb[0:nr, :])
        nisa.dma_copy(dst=out[i * P:i * P + nr, :], src=y[0:nr, :])
    return out
