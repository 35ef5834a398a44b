# The row broadcast 1024 columns at a time: a [128, 1024] fp32 broadcast is two PSUM banks
# (a bank holds 512 fp32, ARCH2), so it reaches SBUF first and the four multiplies read two SBUF
# fp32 inputs, 2N each (ISA tensor_tensor). Mamba v2's B and C rows at seq >= 1024 (measurements
# 1.7). Slow side of the pair bcast_wide / bcast_banks.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

W = 1024


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
