# Row sums and row means of a wide matrix in the newer `nki` API: an SBUF accumulator zeroed by
# nisa.memset(dst=, value=0.0), column chunks of 384 with a ragged last chunk by min(), each chunk's
# tensor_reduce(dst=, axis=1, keepdims=True) added in place by tensor_tensor(dst=acc, data1=acc, ...),
# two outputs returned as a tuple.
import nki
import nki.isa as nisa
import nki.language as nl

CHUNK = 384


@nki.jit
def row_sum_mean(x):
    n, d = x.shape
    P = nl.tile_size.pmax
    sums = nl.ndarray((n, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    means = nl.ndarray((n, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    n_chunks = (d + CHUNK - 1) // CHUNK
    for i in range(n // P):
        acc = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=acc, value=0.0)
        for j in range(n_chunks):
            w = min(CHUNK, d - j * CHUNK)
            xt = nl.ndarray((P, CHUNK), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=xt[:, :w], src=x[i * P:(i + 1) * P, j * CHUNK:j * CHUNK + w])
            part = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_reduce(dst=part, op=nl.add, data=xt[:, :w], axis=1, keepdims=True)
            nisa.tensor_tensor(dst=acc, data1=acc, data2=part, op=nl.add)
        mean = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=mean, data=acc, op0=nl.multiply, operand0=1.0 / d)
        nisa.dma_copy(dst=sums[i * P:(i + 1) * P, :], src=acc)
        nisa.dma_copy(dst=means[i * P:(i + 1) * P, :], src=mean)
    return sums, means
