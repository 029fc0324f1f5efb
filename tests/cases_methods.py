"""List, dict and array methods that change their object, and builtins that pass values through.

One program per helper in rules/containers.py and rules/sharing.py, checked
against central finite differences (inputs unchanged).
"""

import collections
import copy

import numpy as np

from casekit import Registry, rand

CASES = Registry()
case = CASES.case


@case(rand(3))
def list_extend_insert_pop(x):
    lst = [x[0], x[1] * 2.0]
    lst.extend(x * 3.0)
    lst.insert(1, np.sin(x[2]))
    last = lst.pop()
    first = lst.pop(0)
    return sum(v * (i + 1.0) for i, v in enumerate(lst)) + last * first


@case(rand(3))
def list_extend_by_an_array(x):
    lst = [x[0]]
    lst.extend(x ** 2)
    return lst[2] * lst[0] + sum(lst)


@case(rand(4))
def list_remove_clear_reverse(x):
    lst = [x[0], 5.0, x[1], x[2]]
    lst.remove(5.0)
    lst.reverse()
    other = [x[3]]
    other.clear()
    other.append(x[0] * 2.0)
    return lst[0] * 2.0 + lst[2] + other[0] ** 2


@case(rand(4))
def list_sort_with_key_and_reverse(x):
    lst = [x[0] * 2.0, x[1], x[2] - 1.0, x[3]]
    lst.sort()
    top = sorted(lst, key=lambda v: -v)
    by = sorted(lst, reverse=True)
    return lst[0] * 3.0 + top[0] * 2.0 + by[1] + lst[-1] ** 2


@case(rand(2, 3))
def array_sort_and_fill(x):
    y = x * 1.0
    y.sort()
    z = np.zeros(3)
    z.fill(x[0, 0])
    return np.sum(y * np.arange(3.0)) + np.sum(z * np.arange(1.0, 4.0))


@case(rand(3))
def dict_update_setdefault_pop_del(x):
    d = {"a": x * 1.0}
    d.update({"b": x ** 2, "c": np.tanh(x)})
    v = d.setdefault("e", x * 4.0)
    w = d.setdefault("a", x * 9.0)
    c = d.pop("c")
    missing = d.pop("zzz", x[0])
    del d["b"]
    return np.sum(v * w) + np.sum(c) + missing + np.sum(d["a"]) * len(d)


@case(rand(3))
def dict_of_pairs_and_keywords(x):
    d = dict([("a", x[0]), ("b", x[1])], c=x[2] * 2.0)
    e = dict(d)
    return d["a"] * e["c"] + e["b"] ** 2


@case(rand(3), rand(3), argnums=(0, 1))
def zip_enumerate_reversed_as_values(x, y):
    pairs = list(zip(x, y))
    numbered = list(enumerate(x, 1))
    back = list(reversed(x))
    return sum(a * b for a, b in pairs) + sum(i * v for i, v in numbered) + back[0] * 3.0


@case(rand(5))
def add_at_with_repeated_indices(x):
    y = np.zeros(3)
    np.add.at(y, [0, 0, 2, 1, 0], x)
    np.subtract.at(y, [1], x[1] * 2.0)
    return np.sum(y ** 2)


@case(rand(3))
def fill_diagonal_and_copyto(x):
    a = np.ones((3, 3))
    np.fill_diagonal(a, x)
    b = np.zeros(3)
    np.copyto(b, x ** 2)
    return np.sum(np.exp(a * 0.5)) + np.sum(b * a[0])


@case(rand(2, 3))
def write_through_views_of_views(x):
    a = x * 1.0
    t = a.T
    col = t[1]
    col[0] = x[0, 2] ** 3                 # a[0, 1]
    flat = a.reshape(-1)
    flat[-1] = 2.0 * x[1, 0]              # a[1, 2]
    return np.sum(a ** 2) + np.sum(t)


_Pt = collections.namedtuple("_Pt", "x y")


