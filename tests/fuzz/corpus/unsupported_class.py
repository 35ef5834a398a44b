x = 1
class Foo:
    pass
