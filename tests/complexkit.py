"""Finite differences for real-valued functions of complex arguments (JAX's convention).

For a real loss L of z = x + iy, adsrc.grad returns dL/dx - i dL/dy. check_complex_grad
compares each element of adsrc's gradient with central differences along the real and
along the imaginary direction of that element.
"""

import numpy as np

import adsrc


class ComplexMismatch(AssertionError):
    pass


def reduce_complex(out, W1, W2):
    """A real scalar from any output: sum(Re(out) W1 + Im(out) W2), summed over tuple outputs."""
    if isinstance(out, (tuple, list)):
        return sum(reduce_complex(o, w1, w2) for o, w1, w2 in zip(out, W1, W2))
    return np.sum(np.real(out) * W1) + np.sum(np.imag(out) * W2)


def complex_objective(fn, nargs, W1, W2):
    if nargs == 1:
        def cobj1(a):
            return reduce_complex(fn(a), W1, W2)
        return cobj1
    if nargs == 2:
        def cobj2(a, b):
            return reduce_complex(fn(a, b), W1, W2)
        return cobj2
    if nargs == 3:
        def cobj3(a, b, c):
            return reduce_complex(fn(a, b, c), W1, W2)
        return cobj3
    if nargs == 4:
        def cobj4(a, b, c, d):
            return reduce_complex(fn(a, b, c, d), W1, W2)
        return cobj4
    if nargs == 5:
        def cobj5(a, b, c, d, e):
            return reduce_complex(fn(a, b, c, d, e), W1, W2)
        return cobj5
    raise ValueError(f"no objective for {nargs} arguments")


def check_complex_grad(f, args, argnum, rtol=1e-5, atol=1e-6, eps=1e-6):
    """adsrc.grad(f, argnum) at args against central differences in both directions of every element."""
    g = adsrc.grad(f, argnums=argnum)(*args)
    z = args[argnum]
    if np.shape(g) != np.shape(z):
        raise ComplexMismatch(f"gradient shape {np.shape(g)} for an argument of shape {np.shape(z)}")
    if np.any(np.isnan(g)) or not np.all(np.isfinite(g)):
        raise ComplexMismatch(f"the gradient is not finite: {g}")
    scale = max(1.0, float(np.max(np.abs(z))))
    h = eps * scale

    def value(shift, idx):
        new = list(args)
        if np.ndim(z) == 0:
            new[argnum] = type(z)(z + shift)
        else:
            zz = np.array(z, dtype=complex)
            zz[idx] += shift
            new[argnum] = zz
        return float(f(*new))

    for idx in np.ndindex(np.shape(z)):
        d_re = (value(h, idx) - value(-h, idx)) / (2 * h)
        d_im = (value(1j * h, idx) - value(-1j * h, idx)) / (2 * h)
        if not (np.isfinite(d_re) and np.isfinite(d_im)):
            raise ComplexMismatch(f"finite differences are not finite at {idx}")
        want = d_re - 1j * d_im
        got = complex(np.asarray(g)[idx])
        if abs(got.real - want.real) > atol + rtol * abs(want.real) or \
                abs(got.imag - want.imag) > atol + rtol * abs(want.imag):
            raise ComplexMismatch(f"at {idx}: adsrc {got}, finite differences {want} (d/dx - i d/dy)")
    return g
