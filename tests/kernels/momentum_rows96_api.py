# Newer nki API (destination-first calls, tiles declared where needed): the nest of
# momentum_rows96_tiles.py on (96, 256) tiles.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(theta, grad, mom):
    rows, cols = theta.shape
    P = 96
    W = 256
    out = nl.ndarray((rows, cols), dtype=theta.dtype, buffer=nl.shared_hbm)
    for t in nl.affine_range(rows // P):
        for c in nl.affine_range(cols // W):
            th = nl.ndarray((P, W), dtype=theta.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=th, src=theta[t * P:(t + 1) * P, c * W:(c + 1) * W])
            g = nl.ndarray((P, W), dtype=grad.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=g, src=grad[t * P:(t + 1) * P, c * W:(c + 1) * W])
            m0 = nl.ndarray((P, W), dtype=mom.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=m0, src=mom[t * P:(t + 1) * P, c * W:(c + 1) * W])
            m_old = nl.ndarray((P, W), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_scalar(dst=m_old, data=m0, op0=nl.multiply, operand0=0.9)
            g_new = nl.ndarray((P, W), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_scalar(dst=g_new, data=g, op0=nl.multiply, operand0=0.1)
            m1 = nl.ndarray((P, W), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=m1, data1=m_old, data2=g_new, op=nl.add)
            sq = nl.ndarray((P, W), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=sq, data1=g, data2=g, op=nl.multiply)
            decay = nl.ndarray((P, W), dtype=nl.float32, buffer=nl.sbuf)
            nisa.activation(dst=decay, op=nl.exp, data=sq, scale=-0.5)
            step = nl.ndarray((P, W), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=step, data1=m1, data2=decay, op=nl.multiply)
            nisa.tensor_scalar(dst=step, data=step, op0=nl.multiply, operand0=0.01)
            kept = nl.ndarray((P, W), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_scalar(dst=kept, data=th, op0=nl.multiply, operand0=0.99999)
            upd = nl.ndarray((P, W), dtype=theta.dtype, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=upd, data1=kept, data2=step, op=nl.subtract)
            nisa.dma_copy(dst=out[t * P:(t + 1) * P, c * W:(c + 1) * W], src=upd)
    return out
