x = 1


@decorate
class Foo(Base, object):
    """A class."""
    size: int = 4
    scale: float

    def __init__(self, n):
        self.n = n

    def total(self):
        return self.n * Foo.size
