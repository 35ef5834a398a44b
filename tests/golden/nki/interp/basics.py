import math

M = 4
N = 3

def helper(a, b=2, *rest, scale=1.0, **kw):
    """docstring"""
    return (a + b) * scale, rest, kw

def make_counter():
    count = 0
    def inc(step=1):
        return count + step
    return inc

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

out = []
for i, (x, y) in enumerate(zip(range(M), [10, 20, 30, 40])):
    if i % 2 == 0:
        out.append(x * y)
    elif i == 3:
        continue
    else:
        out.append(-x)
print(out, len(out), sum(out))
print(helper(1), helper(1, 2, 3, 4, scale=2, extra=5))
print(make_counter()(5), fib(15))
a, *b, c = [1, 2, 3, 4, 5]
print(a, b, c)
d = {"k": 1, "j": [1, 2]}
d["z"] = (1,)
print(d, d.get("q", 7), list(d.items()), "k" in d)
print([i * i for i in range(5) if i != 2], {k: v for k, v in [(1, 2)]})
print(f"value={M:>4} pi={math.pi:.3f} {N!r} {'x'}")
s = 0
k = 0
while k < 10:
    k += 1
    if k == 8:
        break
    s += k
print(s, 7 // -2, -7 % 3, 2 ** 10, 2 ** -1, 1 / 4, 3.0 // 2, True + 1)
print(sorted([3, 1, 2], reverse=True), max(3, 9, 2), min([4, 5]), abs(-3.5), round(2.5), round(3.14159, 2))
t = (1, 2, 3)
print(t[1:], t[::-1], "abc"[1], [1, 2, 3][-1], 1 < 2 < 3, 1 < 3 < 2, None is None, 1 if t else 2)
print(isinstance(t, tuple), isinstance(1, (float, int)), hasattr(d, "get"), str(1.0), int("12"), float("1e-5"))
print(math.sqrt(16), math.ceil(2.1), math.floor(-2.1), math.prod([1, 2, 3]), math.gcd(12, 18), math.isqrt(17))
print(math.factorial(0), math.factorial(7), math.factorial(20), 1 / math.factorial(5))
lst = [1, 2]
lst += [3]
lst.extend((4, 5))
lst.insert(0, 0)
print(lst, lst.pop(), lst.index(3), lst[1:3], lst * 2, any([0, 1]), all([1, 0]))
print(list(map(lambda v: v * 2, [1, 2])), list(filter(None, [0, 1, 2])), list(reversed([1, 2, 3])), divmod(7, 2), pow(2, 10, 1000))
print(repr("it's"), 1e-05, 1e16, 123456789.0, 0.1 + 0.2, -0.0, float("inf"))
