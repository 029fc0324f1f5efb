"""Statements of the program generator (methods of progen.Gen) written with classes, the way users write
models: an object made from the function's values, its fields changed (a method, `o.w = ...`, `o.b += ...`),
then called, or a property or field read; a stack of layers made in `__init__` by a list comprehension,
with a base class whose `__init__` it calls through super()."""

CLASSES = '''

class Affine:
    def __init__(self, w, b):
        self.w = w
        self.b = b
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return np.tanh(x * self.w + self.b)

    def scale(self, c):
        self.w = self.w * c

    @property
    def energy(self):
        return np.sum(self.w ** 2) + self.b


class Base:
    def __init__(self, k):
        self.k = k


class Stack(Base):
    def __init__(self, ws):
        super().__init__(0.5)
        self.layers = [Affine(w, 0.1) for w in ws]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x * self.k
'''.splitlines()


def _pad(ind):
    return "    " * ind


def s_object(self, L, ind, sc, ctx, depth):
    r, pad = self.r, _pad(ind)
    self.objects = True
    o, y = self.name("o"), self.name("y")
    if r.random() < 0.3:
        ws = [str(self.e((3,), sc, 1)) for _ in range(r.randint(1, 3))]
        L.append(f"{pad}{o} = Stack([{', '.join(ws)}])")
        L.append(f"{pad}{y} = {o}({self.e((3,), sc, 1)})")
        sc.set(y, (3,), False)
        return
    w_shape = r.choice([(), (3,)])
    L.append(f"{pad}{o} = Affine({self.e(w_shape, sc, 1)}, {self.e((), sc, 1)})")
    for _ in range(r.randint(0, 2)):
        k = r.random()
        if k < 0.35:
            L.append(f"{pad}{o}.scale({self.e((), sc, 1)})")
        elif k < 0.7:
            t = r.choice([(), (3,)])
            L.append(f"{pad}{o}.w = {o}.w * {self.e(t, sc, 1)}")
            w_shape = max(w_shape, t)
        else:
            L.append(f"{pad}{o}.b += {self.e((), sc, 1)}")
    use = r.random()
    if use < 0.5:
        L.append(f"{pad}{y} = {o}({self.e((3,), sc, 1)})")
        t = (3,)
    elif use < 0.75:
        L.append(f"{pad}{y} = {o}.energy")
        t = ()
    else:
        L.append(f"{pad}{y} = {o}.w * {o}.b")
        t = w_shape
    if r.random() < 0.3:
        L.append(f"{pad}{y} = {y} + {o}({self.e((3,), sc, 1)}) * {o}.calls" if t == (3,) else
                 f"{pad}{y} = {y} * {o}.calls")
    sc.set(y, t, False)
