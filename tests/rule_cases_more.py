"""More rule cases (imported at the end of rule_cases.py): the NumPy functions of issue 13, the
`operator` module, dict(...), d.get and sorted. Same conventions as rule_cases.py."""

import operator
import warnings

import numpy as np

from rule_cases import RuleCase, add, away, case, pos, rand, spread

# cases of rules outside NumPy's tables (np.r_[...], operator, dict, sorted): checked by test_more_rules.py
OTHER_CASES = []


def other_case(rules, *args, rtol=1e-5, atol=1e-6, label=None):
    rules = (rules,) if isinstance(rules, str) else rules

    def deco(fn):
        OTHER_CASES.append(RuleCase(fn, args, rules, rtol, atol, label))
        return fn
    return deco

# -- np.r_ / np.c_ (subscripts that compute) -----------------------------------------------------------------


@other_case("np.r_[...]", rand(3), rand(2, 2), 0.7)
def r_items(x, m, s):
    return np.r_[x, 2.0 * x, s, m[0], 0:2, [0.5, 0.25]] * np.r_[s, x, m[1], 1.0, 0.0, 1.0, 2.0, x[:1] ** 2, 0.5, 1.5]


@other_case("np.r_[...]", rand(2, 3), rand(1, 3))
def r_rows_and_directive(a, b):
    return np.r_[a, b] + 0.5 * np.r_["0,2", b[0], a[1]][[0, 1, 0]] + np.r_["1", b, b][:, 1:4]


@other_case("np.c_[...]", rand(3), rand(3, 2))
def c_columns(x, m):
    return np.c_[x, m, 3.0 * x] * np.c_[m, x, x]


# -- einsum in sublist form ------------------------------------------------------------------------------------

@case("np.einsum", rand(2, 3))
def einsum_sublist_one_operand(a):
    return np.einsum(a, [0, 1], [1, 0]) * np.arange(6.0).reshape(3, 2) + np.einsum(a, [0, 1])[0][:, None]


@case("np.einsum", rand(2, 3), rand(3, 4), rand(4))
def einsum_sublist_three_operands(a, b, c):
    return np.einsum(a, [0, 1], b, [1, 2], c, [2], [0]) + np.einsum(a, [Ellipsis, 1], b, [1, 2])[:, 0]


# -- np.std over axes of length 1 (the gradient is 0, not NaN) -------------------------------------------------------

@case(("np.std", "np.nanstd", "ndarray.std()"), rand(1, 4))
def std_axis_of_length_one(x):
    return (np.std(x, axis=0) + np.nanstd(x, axis=0) + x.std(axis=0) * 2.0 + np.std(x[:, :1])
            + np.std(x, axis=1, ddof=0)[0])


# -- joining with dtype, cross products of 2-vectors, pad(mode="mean"), qr of wide matrices -----------------------

@case(("np.vstack", "np.hstack", "np.concatenate", "np.stack"), rand(3), rand(3))
def joining_with_dtype(a, b):
    return (np.vstack([a, b], dtype=float) + np.hstack([a, b], dtype=np.float64).reshape(2, 3)
            + np.concatenate([a, b], dtype=float).reshape(2, 3) + np.stack([a, b], dtype=float)
            + np.vstack([a, b], dtype=int, casting="unsafe") * 0.0)


def cross_2d(a, b):
    return np.cross(a, b)


def _cross_takes_2_vectors():
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.cross(np.ones(2), np.ones(2))
        return True
    except ValueError:          # NumPy >= 2.5 (deprecated in 2.0)
        return False


if _cross_takes_2_vectors():
    add(cross_2d, "np.cross", rand(4, 2), rand(2), label="2x2")
    add(cross_2d, "np.cross", rand(2), rand(3), label="2x3")
    add(cross_2d, "np.cross", rand(3, 3), rand(3, 2), label="3x2")


@case("np.pad", rand(3, 4))
def pad_mean(x):
    return np.pad(x, ((1, 2), (2, 1)), mode="mean")


@case("np.pad", rand(4, 5), label="stat_length")
def pad_mean_stat_length(x):
    return np.pad(x, ((2, 1), (0, 2)), mode="mean", stat_length=((1, 3), (2, 2)))


@case("np.pad", rand(5), label="1d")
def pad_mean_1d(x):
    return np.pad(x, 3, mode="mean", stat_length=2) + np.pad(x, (1, 0), mode="mean")[:-1].sum()


@case("np.linalg.qr", rand(2, 4))
def qr_wide(a):
    return np.linalg.qr(a)


