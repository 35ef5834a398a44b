# Triton-port style: a module block size, a `cdiv` helper for the block count, offsets from index
# vectors and bounds masks on every load and store (the last block ragged for any width).
# out = exp(x). free_size may set CHUNK: the kernel is written for any value of it.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

CHUNK = 512


def cdiv(a, b):
    return (a + b - 1) // b


@nki.jit
def kernel(x):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    offs_p = nl.arange(128)[:, None]
    for pid in nl.affine_range(cdiv(cols, CHUNK)):
        offs_f = pid * CHUNK + nl.arange(CHUNK)[None, :]
        t = nl.load(x[offs_p, offs_f], mask=(offs_f < cols))
        nl.store(out[offs_p, offs_f], value=nl.exp(t), mask=(offs_f < cols))
    return out
