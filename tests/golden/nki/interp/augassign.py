x = 5
x += 2
x *= 3
x //= 4
x -= 1
x **= 2
x %= 7
x <<= 3
x >>= 1
x |= 1
x &= 13
x ^= 6
print(x)
t = [1, 2, 3]
t[0] += 10
t[-1] *= 2
alias = t
t += [4]
print(t, alias is t)
d = {'a': 1}
d['a'] += 5
print(d)
s = 'ab'
s += 'c'
s *= 2
print(s)
