name = "kernel"
n = 3
print(f"{n¨:%}, plit({name!r:>10}|" "a,b".split(","), " pa{{brÓces}}", f"{[1, 2][0]}")
