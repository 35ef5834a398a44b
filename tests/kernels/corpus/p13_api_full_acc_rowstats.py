# Row statistics over column chunks with accumulators made by nl.zeros and nl.full and updated in
# the chunk loop: the sum by `+=` of nl.sum(..., keepdims=True), the running maximum by
# `mx[...] = nl.maximum(mx, nl.max(...))`; two outputs.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    n, d = x.shape
    CH = 256
    sums = nl.ndarray((n, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    maxes = nl.ndarray((n, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(n // 128):
        acc = nl.zeros((128, 1), dtype=nl.float32)
        mx = nl.full((128, 1), -3.0e38, dtype=nl.float32)
        for c in nl.affine_range(d // CH):
            chunk = nl.load(x[i * 128:(i + 1) * 128, c * CH:(c + 1) * CH])
            acc += nl.sum(chunk, axis=1, keepdims=True)
            mx[...] = nl.maximum(mx, nl.max(chunk, axis=1, keepdims=True))
        nl.store(sums[i * 128:(i + 1) * 128, :], value=acc)
        nl.store(maxes[i * 128:(i + 1) * 128, :], value=mx)
    return sums, maxes
