# Tiles style (a name per tile, loaded where it is used): a chunked selective scan, delta, u
# (C, M), a (C, S), b, c (S, M). Per 128-channel tile and state, the sequence in chunks of 512 with
# the scan carried between chunks through `carry`; c * h summed over the states. `d`, `uu` and
# `d * uu` do not depend on the state, yet are loaded and computed once per state: hoist_compute
# moves them before `for s` into buffers with one tile per chunk. chunk_scan_grid.py and
# chunk_scan_api.py are the same nest.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(delta, u, a, b, c):
    channels, seq = delta.shape
    _, states = a.shape
    CH = 512
    out = nl.ndarray((channels, seq), dtype=delta.dtype, buffer=nl.shared_hbm)
    for ct in nl.affine_range(channels // 128):
        rows = nl.ds(ct * 128, 128)
        a_tile = nl.load(a[rows, :])
        acc = nl.zeros((seq // CH, nl.par_dim(128), CH), dtype=nl.float32, buffer=nl.sbuf)
        d = nl.ndarray(shape=(seq // CH, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.sbuf)
        d_uu = nl.ndarray(shape=(seq // CH, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.sbuf)
        for j in nl.sequential_range(seq // CH):
            d[j, :, :] = nl.load(delta[rows, nl.ds(j * CH, CH)])
            uu = nl.load(u[rows, nl.ds(j * CH, CH)])
            d_uu[j, :, :] = nisa.tensor_tensor(d[j, :, :], uu, op=nl.multiply)
        for s in nl.affine_range(states):
            carry = nl.zeros((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            for j in nl.sequential_range(seq // CH):
                decay = nisa.activation(op=nl.exp, data=d[j, :, :], scale=a_tile[:, s:s + 1])
                b_row = nl.load(b[s:s + 1, nl.ds(j * CH, CH)]).broadcast_to((128, CH))
                drive = nisa.tensor_tensor(d_uu[j, :, :], b_row, op=nl.multiply)
                h = nisa.tensor_tensor_scan(decay, drive, initial=carry, op0=np.multiply, op1=np.add)
                carry[...] = h[:, CH - 1]
                c_row = nl.load(c[s:s + 1, nl.ds(j * CH, CH)]).broadcast_to((128, CH))
                acc[j, :, :] += nisa.tensor_tensor(h, c_row, op=nl.multiply)
        for j in nl.affine_range(seq // CH):
            nl.store(out[rows, nl.ds(j * CH, CH)], acc[j, :, :])
    return out
