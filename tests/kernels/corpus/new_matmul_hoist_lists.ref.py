import numpy as np

M, K, N = 256, 256, 1024


def get_inputs():
    lhsT = np.random.normal(size=(K, M)).astype(np.float32)
    rhs = np.random.normal(size=(K, N)).astype(np.float32)
    return [lhsT, rhs]


def forward(lhsT, rhs):
    return np.matmul(lhsT.T, rhs)


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
