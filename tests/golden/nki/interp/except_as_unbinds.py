# `except E as e:` unbinds e when its handler ends, as Python does (the handler runs as if followed
# by `del e` in a `finally`): a name bound before the try is gone too, and so is one whose handler
# left by raising.
e = "before"
try:
    raise ValueError("boom")
except ValueError as e:
    print("caught:", e)
try:
    print(e)
except NameError:
    print("NameError: e unbound after its handler")

try:
    try:
        raise KeyError("k")
    except KeyError as k:
        raise ValueError("again")
except ValueError as v:
    print("outer:", v)
for name in ("k", "v"):
    try:
        print(k if name == "k" else v)
    except NameError:
        print("NameError:", name, "unbound")
