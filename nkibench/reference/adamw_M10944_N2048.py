import numpy as np

M = 10944
N = 2048


def get_inputs():
    theta = np.random.normal(loc=0, scale=1.0, size=(M, N)).astype(np.float32)
    grad = np.random.normal(loc=0, scale=1.0, size=(M, N)).astype(np.float32)
    m = np.random.normal(loc=0, scale=1.0, size=(M, N)).astype(np.float32)
    v = np.abs(np.random.normal(loc=0, scale=1.0, size=(M, N))).astype(np.float32)
    return [theta, grad, m, v]


def forward(theta, grad, m, v):
    # One AdamW step at t = 1: lr 1e-3, betas (0.9, 0.999), weight decay 1e-2, eps 1e-8,
    # with the bias corrections folded into the constants (m / 0.1 * 1e-3, v / 1e-3).
    m_new = 0.9 * m + 0.1 * grad
    v_new = 0.999 * v + 0.001 * (grad * grad)
    return theta * (1 - 1e-5) - 0.01 * m_new / (np.sqrt(1000 * v_new) + 1e-8)


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
