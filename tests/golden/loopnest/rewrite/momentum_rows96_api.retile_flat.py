# Newer nki API (destination-first calls, tiles declared where needed): the nest of
# momentum_rows96_tiles.py on (96, 256) tiles.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(theta, grad, mom):
    rows, cols = theta.shape
    W = 256
    out = nl.ndarray((rows, cols), dtype=theta.dtype, buffer=nl.shared_hbm)
    theta_flat = theta.reshape((3, 128, 256))
    grad_flat = grad.reshape((3, 128, 256))
    mom_flat = mom.reshape((3, 128, 256))
    out_flat = out.reshape((3, 128, 256))
    for t in nl.affine_range(3):
        th = nl.ndarray((128, W), dtype=theta.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=th, src=theta_flat[t, :, :])
        g = nl.ndarray((128, W), dtype=grad.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=g, src=grad_flat[t, :, :])
        m0 = nl.ndarray((128, W), dtype=mom.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=m0, src=mom_flat[t, :, :])
        m_old = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=m_old, data=m0, op0=nl.multiply, operand0=0.9)
        g_new = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=g_new, data=g, op0=nl.multiply, operand0=0.1)
        m1 = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=m1, data1=m_old, data2=g_new, op=nl.add)
        sq = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=sq, data1=g, data2=g, op=nl.multiply)
        decay = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=decay, op=nl.exp, data=sq, scale=-0.5)
        step = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=step, data1=m1, data2=decay, op=nl.multiply)
        nisa.tensor_scalar(dst=step, data=step, op0=nl.multiply, operand0=0.01)
        kept = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=kept, data=th, op0=nl.multiply, operand0=0.99999)
        upd = nl.ndarray((128, W), dtype=theta.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=upd, data1=kept, data2=step, op=nl.subtract)
        nisa.dma_copy(dst=out_flat[t, :, :], src=upd)
    return out
