import numpy as np
def get_inputs():
    return [np.random.normal(size=(512, 1024)).astype(np.float32)]
def forward(x):
    R, C = x.shape
    acc = np.zeros((R, 128), np.float32); m = np.zeros((R, 1), np.float32)
    for j in range(C // 128):
        t = x[:, j*128:(j+1)*128]
        mn = np.maximum(m, t.max(axis=1, keepdims=True))
        acc = acc * np.exp(m - mn) + t
        m = mn
    return acc
def transform_to_nki_inputs(inputs):
    return inputs
def transform_nki_outputs(k_res, ref):
    return [np.reshape(k_res, ref.shape)]
