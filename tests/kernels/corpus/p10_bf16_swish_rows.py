import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def swish_bf16(x, beta):
    # bf16 in, bf16 out, fp32 in between: x * sigmoid(beta * x) with beta a (1, D) bf16 row.
    # The loads upcast with dtype=; beta is loaded once and broadcast over the partitions.
    (N, D) = x.shape
    out = nl.ndarray((N, D), dtype=nl.bfloat16, buffer=nl.shared_hbm)
    b = nl.broadcast_to(nl.load(beta, dtype=nl.float32), shape=(128, D))
    for i in nl.affine_range(N // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :], dtype=nl.float32)
        z = nisa.tensor_tensor(t, b, op=nl.multiply)
        s = nisa.activation(op=nl.sigmoid, data=z)
        y = nl.multiply(t, s, dtype=nl.bfloat16)
        nl.store(out[i * 128:(i + 1) * 128, :], value=y)
    return out
