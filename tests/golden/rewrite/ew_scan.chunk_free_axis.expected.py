# inputs: 128x1024 128x1024 128x4 4x1024 4x1024
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(delta, u, a, b, c):
    # A small selective scan on whole rows: per state, h = scan(sigmoid(delta * a), delta * u * b)
    # along the columns, and out = the sum over states of c * h.
    channels, seq = delta.shape
    _, states = a.shape
    out = nl.ndarray((channels, seq), dtype=delta.dtype, buffer=nl.shared_hbm)
    for ct in nl.affine_range(channels // 128):
        c0 = ct * 128
        a_tile = nl.load(a[c0:c0 + 128, :])
        scan_carry = nl.zeros((128, states), dtype=nl.float32, buffer=nl.sbuf)
        chunk_size = 512
        # sequential: each chunk's scans start from the previous chunk's last column
        for chunk in nl.sequential_range(seq // chunk_size):
            chunk_start = chunk * chunk_size
            delta_tile = nl.load(delta[c0:c0 + 128, chunk_start:chunk_start + chunk_size])
            u_tile = nl.load(u[c0:c0 + 128, chunk_start:chunk_start + chunk_size])
            delta_u = nisa.tensor_tensor(delta_tile, u_tile, op=nl.multiply)
            acc = nl.zeros((128, chunk_size), dtype=nl.float32, buffer=nl.sbuf)
            for s in nl.affine_range(states):
                decay = nisa.activation(op=nl.sigmoid, data=delta_tile, scale=a_tile[:, s:s + 1])
                b_row = nl.load(b[s:s + 1, chunk_start:chunk_start + chunk_size]).broadcast_to((128, chunk_size))
                delta_bu = nisa.tensor_tensor(delta_u, b_row, op=nl.multiply)
                h = nisa.tensor_tensor_scan(decay, delta_bu, initial=scan_carry[:, s:s + 1], op0=nl.multiply, op1=nl.add)
                scan_carry[:, s:s + 1] = nl.copy(h[:, chunk_size - 1:chunk_size])
                c_row = nl.load(c[s:s + 1, chunk_start:chunk_start + chunk_size]).broadcast_to((128, chunk_size))
                # the product may run on any engine; the accumulation into acc stays
                acc += nisa.tensor_tensor(h, c_row, op=nl.multiply)
            nl.store(out[c0:c0 + 128, chunk_start:chunk_start + chunk_size], acc)
    return out
