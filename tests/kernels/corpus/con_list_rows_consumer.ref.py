import numpy as np
def get_inputs():
    return [np.random.normal(size=(128, 512)).astype(np.float32),
            np.random.normal(size=(128, 512)).astype(np.float32),
            np.random.normal(size=(512, 128)).astype(np.float32)]
def forward(q_t, k_t, v):
    p = np.exp((q_t.T @ k_t) * 0.0625)
    return p @ v
def transform_to_nki_inputs(inputs):
    return inputs
def transform_nki_outputs(k_res, ref):
    return [np.reshape(k_res, ref.shape)]
