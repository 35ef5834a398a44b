# `from dataclasses import dataclass` and `enum` in kernel helper code (tile configs, modes);
# prints what CPython prints.
from dataclasses import dataclass, field, asdict, astuple, replace
import dataclasses
from enum import Enum, IntEnum, auto


@dataclass
class TileShape:
    rows: int
    cols: int = 512
    dtype: str = "float32"

    def elements(self):
        return self.rows * self.cols


@dataclass(frozen=True)
class Config:
    name: str
    tiles: list = field(default_factory=list)
    scale: float = field(default=1.0, repr=False)


@dataclass
class Derived(TileShape):
    bufs: int = 2

    def __post_init__(self):
        self.total = self.elements() * self.bufs


t = TileShape(128)
print(t, t.elements(), TileShape(64, 256) == TileShape(64, 256), TileShape(1) == TileShape(2))
t.cols = 1024
print(t.cols, repr(t), asdict(t), astuple(t))
c = Config("mm", [t.rows])
print(c, c.tiles, c.scale, Config("a").tiles)
try:
    c.name = "other"
except AttributeError:
    print("frozen")
d = Derived(32, bufs=3)
print(d, d.total, replace(d, rows=8), [f.name for f in dataclasses.fields(d)])
try:
    TileShape()
except TypeError:
    print("rows is required")


class Mode(Enum):
    TRANSPOSE = 1
    DIRECT = 2
    ALIAS = 1

    def describe(self):
        return self.name.lower()


class Engine(IntEnum):
    VECTOR = auto()
    SCALAR = auto()
    GPSIMD = 7
    TENSOR = auto()


print(Mode.TRANSPOSE, repr(Mode.DIRECT), Mode.TRANSPOSE.name, Mode.TRANSPOSE.value, Mode.ALIAS is Mode.TRANSPOSE)
print(Mode(2), Mode["DIRECT"], list(Mode), len(Mode), Mode.DIRECT in Mode, Mode.DIRECT.describe())
print(Mode.TRANSPOSE == Mode.TRANSPOSE, Mode.TRANSPOSE == Mode.DIRECT, Mode.TRANSPOSE == 1, isinstance(Mode.DIRECT, Mode))
print([e.value for e in Engine], repr(Engine.GPSIMD), Engine.SCALAR == 2, Engine.VECTOR + 1, Engine.TENSOR < 10)
print(list(range(Engine.SCALAR)), int(Engine.GPSIMD), [1, 2, 3, 4][Engine.VECTOR], Engine(7).name)
mode = Mode.DIRECT
if mode == Mode.DIRECT:
    print("direct path")
try:
    Mode(5)
except ValueError as e:
    print("ValueError:", e)
