"""Scientific and numerical programs as people write them (integrators, simulations, likelihoods, kernels,
finance, objectives) that adsrc refused or got wrong. Checked against central finite differences by
test_changes.py and in forward mode by test_forward.py.
"""

import numpy as np

import science_module
from casekit import Registry, rand

CASES = Registry()
case = CASES.case


# -- a function of a class (or a module) of the user's taken by a name known only when the code runs

class _Activations:
    gain = 2.0

    @staticmethod
    def relu(z):
        return np.maximum(z, 0.0)

    @staticmethod
    def tanh(z):
        return np.tanh(z)

    @classmethod
    def scaled(cls, z):
        return cls.gain * z ** 2

    def plain(z):                  # a function in a class body, read from the class itself
        return np.sin(z) * z


@case(np.array([0.3, -0.7, 1.2]), "tanh", label="staticmethod")
@case(np.array([0.3, -0.7, 1.2]), "relu", label="other_staticmethod")
@case(np.array([0.3, -0.7, 1.2]), "scaled", label="classmethod")
@case(np.array([0.3, -0.7, 1.2]), "plain", label="function")
def activation_taken_from_a_class_by_a_name_known_when_it_runs(x, name):
    act = getattr(_Activations, name)
    return np.sum(act(x) ** 2) + np.sum(getattr(_Activations, name)(2.0 * x))


@case(np.array([0.3, -0.7, 1.2]), "softplus", label="softplus")
@case(np.array([0.3, -0.7, 1.2]), "cube", label="cube")
def function_taken_from_a_module_by_a_name_known_when_it_runs(x, name):
    f = getattr(science_module, name)
    return np.sum(f(x) * x)
