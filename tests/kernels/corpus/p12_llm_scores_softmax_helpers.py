"""Attention probabilities softmax(scale * q @ k^T) as an assistant writes them: helpers that
return tiles (a matmul helper, a softmax helper with a default axis), q and k handed over
transposed ([d, S]), the scale a default argument computed with math.sqrt, keyword arguments at
every call."""
import math

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

HEAD_DIM = 64


def qk_scores(qT_tile, kT_tile, scale: float):
    """[Sq, Sk] scores; the Tensor Engine contracts over the partition dim d."""
    s = nl.matmul(qT_tile, kT_tile, transpose_x=True)
    return nl.multiply(s, scale)


def row_softmax(s, axis: int = 1):
    """Numerically stable softmax along the free axis."""
    m = nl.max(s, axis=axis, keepdims=True)
    e = nl.exp(nl.subtract(s, m))
    return nl.divide(e, nl.sum(e, axis=axis, keepdims=True))


@nki.jit
def attention_probs(qT, kT, scale: float = 1.0 / math.sqrt(HEAD_DIM)):
    d, Sq = qT.shape
    d2, Sk = kT.shape
    assert d == d2 == HEAD_DIM
    assert Sq % 128 == 0 and Sk <= 512
    probs = nl.ndarray((Sq, Sk), dtype=nl.float32, buffer=nl.shared_hbm)
    k_tile = nl.load(kT)
    for qi in nl.affine_range(Sq // 128):
        q_tile = nl.load(qT[:, qi * 128:(qi + 1) * 128])
        p = row_softmax(qk_scores(qT_tile=q_tile, kT_tile=k_tile, scale=scale))
        nl.store(probs[qi * 128:(qi + 1) * 128, :], value=p)
    return probs
