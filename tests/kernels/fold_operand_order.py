# x (256, 512), y (256, 512); nisa value-returning calls. Steps whose operands come in the order
# that matters: a reversed step (`1 - x`, `2 ** x`), a non-commutative consumer reading the step
# on its right (`y - step`, `y / step`), negative and zero constants, a per-row column beside a
# whole tile. fold_scalar_ops / fold_scalar_tensor_tensor carry reverse0 / reverse1, fold_scale
# multiplies a negative constant into the activation's scale, a [P, 1] step never becomes a
# scalar_tensor_tensor with a [P, F] tile, and fold_scale_through_reduce takes a negative scale
# through a row sum but not through a row max.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
    R, C = x.shape
    out = nl.ndarray((R, 10 * C), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(R // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        u = nl.load(y[i * 128:(i + 1) * 128, :])
        # u - (1 - t): the step reversed, read as the subtrahend
        a = nisa.tensor_scalar(t, op0=nl.subtract, operand0=1.0, reverse0=True)
        b = nisa.tensor_tensor(u, a, op=nl.subtract)
        nl.store(out[i * 128:(i + 1) * 128, 0:C], value=b)
        # (t - 0.5) / (u * u + 1)... as steps: 3 - (t * -2), then * 0.25
        c = nisa.tensor_scalar(t, op0=nl.multiply, operand0=-2.0)
        d = nisa.tensor_scalar(c, op0=nl.subtract, operand0=3.0, reverse0=True)
        e = nisa.tensor_scalar(d, op0=nl.multiply, operand0=0.25)
        nl.store(out[i * 128:(i + 1) * 128, C:2 * C], value=e)
        # 2 ** t, then max with u (power on the left operand reversed)
        p = nisa.tensor_scalar(t, op0=nl.power, operand0=2.0, reverse0=True)
        q = nisa.tensor_tensor(p, u, op=nl.maximum)
        nl.store(out[i * 128:(i + 1) * 128, 2 * C:3 * C], value=q)
        # u / (t + 3): a step read as the divisor (divide is no ISA operator: no fold to print)
        v = nisa.tensor_scalar(t, op0=nl.add, operand0=3.0)
        w = nl.divide(u, v)
        nl.store(out[i * 128:(i + 1) * 128, 3 * C:4 * C], value=w)
        # exp(-0.5 * (t * -3)) and exp(0 * t): negative and zero constants into the scale
        f = nisa.tensor_scalar(t, op0=nl.multiply, operand0=-3.0)
        g = nisa.activation(op=nl.exp, data=f, scale=-0.5)
        nl.store(out[i * 128:(i + 1) * 128, 4 * C:5 * C], value=g)
        z = nisa.tensor_scalar(t, op0=nl.multiply, operand0=0.0)
        h = nisa.activation(op=nl.exp, data=z)
        nl.store(out[i * 128:(i + 1) * 128, 5 * C:6 * C], value=h)
        # a row statistic stepped ([P, 1]) beside the whole tile: (m * 2) - u broadcasts the column
        m = nisa.tensor_reduce(np.max, t, axis=[1], keepdims=True)
        m2 = nisa.tensor_scalar(m, op0=nl.multiply, operand0=2.0)
        k = nl.subtract(u, m2)
        nl.store(out[i * 128:(i + 1) * 128, 6 * C:7 * C], value=k)
        # t - u ** 2 with the square as a power step on the right
        s = nisa.tensor_scalar(u, op0=nl.power, operand0=2.0)
        l = nisa.tensor_tensor(t, s, op=nl.subtract)
        nl.store(out[i * 128:(i + 1) * 128, 7 * C:8 * C], value=l)
        # a negative scale read by a row sum and an exp: sum(c t) = c sum(t) for any c
        # (fold_scale_through_reduce), but max(c t) = c min(t) for c < 0 (no site)
        sc = nisa.tensor_scalar(t, op0=nl.multiply, operand0=-0.5)
        sm = nisa.tensor_reduce(np.add, sc, axis=[1], keepdims=True)
        nsm = nisa.tensor_scalar(sm, op0=nl.multiply, operand0=-0.01)
        ex = nisa.activation(op=nl.exp, data=sc, bias=nsm)
        nl.store(out[i * 128:(i + 1) * 128, 8 * C:9 * C], value=ex)
        sn = nisa.tensor_scalar(u, op0=nl.multiply, operand0=-0.5)
        mx = nisa.tensor_reduce(np.max, sn, axis=[1], keepdims=True)
        nmx = nisa.tensor_scalar(mx, op0=nl.multiply, operand0=-1.0)
        ey = nisa.activation(op=nl.exp, data=sn, bias=nmx)
        nl.store(out[i * 128:(i + 1) * 128, 9 * C:10 * C], value=ey)
    return out
