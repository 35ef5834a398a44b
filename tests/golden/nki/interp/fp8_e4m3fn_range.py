# The two fp8 e4m3 formats differ in range: IEEE-style float8_e4m3 (largest finite 240, overflow
# to inf) and OCP float8_e4m3fn (largest finite 448, no infinity: overflow is NaN, as ml_dtypes).
import numpy as np
import ml_dtypes
import nki.language as nl

x = np.array([1.0, 0.3, 239.0, 300.0, 448.0, 500.0, -300.0], dtype=np.float32)
print(x.astype(ml_dtypes.float8_e4m3).astype(np.float32).tolist())
print(x.astype(ml_dtypes.float8_e4m3fn).astype(np.float32).tolist())
print(nl.static_cast(x, nl.float8_e4m3fn).astype(np.float32).tolist())
print(np.finfo(nl.float8_e4m3fn).max, np.finfo(nl.float8_e4m3).max)
