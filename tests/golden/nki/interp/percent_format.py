# printf-style formatting with the str `%` operator, as older kernels and their assert messages
# write it ("tile_%d" % i, "shapes differ: %s vs %s" % (a, b)). Expected output is CPython's.
print("tile_%d" % 7, "%s vs %s" % ((128, 512), (128, 256)), "%r" % "ab", "%5.2f|%-6d|%06.1f" % (3.14159, 42, -2.5))
print("%x %X %o %#x %#o %e %E %g %G" % (255, 255, 8, 255, 8, 12345.678, 0.00012, 1e-5, 2.5e10))
print("%+d % d %+.3e %.0f %.10g %g" % (5, 5, -1.5, 2.5, 1.0 / 3.0, 100000000.0))
print("%*d|%-*d|%.*f|%5s|%-5s|%.2s" % (6, 42, 4, 7, 2, 3.14159, "ab", "ab", "abcdef"))
print("%(rows)d x %(cols)d %(name)s" % {"rows": 128, "cols": 512, "name": "tile"})
print("%d %i %u %d" % (3.9, -3.9, 7, True), "%c%c" % (65, "b"), "100%%", "%s" % [1, 2], "%s" % None)
print("%05d|%-05d|%5.3d|% 05.1f|%+05d" % (-42, 42, 7, 2.25, 9))
for fmt, args in [("%d", "x"), ("%d %d", (1,)), ("%d", (1, 2)), ("%(a)d", (1,)), ("%z", 1)]:
    try:
        print(fmt % args)
    except TypeError:
        print("TypeError")
    except ValueError:
        print("ValueError")
