"""Programs written the way users write numerical code, which adsrc refused, crashed on or took minutes for.

Found by running adsrc over other projects' test programs and over hand-written integrators, models and
tree utilities. Each is checked against central finite differences (test_changes.py) and, in forward mode
and as a Hessian-vector product, by test_forward.py; their inputs must come back unchanged.
"""

import dataclasses
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from casekit import Registry, rand

CASES = Registry()
case = CASES.case


# -- lists of tuples read back in reverse (what a gradient's tape is: forward over reverse went through the
#    alias analysis of every name unpacked from them, and took minutes or never ended)

def _oscillator(t, y, w):
    return np.array([y[1], -w * w * y[0] + 0.1 * np.cos(t)])


@case(np.array([0.8, -0.3]), 1.7, argnums=0, label="state")
@case(np.array([0.8, -0.3]), 1.7, argnums=1, label="frequency")
def classic_runge_kutta_with_named_stages(y0, w):
    h, t, y = 0.1, 0.0, y0
    for n in range(12):
        k1 = _oscillator(t, y, w)
        k2 = _oscillator(t + h / 2, y + h / 2 * k1, w)
        k3 = _oscillator(t + h / 2, y + h / 2 * k2, w)
        k4 = _oscillator(t + h, y + h * k3, w)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h
    return y @ y


@case(np.array([0.6, 0.2]), 4.0, argnums=1)
def backward_euler_solved_by_newton_with_a_break(y0, k):
    y = y0
    for n in range(4):
        z = y.copy()
        for it in range(8):
            r = z - y - 0.1 * np.array([-k * z[0] + z[1] ** 2, -z[1] + z[0] * z[1]])
            J = np.eye(2) - 0.1 * np.array([[-k, 2 * z[1]], [z[1], -1.0 + z[0]]])
            dz = np.linalg.solve(J, -r)
            z = z + dz
            if np.linalg.norm(dz) < 1e-13:
                break
        y = z
    return np.sum(y ** 2)


@case(rand(3))
def records_of_a_loop_replayed_backwards_into_an_accumulator(x):
    history = []
    h = x
    for i in range(3):
        a = np.tanh(h)
        history.append((a, h * 0.5, i))
        h = a * x
    acc = np.zeros(3)
    for a, half, i in reversed(history):
        acc[0] += np.sum(a * half)
        acc += (i + 1) * a
    return np.sum(acc ** 2)


# -- what those lists hold, when their items are changed in place afterwards (Python's sharing)

@case(rand(2))
def a_pair_taken_by_a_slice_then_its_array_changed(x):
    a = x * 1.0
    b = x * 2.0
    pairs = [(a, b), (b, a)]
    first, second = pairs[0:2]         # the pairs themselves, not their arrays
    a += 3.0 * x
    return np.sum(first[0] * second[1]) + np.sum(second[0])


@case(rand(2))
def a_list_repeated_then_its_array_changed(x):
    a = x * 1.0
    rows = [a] * 3
    a *= x
    return np.sum(rows[2]) + np.sum(rows[0] * x)


@case(rand(2))
def a_list_of_one_pair_repeated_then_its_array_changed(x):
    a = x * 1.0
    pairs = [(a, 1.0)] * 2             # the same tuple twice: both see the change
    a += x
    return sum(np.sum(p) * w for p, w in pairs)


@case(rand(2))
def an_array_appended_in_pairs_then_changed(x):
    h = x * 1.0
    kept = []
    for i in range(2):
        kept.append((h, i))
    h += x * x
    out = 0.0
    for a, k in kept:
        out = out + np.sum(a) * (k + 1)
    return out


@case(rand(2))
def pairs_changed_while_read_backwards(x):
    hist = []
    for i in range(3):
        hist.append((x * i, x + i))
    total = 0.0
    for u, v in reversed(hist):
        u += v
        total = total + np.sum(u * v)
    return total + np.sum(hist[1][0])


@case(rand(2))
def a_slice_of_a_list_repeated(x):
    rows = [x * 1.0, x * 2.0, x * 3.0]
    twice = rows[0:2] * 2                # a list of four arrays
    return np.sum(twice[3] * twice[0])


@case(rand(2))
def a_list_indexed_by_a_slice_object_then_an_item_set(x):
    rows = [x, x * 2.0, x * 3.0]
    window = slice(1, 3)
    part = rows[window]                  # a new list: setting its item leaves rows as it was
    part[0] = x * 10.0
    first, second = rows[window]
    return np.sum(part[0]) + np.sum(first * second)


# -- a method calling another method that calls the function an object was made with