@case("np.linalg.qr", rand(2, 3, 5))
def qr_wide_stack(a):
    q, r = np.linalg.qr(a)
    return np.sum(q * q[..., ::-1], axis=-1)[..., None] * r


# -- np.linalg: svd(compute_uv=False), lstsq, eig, eigvals ------------------------------------------------------

@case("np.linalg.svd", rand(4, 3))
def svd_values_only(a):
    return np.linalg.svd(a, compute_uv=False) + np.linalg.svd(a * 2.0, full_matrices=False, compute_uv=False)


@case("np.linalg.lstsq", rand(5, 3), rand(5))
def lstsq_vector(a, b):
    x, res, rank, s = np.linalg.lstsq(a, b, rcond=None)
    return np.concatenate([x, res, s * 0.5, [rank * 0.0]])


@case("np.linalg.lstsq", rand(4, 2), rand(4, 3))
def lstsq_matrix(a, b):
    return np.linalg.lstsq(a, b, rcond=None)


@case("np.linalg.lstsq", rand(2, 4), rand(2))
def lstsq_underdetermined(a, b):
    return np.linalg.lstsq(a, b, rcond=None)[0]


@case(("np.linalg.eig", "np.linalg.eigvals", "np.real", "np.imag", "np.absolute"), rand(4, 4) * 0.5 + np.diag([1.0, 2.0, 3.0, 4.0]))
def eig_values_and_vector_magnitudes(a):
    w, v = np.linalg.eig(a)
    return np.concatenate([np.real(w), np.imag(w) ** 2, np.abs(v).ravel() ** 2, np.real(np.linalg.eigvals(a))])


@case(("np.linalg.eig", "np.real"), np.array([[1.0, 2.0, 0.5], [-1.5, 0.3, 0.2], [0.4, 0.1, -0.7]]))
def eig_complex_pair_projector(a):
    w, v = np.linalg.eig(a)
    p = v[:, :1] @ np.linalg.inv(v)[:1, :]       # the spectral projector of one eigenvalue: no phase
    return np.concatenate([np.real(p).ravel(), np.imag(p).ravel(), np.real(w * w)])


# -- np.fft ----------------------------------------------------------------------------------------------------

@case(("np.fft.fft", "np.fft.ifft", "np.real", "np.imag"), rand(2, 5))
def fft_1d(x):
    y = np.fft.fft(x) + np.fft.ifft(x * 2.0, norm="ortho") + np.fft.fft(x, n=7)[:, :5] + np.fft.ifft(x, n=3, axis=0)[:2]
    return np.concatenate([np.real(y), np.imag(y) * 0.7])


@case(("np.fft.fft2", "np.fft.ifft2", "np.fft.fftn", "np.fft.ifftn", "np.real", "np.imag"), rand(3, 4))
def fft_nd(x):
    y = (np.fft.fft2(x) + np.fft.ifft2(x, norm="forward") + np.fft.fftn(x, s=(2, 5), axes=(0, 1))[:, :4].sum()
         + np.fft.ifftn(x, axes=(0,)) + np.fft.fftn(x * x))
    return np.real(y) + 0.3 * np.imag(y)


@case(("np.fft.rfft", "np.fft.irfft", "np.real", "np.imag"), rand(3, 6))
def rfft_irfft(x):
    y = np.fft.rfft(x) + np.fft.rfft(x, n=8)[:, :4] + np.fft.rfft(x, axis=0, norm="ortho")[:1, :4]
    back = np.fft.irfft(x[:, :4] + 0.5j * x[:, 2:]) + np.fft.irfft(y, n=7)[:, :6] + np.fft.irfft(y, norm="forward")
    return np.concatenate([np.real(y), np.imag(y)], axis=1) + back[:, :8].sum()


@case("np.fft.irfft", rand(2, 5))
def irfft_of_a_half_spectrum(c):
    return np.concatenate([np.fft.irfft(c), np.fft.irfft(c, n=6, norm="ortho"), np.fft.irfft(c, n=9, axis=-1)],
                          axis=1)


@case(("np.fft.fftshift", "np.fft.ifftshift"), rand(3, 5))
def fft_shifts(x):
    return np.fft.fftshift(x) * np.arange(15.0).reshape(3, 5) + np.fft.ifftshift(x, axes=1) ** 2


# -- np.gradient and np.partition -----------------------------------------------------------------------------

@case("np.gradient", rand(6))
def gradient_1d(f):
    return np.gradient(f) + np.gradient(f, 0.5, edge_order=2) + np.gradient(f, np.array([0.0, 0.3, 0.5, 1.1, 1.4, 2.0]))


