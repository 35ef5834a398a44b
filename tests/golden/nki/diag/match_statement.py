# A Python 3.10 match statement on a shape, as an assistant might dispatch on the rank: outside the
# kernel subset, refused by name (not "invalid syntax"); `match` stays usable as a name.
match = {"rank": 2}


def pick(shape):
    match len(shape):
        case 2:
            return "2d"
        case _:
            return "nd"


print(pick((128, 64)))
