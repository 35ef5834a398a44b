# Scores of query blocks against all keys, each 512-key block of K^T built again from 128-key tiles
# for every query block (an attention port whose inner step over key blocks transposes them, as a
# flash kernel's does): out[i, :, 512 * b:512 * (b + 1)] = q[i] @ k[b]^T.  q (2, 128, 128) as
# [block, row, d], k (2, 4, 128, 128) as [key block, tile, key, d]; out (2, 128, 1024).
# hoist_compute moves the transposes, with the loads feeding them, out of `for i` into a buffer of
# one K^T block per `b`: the loop over tiles fills a block along its free dim
# (`kT[:, t * P:(t + 1) * P]`), so the buffer needs a dim for `b` only.
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
            kT[b, :, t * P:(t + 1) * P] = nl.transpose(k_t[b, t, :, :])
    for i in nl.affine_range(NQ):
        q_t = nl.load(q[i])
        for b in nl.affine_range(NB):
            s = nl.matmul(q_t, kT[b, :, :])
            nl.store(out[i, :, b * NT * P:(b + 1) * NT * P], value=nl.copy(s))
    return out
