# Generator expressions run one item at a time, as Python runs them: each element is evaluated
# when the consumer asks for it, interleaved with what the consumer does with the previous one.
log = []


def item(i):
    log.append(f"make {i}")
    return i


# A loop over a generator interleaves making an element and using it: make 0, use 0, make 1, ...
for v in (item(i) for i in range(3)):
    log.append(f"use {v}")
print(log)
log.clear()

# sum() adds each element as it is made
print(sum(item(i) for i in range(4)), log)
log.clear()

# any() stops at the first true element: later elements are never evaluated
print(any(item(i) > 0 for i in range(5)), log)
log.clear()

# The outermost iterable is evaluated when the generator is made, the rest when iterated
def seq(tag, n):
    log.append(f"iter {tag}")
    return range(n)


g = (a * 10 + b for a in seq("outer", 2) for b in seq("inner", 2) if b != a)
log.append("made")
print(list(g), log)
log.clear()

# next() resumes where the previous item stopped; an exhausted generator stays exhausted
g = (item(i) for i in range(3))
print(next(g), log)
print(list(g), log)
print(list(g))
log.clear()


# A generator returned from a function runs after the function has ended, with its names
def gen_of(xs, k):
    scale = k
    g = (x * scale for x in xs)
    scale = k + 1
    return g


r = gen_of([1, 2, 3], 2)
print(list(r))

# Two generators of the same expression consumed in turn keep their own variables
def pairs(n):
    return (a * 10 + b for a in range(n) for b in range(2))


p, q = pairs(2), pairs(3)
print([next(p), next(q), next(p), next(q), next(p), next(q)])

# A generator made inside a generator's element
rows = [[1, 2], [3, 4, 5]]
print(sum(sum(v for v in row) for row in rows))
print(tuple(x for x in rows[0]), sorted(x for x in (3, 1, 2)), max(len(r) for r in rows))
