import numpy as np

B = 2
M = 512
K = 64
N = 2048


def get_inputs():
    lhs = np.random.normal(loc=0, scale=1.0, size=(B, M, K)).astype(np.float32)
    rhs = np.random.normal(loc=0, scale=1.0, size=(B, K, N)).astype(np.float32)
    return [lhs, rhs]


def forward(lhs, rhs):
    return np.matmul(lhs, rhs)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    if not isinstance(k_res, tuple):
        k_res = (k_res,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    outputs = []
    for v, r in zip(k_res, refs):
        if hasattr(r, "shape"):
            outputs.append(np.reshape(v, r.shape))
        else:
            outputs.append(v)
    return outputs
