# f-strings with the self-documenting `=` (Python 3.8), as kernels use them in asserts: the field's
# text (spaces around '=' kept) then the value's repr, or its format when a spec is given.
N = 384
name = "tile"
shape = (128, 512)
print(f"{N=}")
print(f"{N = }, {name=}")
print(f"{shape=} {N=:>6} {name=!s}")
print(f"{N * 2=} {N==384} {N!=3}")
print(f"{{N=}}")
