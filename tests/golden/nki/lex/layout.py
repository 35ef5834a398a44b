# a comment line
def f(a,
      b):  # trailing comment
    if a:
        return [a,
                b]
    x = a + \
        b
    return x
