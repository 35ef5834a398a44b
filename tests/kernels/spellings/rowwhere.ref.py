import numpy as np
def get_inputs():
    return [np.random.normal(size=(128, 2048)).astype(np.float32), np.random.normal(size=(1, 2048)).astype(np.float32)]
def forward(a, b):
    y = a
    for s in range(6):
        y = np.where(y > 0, y, b * (s + 1))
    return y
def transform_to_nki_inputs(inputs):
    return inputs
def transform_nki_outputs(k_res, ref):
    return [np.reshape(k_res, ref.shape)]