class _Stepper:
    def __init__(self, rhs, dt):
        self.rhs = rhs
        self.dt = dt

    def step(self, y, t):
        k1 = self.rhs(y, t)
        k2 = self.rhs(y + self.dt * k1, t + self.dt)
        return y + 0.5 * self.dt * (k1 + k2)

    def run(self, y, n):
        ys = [y]
        for i in range(n):
            y = self.step(y, i * self.dt)
            ys.append(y)
        return np.stack(ys)


def _damped(y, t):
    return np.array([y[1], -y[0] - 0.3 * y[1]])


@case(np.array([1.0, -0.5]))
def a_stepper_holding_its_right_hand_side(y0):
    ys = _Stepper(_damped, 0.05).run(y0, 8)
    return np.sum(ys[:, 0] ** 2)


class _Objective:
    def __init__(self, f, reg):
        self.f = f
        self.reg = reg

    def value(self, x):
        return self.f(x) + self.reg * np.sum(x ** 2)


@case(rand(3))
def an_object_made_with_a_lambda(x):
    problem = _Objective(lambda v: np.sum(np.cos(v) * v), 0.5)
    return problem.value(x)


@case(rand(3))
def an_object_made_with_a_lambda_by_keyword_with_a_default(x):
    problem = _Objective(reg=0.1, f=lambda v, p=3: np.sum(v ** p))
    return 2.0 * problem.value(x)


class _Slotted:
    __slots__ = ("x", "w")

    def __init__(self, x, w=1.0):
        self.x = x
        self.w = w


@case(rand(2))
def objects_with_slots_holding_an_array_changed_later(x):
    a = x * 1.0
    held = [_Slotted(a, 2.0), _Slotted(x * 3.0)]
    a *= x                               # held[0].x is a
    return sum(np.sum(p.x) * p.w for p in held)


@case(rand(2), rand(2))
def an_object_with_slots_stepped_in_a_loop(x0, v0):
    p = _Slotted(x0, v0)
    for i in range(5):
        p.w = p.w - 0.1 * p.x
        p.x = p.x + 0.1 * p.w
    return np.sum(p.x ** 2 + p.w ** 2)


class _Square:
    def __init__(self, s):
        self.s = s

    def area(self):
        return self.s ** 2


class _Disc:
    def __init__(self, r):
        self.r = r

    def area(self):
        return np.pi * self.r ** 2


def _made(cls, v):
    return cls(v)


@case(1.5)
def objects_of_two_classes_summed_by_a_generator(x):
    shapes = [_Square(x), _Disc(0.5 * x)]
    return sum(s.area() for s in shapes)


@case(1.5)
def a_loop_over_classes(x):
    total = 0.0
    for cls in (_Square, _Disc):
        shape = cls(x)
        total += shape.area() + cls(2.0 * x).area()
    return total


@case(1.5)
def a_class_passed_to_a_helper_that_makes_the_object(x):
    return _made(_Square, x).s * _made(_Disc, x).r


# -- records replaced where their class is not known when transforming

class _Body(NamedTuple):
    x: np.ndarray
    v: np.ndarray
    m: float


@dataclass
class _Phase:
    q: np.ndarray
    p: np.ndarray


@case(rand(2, 2), np.array([1.0, 2.0]))
def namedtuples_replaced_in_a_list_rebuilt_each_step(x0, masses):
    bodies = [_Body(x0[i], np.zeros(2), masses[i]) for i in range(2)]
    for step in range(3):
        moved = []
        for i, b in enumerate(bodies):
            other = bodies[1 - i]
            d = other.x - b.x
            v = b.v + 0.1 * other.m * d / (np.sum(d * d) + 0.5)
            moved.append(b._replace(v=v, x=b.x + 0.1 * v))
        bodies = moved
    return sum(0.5 * b.m * np.sum(b.v ** 2) + np.sum(b.x) for b in bodies)


@case(_Body(np.array([0.5, -0.2]), np.array([0.1, 0.3]), 2.0), 0.7)
def a_namedtuple_argument_replaced(b, k):
    b2 = b._replace(v=b.v * k, m=b.m + k)
    return np.sum(b2.v * b2.x) * b2.m


@case(_Phase(np.array([1.0, 0.5]), np.array([0.0, -0.2])), 1.5)
def a_dataclass_argument_replaced_in_a_loop(state, k):
    for i in range(4):
        state = dataclasses.replace(state, p=state.p - 0.1 * k * state.q)
        state = dataclasses.replace(state, q=state.q + 0.1 * state.p)
    return state.q @ state.q + np.sum(state.p)


# -- type(x)(...) in tree utilities

