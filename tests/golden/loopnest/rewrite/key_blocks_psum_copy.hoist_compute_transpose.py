# key_blocks_per_query.py with each key tile transposed into PSUM and copied out (cast) into its
# columns of the 512-key block: `kt_ps = nl.transpose(k_t); kT[:, t * P:(t + 1) * P] =
# nl.copy(kt_ps, dtype=..)`, for every query block. q (2, 128, 128), k (2, 4, 128, 128);
# out (2, 128, 1024). hoist_compute takes the loads, the transposes and their copies out of `for i`
# (the transpose writes the block's columns itself, as hoist_transpose prints a transpose whose PSUM
# copy is the compiler's).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(q, k):
    NQ, P, D = q.shape
    NB, NT = k.shape[0], k.shape[1]
    out = nl.ndarray((NQ, P, NB * NT * P), dtype=nl.float32, buffer=nl.shared_hbm)
    k_t = nl.ndarray(shape=(NB, NT, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
    kT = nl.ndarray((NB, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.sbuf)
    for b in nl.affine_range(NB):
        for t in nl.affine_range(NT):
            k_t[b, t, :, :] = nl.load(k[b, t])
        for t in nl.affine_range(NT):
            kT[b, :, 128*t:128*t + 128] = nl.transpose(k_t[b, t, :, :])
    for i in nl.affine_range(NQ):
        q_t = nl.load(q[i])
        for b in nl.affine_range(NB):
            s = nl.matmul(q_t, kT[b, :, :])
            nl.store(out[i, :, b * NT * P:(b + 1) * NT * P], value=nl.copy(s))
    return out
