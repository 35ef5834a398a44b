if (n := 10) > 5:
    pass
while (k := k - 1) > 0:
    f(m := 2, key=(p := 3))
y = [q for v in data if (q := v * 2) > 0]
z = a[i := 1]
