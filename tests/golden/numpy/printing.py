# print() and str() of arrays use numpy's str form; repr() keeps the array(...) form.
import numpy as np

a = np.arange(6.0).reshape(2, 3)
print(a)
print(str(np.array([1, 2, 3])))
print(repr(np.array([1.5, 2.0], dtype=np.float32)))
print(np.array([0.25, -1.0], dtype=np.float32), np.float32(0.5))
print("x =", np.array([True, False]))
print(np.zeros((2, 2, 2), dtype=np.int64))
print(np.array([-3, 10, 200]))
print(np.array([np.nan, 1.5, -np.inf]))
print(np.arange(2000.0).reshape(2, 1000))
print(np.array([[1.25, -10.5], [100.0, 0.0]], dtype=np.float32))
print(np.array([1e-5, -2.5, 300.0]))
print(np.array([0.0, 1e10], dtype=np.float32))
print(np.array([np.inf, 1e-7, -0.5]))
print(repr(np.array([1e-5, 2.0])))
print(np.array([0.1, 0.2, 0.3], dtype=np.float32) * 3)
