# iter() and next() as trace-time code walks a list by hand: iter of an iterator is itself, pairs by
# zip(it, it), next with and without a default, the first match of a generator expression, and
# StopIteration when an iterator is exhausted.
sizes = [128, 256, 512, 1024]
it = iter(sizes)
print(next(it), next(it), iter(it) is it)
print(list(zip(*[iter(sizes)] * 2)))
print(next(s for s in sizes if s > 200), next((s for s in sizes if s > 4096), None))
rest = iter(sizes[3:])
print(next(rest), next(rest, "done"))
try:
    next(rest)
except StopIteration:
    print("StopIteration")
try:
    next(sizes)
except TypeError as e:
    print("TypeError:", e)