@case(rand(3))
def field_of_a_namedtuple_changed_in_place(x):
    p = _Pt(x * 1.0, x ** 2)
    q = p
    p.x[0] = 3.0 * x[1]
    return np.sum(q.x * q.y)


@case(rand(3))
def objects_in_a_container_changed_through_another_name(x):
    rows = [x * 1.0, x * 2.0]
    table = {"first": rows[0]}
    r = rows[0]
    r += 1.0
    return np.sum(table["first"] ** 2) + np.sum(rows[1])


@case(rand(3))
def list_holding_an_array_changed_through_its_row(x):
    A = np.outer(x, x)
    lst = [A, x]
    row = A[0]
    row[0] = 5.0 * x[1]
    return np.sum(lst[0] ** 2) + np.sum(A)


@case(rand(3))
def copy_module_copies(x):
    lst = [x * 1.0, x[0]]
    shallow = copy.copy(lst)
    deep = copy.deepcopy(lst)
    deep[0][0] = 9.0                      # the deep copy's array is its own
    shallow.append(x[1])
    return np.sum(lst[0] ** 2) + np.sum(deep[0]) * shallow[2] + len(shallow)


class _Particle:
    def __init__(self, v):
        self.v = v

    def kinetic(self):
        return np.sum(self.v ** 2)


class _Spring:
    def __init__(self, v):
        self.v = v

    def kinetic(self):
        return np.sum(np.sin(self.v) * self.v)


def _slow_down(items, k):
    for p in items:
        p.v = p.v * k


class _Vec:
    def __init__(self, d):
        self.d = d

    def __add__(self, o):
        return _Vec(self.d + o.d) if isinstance(o, _Vec) else _Vec(self.d + o)

    def __radd__(self, o):
        return self.__add__(o)

    def norm2(self):
        return np.sum(self.d ** 2)


@case(np.array([0.3, -0.8]))
def objects_in_lists_after_a_helper_changes_them(x):
    # a generator over a list of objects calling their method (refused), a list of objects of two classes
    # handed to a helper that changes their fields then looped over (refused), sum(vs) of a named list of
    # objects with __radd__ (refused: sum([...]) written out worked)
    ps = [_Particle(x * 1.0), _Particle(x * 2.0)]
    _slow_down(ps, 0.5)
    energy = sum(p.kinetic() for p in ps)
    mixed = [_Particle(x + 1.0), _Spring(x * 3.0)]
    _slow_down(mixed, 0.25)
    total = 0.0
    for m in mixed:
        total = total + m.kinetic()
    vs = [_Vec(x), _Vec(2.0 * x), _Vec(x ** 2)]
    return energy + total + sum(vs).norm2()


class _Layer:
    def __init__(self, W):
        self.W = W

    def __call__(self, x):
        return x @ self.W


class _Net:
    def __init__(self, Ws):
        self.layers = [_Layer(W) for W in Ws]

    def __len__(self):
        return len(self.layers)

    def __getitem__(self, i):
        return self.layers[i]

    def __call__(self, x):
        for i in range(len(self)):
            x = np.tanh(self[i](x))
        return x


class _Link:
    def __init__(self, k, rest):
        self.k, self.rest = k, rest

    def energy(self, a, b):
        return 0.5 * self.k * (np.linalg.norm(b - a) - self.rest) ** 2


@case(np.array([[0.5, 0.1], [0.2, 0.3]]), np.array([[1.0, 0.2], [-0.5, 0.4]]),
      np.array([[0.3, -0.2], [1.1, 0.4], [0.2, 1.5]]))
def items_of_containers_of_objects_called(W1, W2, X):
    # `self[i](x)` with __getitem__ returning a layer, and `for i, s in enumerate(springs)` over a list of
    # objects: both were refused (their class was lost)
    out = np.sum(_Net([W1, W2])(np.array([1.0, -1.0])))
    springs = [_Link(2.0 + k, 1.0) for k in range(X.shape[0] - 1)]
    energy = 0.0
    for i, s in enumerate(springs):
        energy = energy + s.energy(X[i], X[i + 1])
    return out + energy
