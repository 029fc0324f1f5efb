"""More programs written the way users write numerical code, which adsrc refused: functions chosen from a table by
a key known only when the code runs and bound to a name, tables of a nested function, lists of functions built by
`append` after other statements, and lists of objects returned by a helper.

Each is checked against central finite differences (test_changes.py) and, in forward mode and as a Hessian-vector
product, by test_forward.py; their inputs must come back unchanged. (Views held at indices known only when the code
runs: test_located_views.py; rectangular scipy.linalg.lu: test_scipy_rules.py.)
"""

import numpy as np

from casekit import Registry, rand

CASES = Registry()
case = CASES.case

ACTIVATIONS = {"tanh": np.tanh, "cos": np.cos, "softplus": lambda z: np.log1p(np.exp(z))}


# -- act = acts[kind], kind known only when the code runs, then act(x) (a branch per entry where act is called)

@case(rand(3), "sin", label="sin")
@case(rand(3), "square", label="lambda")
def activation_chosen_from_a_local_dict(x, kind):
    acts = {"tanh": np.tanh, "sin": np.sin, "square": lambda z: z * z}
    act = acts[kind]
    return np.sum(act(x) ** 2) + np.sum(act(2.0 * x))


@case(rand(3), "softplus")
def activation_chosen_from_a_global_dict_then_the_key_rebound(x, kind):
    act = ACTIVATIONS[kind]
    kind = "tanh"            # (act stays the function chosen before)
    return np.sum(act(x)) * len(kind)


@case(rand(3), [0, 2, 1, -1])
def activations_chosen_from_a_list_in_a_loop(x, picks):
    acts = [np.tanh, np.sin, lambda z: np.exp(-z * z)]
    for k in picks:
        act = acts[k]
        x = act(x) * 1.5
    return np.sum(x)


# -- tables of functions inside a nested function

@case(rand(3), "b", label="numpy")
@case(rand(3), "a", label="lambda")
def tables_of_a_nested_function(x, kind):
    def inner(y):
        acts = {"a": lambda z: z * z, "b": np.sin}
        fl = [np.tanh, lambda z: np.exp(-z)]
        f = acts[kind]
        return np.sum(f(y)) + np.sum(acts[kind](y)) + np.sum(fl[1](y)) + np.sum(fl[-2](y))
    return inner(x) + inner(2.0 * x)


@case(rand(3), 1)
def table_of_the_outer_function_read_in_a_nested_one(x, k):
    fs = [np.cos, lambda z: z ** 3]

    def inner(y):
        f = fs[k]
        return np.sum(f(y))
    return inner(x) * inner(x + 1.0)


# -- fs.append(lambda ...) in a loop whose body computes first

@case(rand(3))
def lambdas_appended_after_computing_their_scale(x):
    fs = []
    for i in range(3):
        s = 0.5 * (i + 1)
        c = np.cos(s) + 1.0
        fs.append(lambda z, s=s, c=c: np.sin(s * z) * c)
    out = 0.0
    for f in fs:
        out = out + np.sum(f(x))
    return out + s          # (s after the loop: its last value)


@case(rand(3), rand(3), argnums=(0, 1))
def defs_appended_after_taking_a_weight(x, W):
    fs = []
    for i in range(3):
        w = W[i]

        def g(z, w=w):
            h = np.tanh(w * z)
            return h * h
        fs.append(g)
    return sum(np.sum(f(x)) for f in fs)


@case(rand(3))
def lambdas_appended_reading_the_scale_late(x):
    fs = []
    for i in range(3):
        s = 0.5 * (i + 1)
        fs.append(lambda z: np.sin(s * z))      # (each reads s when called: 1.5)
    return sum(np.sum(f(x)) for f in fs)


# -- a list of objects made by a helper

class _Layer:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(self.w @ x)


def _make_layers(ws):
    return [_Layer(w) for w in ws]


def _append_layers(ws):
    out = []
    for w in ws:
        out.append(_Layer(w))
    return out


@case(rand(3), [rand(3, 3), rand(3, 3)], argnums=(0, 1))
def layers_made_by_a_helper(x, ws):
    layers = _make_layers(ws)
    for L in layers:
        x = L(x)
    return np.sum(x)


@case(rand(3), [rand(3, 3), rand(3, 3)], argnums=(0, 1))
def layers_appended_by_a_helper_then_indexed(x, ws):
    layers = _append_layers(ws)
    y = layers[0](x)
    for L in layers:
        y = L(y)
    return np.sum(y) + sum(np.sum(L.w ** 2) for L in layers)
