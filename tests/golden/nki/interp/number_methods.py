# Methods and attributes of ints, bools and floats (`F.bit_length()` sizing a power-of-two tile,
# `(M / 128).is_integer()` checking a tiling). Expected output is CPython's.
for n in [0, 1, 5, -5, 128, 255, 256, -256, 2 ** 40]:
    print(n, n.bit_length(), n.real, n.imag, n.numerator, n.denominator)
print(True.bit_length(), False.bit_length(), True.real, True.imag)
for f in [2.0, 2.5, -3.0, 0.0, float("inf"), float("nan"), 1e300]:
    print(f.is_integer(), f.real, f.imag)
print((4096 / 128).is_integer(), (4000 / 128).is_integer())
