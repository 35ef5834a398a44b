# numpy of the host-side code around kernels (nki-samples tests and references): nanmean,
# einsum, fromfunction, tril/triu_indices, randint/choice streams, testing.assert_allclose.
import numpy as np

x = np.arange(12, dtype=np.float32).reshape(3, 4)
x[1, 2] = np.nan
print(np.nanmean(x), np.nanmean(x, axis=0), np.nanmean(x, axis=1, keepdims=True).shape, np.nanmean(x).dtype)
a = np.arange(6, dtype=np.float32).reshape(2, 3)
b = np.arange(12, dtype=np.float32).reshape(3, 4)
print(np.einsum('ij,jk->ik', a, b))
print(np.einsum('ij,jk', a, b).shape, np.einsum('ij->ji', a), np.einsum('ij->', a), np.einsum('i,i->', a[0], a[1]))
print(np.einsum('bij,bjk->bik', np.ones((2, 2, 3)), np.ones((2, 3, 2))))
print(np.fromfunction(lambda i, j: i * 10 + j, (2, 3)))
print(np.fromfunction(lambda i, j: i == j, (3, 3), dtype=int))
print(np.tril_indices(3), np.triu_indices(3, 1), np.triu_indices_from(np.zeros((2, 3))))
np.random.seed(7)
print(np.random.randint(10), np.random.randint(3, 9, size=5), np.random.randint(0, 2**31, size=(2, 2)))
print(np.random.choice(5, size=4), np.random.choice(np.array([10.0, 20.0, 30.0]), size=(2, 3)), np.random.choice(7))
print(np.random.normal(size=2))
np.testing.assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9]))
try:
    np.testing.assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 2.1]))
except AssertionError:
    print("assert_allclose raised")
# array elements print with numpy's precision 8 (shortest digits, at most 8 after the point)
print(np.array([0.5692717781791206, -0.20413854614001992]), np.array([1.23456789012e-7, 5.0]))
print(np.array([123456.123456789, 1.5]), np.array([0.1, 1e-3, 2.000000001]), np.array([1e10, 1.123456789]))
print(np.array([-2.5e-9, 3.3]), np.array([0.0012345678], dtype=np.float32))
