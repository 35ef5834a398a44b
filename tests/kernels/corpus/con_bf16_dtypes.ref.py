import numpy as np
import neuronxcc.nki.language as nl

# Every result is one rounding of an fp32 value, as the engines compute it: the kernel must match
# to the last bit (the bf16 products of the matmul are exact in fp32; its sums differ from
# numpy's only in order, below the final bf16 rounding for these inputs).
TOLERANCE = 1e-6


def get_inputs():
    a = np.random.normal(size=(256, 512)).astype(nl.bfloat16)
    b = np.random.normal(size=(256, 512)).astype(nl.bfloat16)
    w = np.random.normal(size=(128, 512)).astype(nl.bfloat16)
    return [a, b, w]


def forward(a, b, w):
    s = (a.astype(np.float32) + b.astype(np.float32)).astype(nl.bfloat16)
    half = (s.astype(np.float32) * 0.5).astype(nl.bfloat16)
    e = np.exp(s.astype(np.float32)).astype(nl.bfloat16)
    mm = np.matmul(a[0:128, 0:128].astype(np.float32).T, w.astype(np.float32)).astype(nl.bfloat16)
    return (half, e, mm)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return list(k_res)
