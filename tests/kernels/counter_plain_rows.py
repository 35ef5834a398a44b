# Legacy nl API: a plain Python int bumped in the body of an inner loop (`tb = tcount % NB;
# tcount += 1`) picks the rotating buffer each block goes through, and `tcount` also numbers the
# output blocks in the order they were written.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

P = 128
NB = 2
W = 128


@nki.jit
def kernel(x):
    R, F = x.shape
    n_g = R // (2 * P)
    n_c = F // W
    out = nl.ndarray((n_g * 2 * n_c * P, W), dtype=x.dtype, buffer=nl.shared_hbm)
    buf = nl.ndarray((NB, nl.par_dim(P), W), dtype=nl.float32, buffer=nl.sbuf)
    tcount = 0
    for g in nl.sequential_range(n_g):
        for r in nl.affine_range(2):
            row0 = (g * 2 + r) * P
            for c in nl.affine_range(n_c):
                tb = tcount % NB
                buf[tb] = nl.load(x[row0:row0 + P, c * W:(c + 1) * W])
                sq = nl.multiply(buf[tb], buf[tb])
                nl.store(out[tcount * P:(tcount + 1) * P, :], value=sq)
                tcount += 1
    return out
