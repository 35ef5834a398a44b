# An fp8 quantised matmul: forward() itself rounds both operands to float8_e4m3 (per-tensor
# scales mapping the largest magnitude to 240, the format's largest finite value), multiplies the
# quantised values and dequantises. The task's data are fp32, but because the reference computes
# in fp8 a kernel that does is judged against fp8 (eval/precision.h), not refused as lower
# precision. The kernel receives the two scales as scalar arguments.
import numpy as np
import ml_dtypes

K, M, N = 256, 128, 512
FP8_MAX = 240.0
TOLERANCE = 1e-5


def get_inputs():
    lhsT = np.random.normal(size=(K, M)).astype(np.float32)
    rhs = (np.random.normal(size=(K, N)) * 0.05).astype(np.float32)
    return [lhsT, rhs]


def scales(lhsT, rhs):
    return FP8_MAX / float(np.abs(lhsT).max()), FP8_MAX / float(np.abs(rhs).max())


def forward(lhsT, rhs):
    sa, sb = scales(lhsT, rhs)
    aq = (lhsT * np.float32(sa)).astype(ml_dtypes.float8_e4m3).astype(np.float32)
    bq = (rhs * np.float32(sb)).astype(ml_dtypes.float8_e4m3).astype(np.float32)
    return (aq.T @ bq) * np.float32(1.0 / (sa * sb))


def transform_to_nki_inputs(inputs):
    lhsT, rhs = inputs
    sa, sb = scales(lhsT, rhs)
    return [lhsT, rhs, sa, sb]


def transform_nki_outputs(k_res, ref):
    return [k_res]
