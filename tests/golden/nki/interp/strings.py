name = "kernel"
n = 3
print(f"{name}: {n} tiles, {n / 7:.4f} frac, {n:05d}, {1234567:,}, {0.25:%}, {name!r:>10}|")
print("{} and {x}".format(1, x=2), "-".join(["a", "b"]), "a,b".split(","), " pad ".strip())
print("abc".upper(), "ABC".lower(), "abc".startswith("ab"), "abc".endswith("c"), "abc".replace("b", "B"))
print("b" in "abc", len("abc"), "abc"[::-1], str(None), repr(1.5), 'x' * 3)
print(f'{"nested"}', f"{{braces}}", f"{[1, 2][0]}")
