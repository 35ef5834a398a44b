import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def huber_grad(pred, target, delta=1.0):
    # Gradient of the Huber loss: d = pred - target; d inside [-delta, delta], else
    # delta * sign(d). Written with nl.where on a compound (&) tile predicate and scalar
    # branches, as a user reaches for numpy's where.
    M, N = pred.shape
    out = nl.ndarray((M, N), dtype=pred.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(M // 128):
        d = nl.subtract(nl.load(pred[i * 128:(i + 1) * 128, :]),
                        nl.load(target[i * 128:(i + 1) * 128, :]))
        inside = (d <= delta) & (d >= -delta)
        outer = nl.where(d > 0.0, delta, -delta)
        g = nl.where(inside, d, outer)
        nl.store(out[i * 128:(i + 1) * 128, :], value=g)
    return out