@case("np.gradient", rand(4, 5))
def gradient_2d(f):
    gy, gx = np.gradient(f, 1.0, 0.25)
    return gy * gx + np.gradient(f, axis=1) + np.sum(np.gradient(f, edge_order=2), axis=0)


@case("np.partition", spread(7))
def partition_1d(x):
    return np.partition(x, 3)[:4] * np.arange(1.0, 5.0)


@case("np.partition", spread(3, 5))
def partition_axes(x):
    return np.partition(x, (1, 3), axis=1) * np.arange(15.0).reshape(3, 5) + np.partition(x, 2, axis=None)[:3].sum()


# -- complex parts of real values: constant or the value itself ------------------------------------------------------

@case(("np.real", "np.imag", "np.angle", "ndarray.real", "ndarray.imag", "np.real_if_close"), away(2, 3))
def complex_parts_of_reals(x):
    return (np.real(x) * 2.0 + np.imag(x) + np.angle(x) * x + x.real ** 2 + x.imag + np.real_if_close(x)
            + np.angle(x, deg=True))


# -- the operator module, dict, d.get, sorted -------------------------------------------------------------------------

@other_case(("operator.add", "operator.sub", "operator.mul", "operator.truediv", "operator.pow", "operator.neg",
       "operator.pos", "operator.abs", "operator.mod", "operator.matmul", "operator.getitem"), pos(3, 3), pos(3))
def operator_functions(a, b):
    return (operator.add(a, b) + operator.sub(a, b) * operator.mul(a, b) + operator.truediv(a, b)
            + operator.pow(a, b) + operator.neg(a) + operator.pos(b) + operator.abs(a - 1.0)
            + operator.mod(a, 0.3) + operator.matmul(a, b) + operator.getitem(a, 1) + operator.getitem(a, (0, 2)))


@other_case(("operator.add", "operator.mul", "operator.concat", "operator.getitem"), rand(2), rand(3))
def operator_on_sequences(a, b):
    both = operator.add([a[0], a[1]], [b[0]])
    rep = operator.mul((b[2],), 2)
    cat = operator.concat([b[1]], both)
    return np.array(both) * 2.0 + np.array(rep + (a[0],)) + np.array(cat[1:]) * operator.getitem(both, 2)


@other_case(("dict", ".get()"), rand(3), 0.7)
def dict_and_get(w, s):
    d = dict(w=w, scale=s)
    e = dict(d, scale=2.0 * s)
    f = dict([("a", w * s), ("b", w)])
    return (d["w"] * d.get("scale") + e.get("scale", 5.0) * e["w"] + d.get("missing", w ** 2)
            + f.get("a") + dict(f)["b"] * 3.0)


@other_case("sorted", spread(4))
def sorted_values(x):
    items = [x[0], x[1] * 2.0, x[2], x[3] - 0.5]
    s = sorted(items)
    r = sorted(items, key=lambda v: -v)
    t = sorted(x, reverse=True)
    return np.array(s) * np.arange(1.0, 5.0) + np.array(r) ** 2 + np.array(t) * 3.0


@case("ndarray.get()", rand(3), 0.4)
def dict_get_method(w, s):
    d = {"w": w, "s": s}
    return d.get("w") * d.get("s", 2.0) + d.get("t", s) * w + {"a": w}.get("a", w * 0.0) ** 2


# -- ufunc methods -----------------------------------------------------------------------------------------------

@case(("np.add.reduce", "np.multiply.reduce"), rand(3, 2))
def ufunc_reduce_sum_and_product(a):
    return np.add.reduce(a) * np.multiply.reduce(a, axis=1, keepdims=True) + np.add.reduce(a, axis=None)


@case(("np.maximum.reduce", "np.minimum.reduce"), spread(3, 4))
def ufunc_reduce_extrema(a):
    return np.maximum.reduce(a, axis=1) + np.minimum.reduce(a.T, keepdims=True) ** 2


@case(("np.add.accumulate", "np.multiply.accumulate"), rand(3, 2))
def ufunc_accumulate(a):
    return np.add.accumulate(a) ** 2 + np.multiply.accumulate(a, axis=1)


# -- added with tests/test_refusals_lifted.py ------------------------------------------------------------------

@case("np.roots", np.array([1.0, -0.5, -2.0, 0.7]))
def roots_of_a_cubic(p):        # (apart from np.i0, which NumPy refuses for complex values: tests/test_complex.py
    r = np.roots(p)             # checks np.roots with complex coefficients)
    return np.sum(np.sort(np.real(r)) ** 2) + np.sum(np.imag(r) ** 2)


@case("np.i0", np.array([1.0, -0.5, -2.0, 0.7]))
def bessel_i0(p):
    return np.i0(p) * p
