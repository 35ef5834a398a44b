# numpy's legacy random stream, bit for bit
import numpy as np

np.random.seed(42)
print(repr(np.random.normal()), repr(np.random.normal(2.0, 0.5)))
a = np.random.normal(0, 1, size=(3,))
print([repr(float(v)) for v in a])
print(repr(float(np.random.uniform(-1, 1, size=(2, 2))[1, 0])), repr(np.random.rand()))
print(np.random.rand(2, 3).shape, repr(float(np.random.randn(5)[4])), repr(float(np.random.random_sample((2,))[1])))
np.random.seed(0)
first = np.random.normal(size=5)
np.random.seed(0)
print(np.array_equal(first, np.random.normal(size=5)))
np.random.seed(4294967295)
print(repr(float(np.random.normal(size=(7,)).astype(np.float32).sum())))
