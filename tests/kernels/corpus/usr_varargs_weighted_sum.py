# A kernel over any number of inputs: `*inputs` collects the tensors, a keyword-only `weights`
# tuple with a default weighs them, zip() pairs them in a host loop inside the tile loop, and the
# accumulator is an nl.zeros tile updated with `+=`.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(*inputs, weights=(1.0, 0.5, 0.25)):
    first = inputs[0]
    M, N = first.shape
    assert len(inputs) == len(weights)
    out = nl.ndarray((M, N), dtype=first.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(M // 128):
        acc = nl.zeros((128, N), dtype=nl.float32, buffer=nl.sbuf)
        for x, w in zip(inputs, weights):
            acc += nl.multiply(nl.load(x[i * 128:(i + 1) * 128, :]), w)
        nl.store(out[i * 128:(i + 1) * 128, :], value=acc)
    return out
