import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(theta, grad, m, v):
    # One AdamW step on (M, N) tensors: row tiles of 128 (the last one cut to the rows left),
    # 1024-column blocks, every term its own instruction per 512-column half.
    rows, cols = theta.shape
    block = 1024
    half = 512
    out = nl.ndarray((rows, cols), dtype=theta.dtype, buffer=nl.shared_hbm)
    zero_bias = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=zero_bias, value=0.0)
    for r in nl.affine_range((rows + 127) // 128):
        r0 = r * 128
        height = min(128, rows - r0)
        for c in nl.affine_range(cols // block):
            c0 = c * block
            theta_tile = nl.ndarray((height, block), dtype=theta.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=theta_tile, src=theta[r0:r0 + height, c0:c0 + block])
            grad_tile = nl.ndarray((height, block), dtype=grad.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=grad_tile, src=grad[r0:r0 + height, c0:c0 + block])
            m_tile = nl.ndarray((height, block), dtype=m.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=m_tile, src=m[r0:r0 + height, c0:c0 + block])
            v_tile = nl.ndarray((height, block), dtype=v.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=v_tile, src=v[r0:r0 + height, c0:c0 + block])
            res = nl.ndarray((height, block), dtype=theta.dtype, buffer=nl.sbuf)
            for h in nl.affine_range(block // half):
                f0 = h * half
                g_h = grad_tile[:, f0:f0 + half]
                # m' = 0.9 m + 0.1 g
                m_decay = nl.ndarray((height, half), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_scalar(dst=m_decay, data=m_tile[:, f0:f0 + half], op0=nl.multiply, operand0=0.9)
                g_part = nl.ndarray((height, half), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_scalar(dst=g_part, data=g_h, op0=nl.multiply, operand0=0.1)
                m_new = nl.ndarray((height, half), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=m_new, data1=m_decay, data2=g_part, op=nl.add)
                # v' = 0.999 v + 0.001 g^2
                g_sq = nl.ndarray((height, half), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=g_sq, data1=g_h, data2=g_h, op=nl.multiply)
                g_sq_part = nl.ndarray((height, half), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_scalar(dst=g_sq_part, data=g_sq, op0=nl.multiply, operand0=0.001)
                v_decay = nl.ndarray((height, half), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_scalar(dst=v_decay, data=v_tile[:, f0:f0 + half], op0=nl.multiply, operand0=0.999)
                v_new = nl.ndarray((height, half), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=v_new, data1=v_decay, data2=g_sq_part, op=nl.add)
                # step = 0.01 m' / (sqrt(1000 v') + 1e-8)
                root = nl.ndarray((height, half), dtype=nl.float32, buffer=nl.sbuf)
                nisa.activation(dst=root, op=nl.sqrt, data=v_new, bias=zero_bias[0:height, :], scale=1000.0)
                denom = nl.ndarray((height, half), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_scalar(dst=denom, data=root, op0=nl.add, operand0=1e-08)
                inv = nl.ndarray((height, half), dtype=nl.float32, buffer=nl.sbuf)
                nisa.reciprocal(dst=inv, data=denom)
                step = nl.ndarray((height, half), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=step, data1=m_new, data2=inv, op=nl.multiply)
                step_lr = nl.ndarray((height, half), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_scalar(dst=step_lr, data=step, op0=nl.multiply, operand0=0.01)
                # theta (1 - 1e-5) - step
                decayed = nl.ndarray((height, half), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_scalar(dst=decayed, data=theta_tile[:, f0:f0 + half], op0=nl.multiply, operand0=1 - 1e-05)
                nisa.tensor_tensor(dst=res[:, f0:f0 + half], data1=decayed, data2=step_lr, op=nl.subtract)
            nisa.dma_copy(dst=out[r0:r0 + height, c0:c0 + block], src=res)
    return out
