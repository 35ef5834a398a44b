import numpy as np

M = 256
N = 1024
K = 256


def get_inputs():
    x = np.random.normal(loc=0, scale=1.0, size=(M, K)).astype(np.float32)
    w = np.random.normal(loc=0, scale=1.0, size=(K, N)).astype(np.float32)
    return [x, w]


def forward(x, w):
    mean_square = np.sum(np.divide(np.square(x), K), axis=1, keepdims=True)
    return np.matmul(np.divide(x, np.sqrt(mean_square)), w)


def transform_to_nki_inputs(inputs):
    x = np.reshape(inputs[0], (M // 128, 128, K))
    w = np.reshape(inputs[1], (K // 128, 128, N))
    return [x, w]


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
