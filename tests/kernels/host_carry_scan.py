# Legacy API, tiles style: the chunked selective scan of chunk_scan_tiles.py with the carry between
# chunks starting as the host number 0.0 and rebound by name to the chunk scan's last column
# (`carry = h[:, CH - 1:CH]`): one loop of the form carrying a tile filled with 0.0 where the
# binding is (lift_host_carry.cpp), not the loop's 4 copies.
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
        for s in nl.affine_range(states):
            carry = 0.0
            for j in nl.sequential_range(seq // CH):
                d = nl.load(delta[rows, nl.ds(j * CH, CH)])
                uu = nl.load(u[rows, nl.ds(j * CH, CH)])
                decay = nisa.activation(op=nl.exp, data=d, scale=a_tile[:, s:s + 1])
                b_row = nl.load(b[s:s + 1, nl.ds(j * CH, CH)]).broadcast_to((128, CH))
                drive = nisa.tensor_tensor(nisa.tensor_tensor(d, uu, op=nl.multiply), b_row, op=nl.multiply)
                h = nisa.tensor_tensor_scan(decay, drive, initial=carry, op0=np.multiply, op1=np.add)
                carry = h[:, CH - 1:CH]
                c_row = nl.load(c[s:s + 1, nl.ds(j * CH, CH)]).broadcast_to((128, CH))
                acc[j, :, :] += nisa.tensor_tensor(h, c_row, op=nl.multiply)
        for j in nl.affine_range(seq // CH):
            nl.store(out[rows, nl.ds(j * CH, CH)], acc[j, :, :])
    return out
