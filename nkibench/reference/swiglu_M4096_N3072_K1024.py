import numpy as np

M = 4096
N = 3072
K = 1024


def get_inputs():
    x = np.random.normal(loc=0, scale=1.0, size=(M, K)).astype(np.float32)
    w_up = np.random.normal(loc=0, scale=1.0, size=(K, N)).astype(np.float32)
    w_down = np.random.normal(loc=0, scale=1.0, size=(N, K)).astype(np.float32)
    w_gate = np.random.normal(loc=0, scale=1.0, size=(K, N)).astype(np.float32)
    return [x, w_up, w_down, w_gate]


def forward(x, w_up, w_down, w_gate):
    gate = np.matmul(x, w_gate)
    up = np.matmul(x, w_up)
    hidden = gate / (1 + np.exp(-gate)) * up
    return np.matmul(hidden, w_down)


def transform_to_nki_inputs(inputs):
    x = np.reshape(inputs[0], (M // 512, 4, 128, K // 128, 128))
    w_up = np.reshape(inputs[1], (K // 128, 128, N))
    w_down = np.reshape(inputs[2], (N // 128, 128, K))
    w_gate = np.reshape(inputs[3], (K // 128, 128, N))
    return [x, w_up, w_down, w_gate]


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
