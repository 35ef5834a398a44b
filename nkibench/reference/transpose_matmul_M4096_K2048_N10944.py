import numpy as np

M = 4096
K = 2048
N = 10944


def get_inputs():
    lhs = np.random.normal(loc=0, scale=1.0, size=(K, M)).astype(np.float32)
    rhs = np.random.normal(loc=0, scale=1.0, size=(K, N)).astype(np.float32)
    return [lhs, rhs]


def forward(lhs, rhs):
    return np.matmul(np.transpose(lhs, axes=(1, 0)), rhs)


def transform_to_nki_inputs(inputs):
    lhs = np.reshape(inputs[0], (128, K // 128, M))
    rhs = np.reshape(inputs[1], (128, K // 128, N))
    return [lhs, rhs]


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
