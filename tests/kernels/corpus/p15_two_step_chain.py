# The same chain written as two instructions per step (p15_stt_chain.py fuses each pair).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(x.shape[0] // 128):
        t = nl.load(x[r * 128:(r + 1) * 128, :])
        w = nl.load(y[r * 128:(r + 1) * 128, :])
        for _ in nl.static_range(16):
            t = nisa.tensor_tensor(nisa.tensor_scalar(t, nl.subtract, 0.5), w, op=nl.multiply)
        nl.store(out[r * 128:(r + 1) * 128, :], value=t)
    return out
