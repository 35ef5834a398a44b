# The row broadcast 512 columns at a time: each broadcast fits one PSUM bank and stays there, so
# the four multiplies read one PSUM and one SBUF input, N each (ISA tensor_tensor). Mamba v3's
# 512-column chunks (measurements 1.7). Fast side of the pair bcast_wide / bcast_banks.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

W = 512


@nki.jit
def kernel(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for c in nl.affine_range(a.shape[1] // W):
        a_t = nl.load(a[:, c * W:(c + 1) * W])
        b_t = nl.load(b[0:1, c * W:(c + 1) * W])
        bb = b_t.broadcast_to((128, W))
        y = a_t
        for s in nl.static_range(4):
            y = nisa.tensor_tensor(y, bb, op=nl.multiply)
        nl.store(out[:, c * W:(c + 1) * W], value=y)
    return out
