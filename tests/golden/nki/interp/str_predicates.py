# str.isdigit / isalpha / isalnum / isspace / isupper / islower, str.count and str.rfind, as
# kernels test names and sizes at trace time (`assert str(F).isdigit()`). Expected output is
# CPython's.
for s in ["128", "", "a1", "AB", "Ab", " \t", "abc", "A1", "_x"]:
    print(repr(s), s.isdigit(), s.isalpha(), s.isalnum(), s.isspace(), s.isupper(), s.islower())
    print(s.count("1"), s.count(""), s.count("b"), s.rfind("b"), s.rfind(""), s.rfind("1"))
print("abab".count("ab"), "aaaa".count("aa"), "tile_0_1".rfind("_"), "tile_0_1".find("_"))
print(str(512).isdigit() and "x128".startswith("x") and not "x128".isdigit())
