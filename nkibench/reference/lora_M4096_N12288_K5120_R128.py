import numpy as np

M = 4096
N = 12288
K = 5120
R = 128


def get_inputs():
    x = np.random.normal(loc=0, scale=1.0, size=(M, K)).astype(np.float32)
    w = np.random.normal(loc=0, scale=1.0, size=(K, N)).astype(np.float32)
    a = np.random.normal(loc=0, scale=1.0, size=(K, R)).astype(np.float32)
    b = np.random.normal(loc=0, scale=1.0, size=(R, N)).astype(np.float32)
    return [x, w, a, b]


def forward(x, w, a, b):
    return np.matmul(x, w) + np.matmul(np.matmul(x, a), b)


def transform_to_nki_inputs(inputs):
    x = np.reshape(inputs[0], (M // 512, 4, 128, K // 128, 128))
    w = np.reshape(inputs[1], (K // 128, 128, N))
    a = np.reshape(inputs[2], (K // 128, 128, R))
    b = inputs[3]
    return [x, w, a, b]


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
