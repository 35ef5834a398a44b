import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(theta, grad, m, v):
    # One AdamW step on (M, N) tensors: row tiles of 128 (the last one partial), 1024-column
    # blocks, every term its own elementwise instruction per 512-column half.
    rows, cols = theta.shape
    out = nl.ndarray((rows, cols), dtype=theta.dtype, buffer=nl.shared_hbm)
    zero_bias = nisa.memset(shape=(128, 1), value=0.0, dtype=nl.float32)
    block = 1024
    row_tiles = (rows + 127) // 128
    for c in nl.affine_range(cols // block):
        c0 = c * block
        for r in nl.affine_range(row_tiles):
            r0 = r * 128
            height = 128 if r0 + 128 <= rows else rows - r0
            theta_tile = nl.load(theta[r0:r0 + height, c0:c0 + block])
            grad_tile = nl.load(grad[r0:r0 + height, c0:c0 + block])
            m_tile = nl.load(m[r0:r0 + height, c0:c0 + block])
            v_tile = nl.load(v[r0:r0 + height, c0:c0 + block])
            res = nl.ndarray((nl.par_dim(height), block), dtype=theta.dtype, buffer=nl.sbuf)
            for h in nl.affine_range(block // 512):
                f0 = h * 512
                g_h = grad_tile[:, f0:f0 + 512]
                m_decay = nisa.tensor_scalar(data=m_tile[:, f0:f0 + 512], op0=nl.multiply, operand0=0.9)
                g_part = nisa.tensor_scalar(data=g_h, op0=nl.multiply, operand0=0.1)
                m_new = nl.add(m_decay, g_part)
                g_sq = nl.multiply(g_h, g_h)
                g_sq_part = nisa.tensor_scalar(data=g_sq, op0=nl.multiply, operand0=0.001)
                v_decay = nisa.tensor_scalar(data=v_tile[:, f0:f0 + 512], op0=nl.multiply, operand0=0.999)
                v_new = nl.add(v_decay, g_sq_part)
                root = nisa.activation(op=nl.sqrt, data=v_new, bias=zero_bias[0:height, :], scale=1000.0)
                denom = nisa.tensor_scalar(data=root, op0=nl.add, operand0=1e-08)
                inv = nisa.reciprocal(data=denom)
                step = nl.multiply(m_new, inv)
                step_lr = nisa.tensor_scalar(data=step, op0=nl.multiply, operand0=0.01)
                decayed = nisa.tensor_scalar(data=theta_tile[:, f0:f0 + 512], op0=nl.multiply, operand0=1 - 1e-05)
                res[:, f0:f0 + 512] = nl.subtract(decayed, step_lr)
            nl.store(out[r0:r0 + height, c0:c0 + block], value=res)
    return out
