import numpy as np
def get_inputs():
    return [np.random.normal(size=(4096, 512)).astype(np.float32)]
def forward(x):
    return x * 2.0
def transform_to_nki_inputs(inputs):
    return inputs
def transform_nki_outputs(k_res, ref):
    return [np.reshape(k_res, ref.shape)]
