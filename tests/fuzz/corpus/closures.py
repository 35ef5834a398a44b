def outer(n):
    total = n
    def add(k):
        return total + k
    def twice(k):
        return add(add(k))
    return twice


def make_adders():
    return [lambda x, i=i: x + i for i in range(3)]


def nested():
    x = 1
    def level1():
        def level2():
            return x * 10
        return level2()
    return level1()


print(outer(5)(1), [f(10) for f in make_adders()], nested())
fns = []
for i in range(3):
    fns.append(lambda: i)
print([f() for f in fns])