def _tree_map(f, tree):
    if isinstance(tree, dict):
        return type(tree)((k, _tree_map(f, v)) for k, v in tree.items())
    if isinstance(tree, (list, tuple)):
        return type(tree)(_tree_map(f, v) for v in tree)
    return f(tree)


def _tree_sum(tree):
    if isinstance(tree, dict):
        return sum(_tree_sum(v) for v in tree.values())
    if isinstance(tree, (list, tuple)):
        return sum(_tree_sum(v) for v in tree)
    return np.sum(tree)


@case({"w": rand(2), "layers": [rand(3), (rand(1), 0.5)]})
def a_tree_map_that_rebuilds_each_container_by_its_type(params):
    return _tree_sum(_tree_map(lambda v: np.sin(v) * v, params))


@case(rand(3))
def a_float_made_like_another(x):
    scale = type(1.0)(x[0] * 2.0)
    return scale * np.sum(x ** 2)


# -- math's gamma functions

@case(np.array([0.7, 2.5, 6.0]))
def math_lgamma_and_gamma(x):
    return sum(math.lgamma(v) + 0.1 * math.gamma(v) for v in x)


@case(np.array([-2.5, 0.3, 17.0]))
def math_lgamma_of_negative_and_large_values(x):
    return sum(math.lgamma(v) * v for v in x)


class _Mass:
    def __init__(self, pos, mass):
        self.pos, self.vel, self.mass = pos, np.zeros_like(pos), mass

    def step(self, force, dt):
        self.vel = self.vel + dt * force / self.mass
        self.pos = self.pos + dt * self.vel

    def kinetic(self):
        return 0.5 * self.mass * np.sum(self.vel ** 2)


class _Masses:
    def __init__(self, bodies, k):
        self.bodies, self.k = bodies, k

    def forces(self):
        return [-self.k * b.pos for b in self.bodies]

    def run(self, n):
        for _ in range(n):
            for b, f in zip(self.bodies, self.forces()):     # the class of `b` known through zip
                b.step(f, 0.1)
        return sum(b.kinetic() for b in self.bodies)


@case(rand(3, 2), 0.7, argnums=(0, 1))
def bodies_stepped_in_a_loop_over_zip(P, k):
    return _Masses([_Mass(P[i], 1.0 + i) for i in range(3)], k).run(3)


@case(rand(2, 2))
def loop_variable_also_a_generators_variable(X):
    bodies = [_Mass(X[0], 1.0), _Mass(X[1], 2.0)]
    for b in bodies:                   # `b` is bound again by the generator below, in its own scope
        b.step(b.pos * 2.0, 0.5)
    return sum(b.kinetic() + np.sum(b.pos ** 2) for b in bodies)


@case(rand(2, 2))
def an_item_of_a_list_of_objects_bound_in_a_loop_then_changed(X):
    bodies = [_Mass(X[0], 1.0), _Mass(X[1], 2.0)]
    for i in range(len(bodies)):
        body = bodies[i]                 # the name's only binding: its class is known in each step
        body.step(X[1 - i], 0.5)
    return sum(b.kinetic() + np.sum(b.pos ** 3) for b in bodies)


# -- objects of several classes taken from a list by index in a loop (each method call a branch on the class)

class _Walker:
    def __init__(self, pos):
        self.pos = pos

    def step(self, f):
        self.pos = self.pos + f

    def energy(self):
        return np.sum(self.pos ** 2)


class _Backwards(_Walker):
    def step(self, f):
        self.pos = self.pos - 2.0 * f * self.pos


@case(np.array([[0.3, 0.2], [0.5, -0.4]]))
def objects_of_two_classes_taken_by_index_in_a_loop(X):
    # `p = ps[i]; p.step(...)` with ps holding a _Walker and a _Backwards: refused, adsrc did not know what p was
    ps = [_Walker(X[0]), _Backwards(X[1])]
    for i in range(len(ps)):
        p = ps[i]
        p.step(p.pos * 0.5)
    return sum(p.energy() for p in ps) + ps[1].pos[0] * X[0, 1]


@case(np.array([[0.3, 0.2], [0.5, -0.4]]))
def objects_of_two_classes_appended_then_taken_by_index(X):
    # the list built by append (two classes): each step changes the list's object, read again after the loop
    ps = []
    for i in range(2):
        ps.append(_Walker(X[i] * (i + 1.0)))
    ps.append(_Backwards(X[0]))
    tot = 0.0
    for i in range(3):
        p = ps[i]
        p.step(X[1])
        tot = tot + p.energy()
    ps[0].step(X[0])                # (an item's method called directly: the branch on its class too)
    return tot + ps[2].energy() * ps[0].pos[1]
