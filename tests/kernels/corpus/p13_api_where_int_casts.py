# Element-wise nki.language with dtype= casts: int32 labels turned into float32 by
# nl.copy(dtype=), a comparison tile as nl.where's condition with a scalar branch, unary minus and
# `** 2` on tiles, nl.abs, nl.min with keepdims=False (one value per partition) broadcast back by
# an operator.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, labels):
    n, d = x.shape
    out = nl.ndarray((n, d), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(n // 128):
        xt = nl.load(x[i * 128:(i + 1) * 128, :])
        lab = nl.load(labels[i * 128:(i + 1) * 128, :])
        lf = nl.copy(lab, dtype=nl.float32)
        sq = -(xt ** 2)
        pos = nl.where(lf > 0.5, sq, 0.0)
        mn = nl.min(pos, axis=1)
        y = nl.abs(pos - mn)
        nl.store(out[i * 128:(i + 1) * 128, :], value=y)
    return out
