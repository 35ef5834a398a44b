# frozenset: built from any iterable, the non-mutating set methods and operators (the result
# takes the left operand's type), equal to a set with the same elements, usable as a set element
# and a dict key; the mutating methods are absent.
fs = frozenset([3, 1, 2, 3])
print(len(fs), 2 in fs, 5 not in fs, sorted(fs), isinstance(fs, frozenset), isinstance(fs, set))
print(sorted(fs | {4}), isinstance(fs | {4}, frozenset), isinstance({4} | fs, set), sorted(fs & {1, 9}), sorted(fs - {1}))
print(fs == {1, 2, 3}, fs <= frozenset(range(5)), fs.issubset([1, 2, 3, 4]), fs.isdisjoint((7, 8)))
print(sorted(fs.union([7])), isinstance(fs.union([7]), frozenset), fs.copy() is fs, frozenset(fs) is fs)
print(frozenset(), repr(frozenset([5])), bool(frozenset()))
table = {frozenset([1, 2]): "a", frozenset([3]): "b"}
print(table[frozenset([2, 1])], frozenset([3]) in table)
groups = {frozenset([1, 2]), frozenset([2, 1]), frozenset([3])}
print(len(groups))
acc = fs
acc |= {10}
print(sorted(acc), sorted(fs))
try:
    fs.add(4)
except AttributeError as e:
    print("AttributeError:", e)
try:
    {frozenset([1]), {2}}
except TypeError as e:
    print("TypeError:", e)
