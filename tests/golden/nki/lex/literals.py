a = 0x1F + 0o17 + 0b101 + 1_000 + 0
b = 1.5 + .5 + 1e-05 + 2E+3 + 3.
s = 'single' "double" r'raw\n' '\t\x41\\'
t = """triple
quoted"""
f = f"x={a:>4} {b!r} {{lit}}"
