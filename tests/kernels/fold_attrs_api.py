# x (256, 512), c (256, 1); the newer `nki` API, destination-first. Chains whose merged
# instructions carry attributes a fold must keep or refuse on: an int32 buffer between two steps
# (a quantization; no fold_scalar_ops), a tile updated in place between a step and its reader (no
# fold_scale: the folded exp would read the updated tile), a reversed subtraction read as a subtrahend
# (fold_scalar_tensor_tensor carries reverse0 and reverse1), an activation with a bias and a scale
# (fold_scale multiplies the scale, the bias stays), a row statistic subtracted inside an
# activation with a negative scale (fold_bias's bias is -scale * m), an added column inside a
# scaled activation (no fold_bias: s * c is no column any instruction computes there), and a row
# sum of a biased, scaled exp (fold_activation_reduce keeps the bias and the scale).
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, c):
    R, C = x.shape
    out = nl.ndarray((R, 8 * C), dtype=nl.float32, buffer=nl.shared_hbm)
    sums = nl.ndarray((R, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(R // 128):
        t = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        col = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=col, src=c[i * 128:(i + 1) * 128, :])
        # int32 between two steps: round(8 t) / 8 by truncation
        q = nl.ndarray((128, C), dtype=nl.int32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=q, data=t, op0=nl.multiply, operand0=8.0)
        a = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=a, data=q, op0=nl.multiply, operand0=0.125)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, 0:C], src=a)
        # exp(2 t) read after t is updated in place: (t + 1) goes out beside it
        w = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=w, src=t)
        h2 = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=h2, data=w, op0=nl.multiply, operand0=2.0)
        nisa.tensor_scalar(dst=w, data=w, op0=nl.add, operand0=1.0)
        e2 = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=e2, op=nl.exp, data=h2)
        nisa.tensor_tensor(dst=e2, data1=e2, data2=w, op=nl.multiply)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, 7 * C:8 * C], src=e2)
        # t - (2 - 3 t): a reversed step read on the right of a subtraction
        s0 = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=s0, data=t, op0=nl.multiply, operand0=3.0)
        s1 = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=s1, data=s0, op0=nl.subtract, operand0=2.0, reverse0=True)
        b = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=b, data1=t, data2=s1, op=nl.subtract)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, C:2 * C], src=b)
        # exp(2 * (-0.5 t) + col)
        h = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=h, data=t, op0=nl.multiply, operand0=-0.5)
        e = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=e, op=nl.exp, data=h, bias=col, scale=2.0)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, 2 * C:3 * C], src=e)
        # tanh(-0.25 * (t - max))
        m = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=m, op=nl.max, data=t, axis=1, keepdims=True)
        d = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=d, data=t, op0=nl.subtract, operand0=m)
        th = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=th, op=nl.tanh, data=d, scale=-0.25)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, 3 * C:4 * C], src=th)
        # exp(0.5 * (t + col)): the column would need the scale
        g = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=g, data=t, op0=nl.add, operand0=col)
        f = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=f, op=nl.exp, data=g, scale=0.5)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, 4 * C:5 * C], src=f)
        # (2 - t) - col... as the column subtracted from a reversed step: no bias (the step is c - x)
        r = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=r, data=t, op0=nl.subtract, operand0=col, reverse0=True)
        rr = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=rr, op=nl.exp, data=r)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, 5 * C:6 * C], src=rr)
        # the row sum of exp(0.5 t + col)
        p = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=p, op=nl.exp, data=t, bias=col, scale=0.5)
        s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=s, op=nl.add, data=p, axis=1, keepdims=True)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, 6 * C:7 * C], src=p)
        nisa.dma_copy(dst=sums[i * 128:(i + 1) * 128, :], src=s)
    return out, sums
