# Legacy API, index grids, the ragged last row tile guarded by a mask on every instruction
# (x, decay: (192, 1024): two row tiles, the second 64 rows). Per row tile a decayed running sum
# along the columns, in chunks carried through a sequential loop (an in-order chain per row).
# jam_rows runs the two row tiles together; each copy keeps its own row's guard.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, decay):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(256)[None, :]
    i_z = nl.arange(1)[None, :]
    for r in nl.affine_range((M + 127) // 128):
        carry = nl.zeros((nl.par_dim(128), 1), nl.float32, buffer=nl.sbuf)
        for t in nl.sequential_range(N // 256):
            xt = nl.load(x[r * 128 + i_p, t * 256 + i_f], mask=(r * 128 + i_p < M))
            dt = nl.load(decay[r * 128 + i_p, t * 256 + i_f], mask=(r * 128 + i_p < M))
            h = nisa.tensor_tensor_scan(dt, xt, initial=carry, op0=nl.multiply, op1=nl.add,
                                        mask=(r * 128 + i_p < M))
            carry[i_p, i_z] = nl.copy(h[i_p, 255 + i_z], mask=(r * 128 + i_p < M))
            nl.store(out[r * 128 + i_p, t * 256 + i_f], value=h, mask=(r * 128 + i_p < M))
    return out
