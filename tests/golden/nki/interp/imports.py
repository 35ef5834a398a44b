import math
import math as m


def f():
    import math as mm
    from math import sqrt as root
    return mm.floor(root(17.0))


print(m.pi == math.pi, f(), math.isclose(0.1 + 0.2, 0.3), math.log(8, 2), math.log2(1024), math.tanh(0.0))
print(math.fabs(-2), math.exp(0), math.cos(0), math.sin(0), math.inf > 1e308, math.e > 2.7)
