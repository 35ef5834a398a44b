import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def fp8_matmul(lhsT, rhs, scale_a, scale_b):
    """out = dequant(quant8(lhsT).T @ quant8(rhs)): operands rounded to fp8 on chip, the matmul
    accumulates exact fp8 products in fp32 PSUM over K tiles, one multiply dequantises."""
    K, M = lhsT.shape
    _, N = rhs.shape
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((M, N), dtype=nl.float32, buffer=nl.psum)
    for k in nl.affine_range(K // 128):
        a = nl.load(lhsT[k * 128:(k + 1) * 128, :])
        b = nl.load(rhs[k * 128:(k + 1) * 128, :])
        a8 = nl.multiply(a, scale_a, dtype=nl.float8_e4m3)
        b8 = nl.multiply(b, scale_b, dtype=nl.float8_e4m3)
        acc += nisa.nc_matmul(a8, b8)
    res = nl.multiply(acc, 1.0 / (scale_a * scale_b), dtype=nl.float32)
    nl.store(out, res)
    return out
