# numpy.linalg.LinAlgError is a class (an Exception, not a ValueError): a singular or non-square
# matrix raises it, `except np.linalg.LinAlgError` or `except Exception` catches it, and
# `except ValueError` does not; str(e) is numpy's message.
import numpy as np

for a in (np.zeros((2, 2)), np.ones((2, 3))):
    try:
        np.linalg.inv(a)
    except np.linalg.LinAlgError as e:
        print("LinAlgError:", e)
try:
    try:
        np.linalg.solve(np.zeros((3, 3)), np.ones(3))
    except ValueError:
        print("caught as ValueError")
except Exception as e:
    print("as Exception:", e, isinstance(e, np.linalg.LinAlgError), isinstance(e, ValueError))
print(np.linalg.det(np.eye(2)))
