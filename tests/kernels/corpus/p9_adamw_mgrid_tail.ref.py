import numpy as np

M, N = 300, 256


def get_inputs():
    theta = np.random.normal(size=(M, N)).astype(np.float32)
    grad = np.random.normal(size=(M, N)).astype(np.float32)
    m = np.random.normal(size=(M, N)).astype(np.float32)
    v = np.abs(np.random.normal(size=(M, N))).astype(np.float32)
    return [theta, grad, m, v]


def forward(theta, grad, m, v):
    m_new = 0.9 * m + 0.1 * grad
    v_new = 0.999 * v + 0.001 * (grad * grad)
    return theta * (1 - 1e-5) - 0.01 * m_new / (np.sqrt(1000 * v_new) + 1e-8)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
