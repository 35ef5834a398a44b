# Two independent K=64 products, each summed over R operand pairs and repeated REP times:
# oa = REP * sum_r xa[r].T @ wa[r], ob likewise (fp16 operands, fp32 results). The kernels of
# this reference run the two halves' matmuls on the whole PE grid or on its two row halves.
import numpy as np

R = 4
K = 64
M = 128
N = 512
REP = 32


def get_inputs():
    return [np.random.normal(size=s).astype(np.float16) for s in [(R, K, M), (R, K, N), (R, K, M), (R, K, N)]]


def forward(xa, wa, xb, wb):
    def product(x, w):
        return REP * sum(x[r].astype(np.float32).T @ w[r].astype(np.float32) for r in range(R))
    return product(xa, wa), product(xb, wb)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return list(k_res)
