# inputs: 256x512 256x512
# The newer `nki` API's chains in one buffer: `den` written by an activation, then updated in place
# (`nisa.tensor_scalar(dst=den, data=den, ...)`), then read by a reciprocal (an outside author's
# adamw: 1/(sqrt(v) + eps)). The in-place step folds into its reader (fold_scalar_ops add+reciprocal).
# Not where the buffer carries its value across iterations (`decay`, updated in place each
# iteration from what the last one left), nor where another op reads the updated tile (`seen`).
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(v, g):
    out = nl.ndarray(v.shape, dtype=v.dtype, buffer=nl.shared_hbm)
    decay = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=decay, value=1.0)
    for i in range(2):
        t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=v[i * 128:(i + 1) * 128, :])
        den = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=den, op=nl.exp, data=t)
        nisa.tensor_scalar(dst=den, data=den, op0=nl.add, operand0=1e-3)
        r = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.reciprocal(dst=r, data=den)
        nisa.tensor_scalar(dst=decay, data=decay, op0=nl.multiply, operand0=0.5)
        d = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.reciprocal(dst=d, data=decay)
        u = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=u, src=g[i * 128:(i + 1) * 128, :])
        seen = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=seen, op=nl.exp, data=u)
        nisa.tensor_scalar(dst=seen, data=seen, op0=nl.add, operand0=2.0)
        s = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.reciprocal(dst=s, data=seen)
        nisa.tensor_tensor(dst=s, data1=s, data2=seen, op=nl.multiply)
        nisa.tensor_tensor(dst=r, data1=r, data2=d, op=nl.add)
        nisa.tensor_tensor(dst=r, data1=r, data2=s, op=nl.add)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=r)
    return out
