"""Derivative rules for scipy.signal.convolve / correlate (N-dimensional; modes full, same, valid).
Loaded once the program has imported scipy.signal.

convolve(in1, in2) is bilinear and holomorphic in each input: the full convolution's cotangent for
in1 is the 'valid' correlation of the full-size cotangent with in2 (correlate conjugates its second
argument, so in2 enters conjugated), and likewise for in2. The 'same' and 'valid' outputs are slices
of the full one: their cotangent is placed into a zero full-size cotangent first.
correlate(in1, in2, mode) = convolve(in1, conj(flip(in2)), mode) in every mode.
"""

import numpy as np
import scipy.signal as ss

from ..runtime import helper
from . import general


def _full_cot(g, s1, s2, mode):
    """g (the cotangent of the mode's output) placed into a zero cotangent of the full convolution."""
    full = tuple(a + b - 1 for a, b in zip(s1, s2))
    g = np.asarray(g)
    if mode == "full":
        return np.broadcast_to(g, full)
    if mode == "same":
        out_shape, start = s1, [(b - 1) // 2 for b in s2]
    else:
        out_shape, start = tuple(abs(a - b) + 1 for a, b in zip(s1, s2)), [min(a, b) - 1 for a, b in zip(s1, s2)]
    out = np.zeros(full, dtype=complex if np.iscomplexobj(g) else float)
    out[tuple(slice(st, st + n) for st, n in zip(start, out_shape))] = np.broadcast_to(g, out_shape)
    return out


def _conj(x):
    return np.conjugate(x) if np.iscomplexobj(x) else x


@helper
def signal_convolve_vjp(g, in1, in2, mode, k):
    """Cotangent of in1 (k = 0) or in2 (k = 1) in scipy.signal.convolve(in1, in2, mode)."""
    in1, in2 = np.asarray(in1), np.asarray(in2)
    gf = _full_cot(g, in1.shape, in2.shape, mode)
    other = in2 if k == 0 else in1
    return ss.correlate(gf, _conj(other), mode="valid", method="direct")


@helper
def signal_correlate_vjp(g, in1, in2, mode, k):
    """correlate(in1, in2) = convolve(in1, w) with w = conj(flip(in2)): in2's cotangent is conj(flip(w_bar))."""
    in2 = np.asarray(in2)
    w = _conj(np.flip(in2))
    if k == 0:
        return signal_convolve_vjp(g, in1, w, mode, 0)
    return _conj(np.flip(signal_convolve_vjp(g, in1, w, mode, 1)))


general(ss.convolve, "scipy.signal.convolve", "in1, in2, mode='full', method='auto'",
        in1="signal_convolve_vjp(g, in1, in2, mode, 0)", in2="signal_convolve_vjp(g, in1, in2, mode, 1)")
general(ss.correlate, "scipy.signal.correlate", "in1, in2, mode='full', method='auto'",
        in1="signal_correlate_vjp(g, in1, in2, mode, 0)", in2="signal_correlate_vjp(g, in1, in2, mode, 1)")
