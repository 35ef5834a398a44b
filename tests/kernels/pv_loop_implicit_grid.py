from neuronxcc import nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(v0, v1):
    # v0: probabilities' logits (T, 128, J * 128); v1: values (J, 128, D). Index grids, generated names.
    v2 = nl.ndarray((v0.shape[0], 128, v1.shape[2]), dtype=v0.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(v0.shape[2])[None, :]
    i_b = nl.arange(128)[None, :]
    i_d = nl.arange(v1.shape[2])[None, :]
    for i0 in nl.affine_range(v0.shape[0]):
        v3 = nl.load(v0[i0, i_p, i_f])
        v4 = nl.exp(nl.subtract(v3, 1.0))
        v5 = nl.zeros((128, v1.shape[2]), dtype=nl.float32, buffer=nl.psum)
        for i1 in nl.affine_range(v1.shape[0]):
            v6 = nl.load(v1[i1, i_p, i_d])
            v5 += nl.matmul(v4[i_p, i1 * 128 + i_b], v6)
        nl.store(v2[i0, i_p, i_d], value=nl.copy(v5))
    return v2
