"""NumPy functions adsrc differentiates through plain-NumPy versions of them (adsrc/rules/by_source.py), and
NumPy's functions that take functions (np.vectorize, np.piecewise, np.apply_along_axis) or write in place
(np.put, np.put_along_axis), called as people call them.

Each is registered with inputs and checked against central finite differences; their inputs must come back
unchanged. The inputs keep away from the points where a function jumps (a histogram's bin edges).
"""

import numpy as np

from casekit import Registry, rand

CASES = Registry()
case = CASES.case

X6 = np.array([0.31, 1.23, 0.72, 2.14, 1.61, 0.93])


@case(rand(3, 5))
def covariance_and_correlation(m):
    return np.sum(np.cov(m) ** 2) + np.sum(np.corrcoef(m) * np.arange(9.0).reshape(3, 3))


@case(rand(6, 2))
def covariance_of_columns_with_bias(m):
    return np.sum(np.cov(m, rowvar=False, bias=True)) + np.cov(m[:, 0], m[:, 1])[0, 1]


@case(X6.copy())
def nan_statistics_skip_missing_values(x):
    y = np.where(np.arange(6) == 2, np.nan, x)
    return np.nanmedian(y) + np.nanpercentile(y, 30) + np.nanquantile(y.reshape(2, 3), 0.5, axis=1).sum()


@case(rand(6))
def polynomial_fit_and_vandermonde(y):
    t = np.linspace(0.0, 1.0, 6)
    c = np.polyfit(t, y, 2)
    return np.sum(c ** 2) + np.sum(np.vander(y[:3], 4)) + np.sum(np.vander(y[:2], increasing=True))


@case(np.array([0.7, 1.9]))
def spaced_on_a_log_scale(p):
    return np.sum(np.geomspace(p[0], p[1] * 10, 5)) + np.sum(np.logspace(p[0], p[1], 4, base=2.0))


@case(rand(5))
def insert_and_differences(x):
    y = np.insert(x, 2, x[0] * 3.0)
    z = np.insert(x, [1, 3], [7.0, x[4]])
    return np.sum(y * np.arange(6.0)) + np.sum(z ** 2) + np.sum(np.ediff1d(x, to_begin=x[0]) ** 2)


@case(rand(4))
def block_matrix(x):
    m = np.block([[np.diag(x[:2]), np.ones((2, 1)) * x[2]], [x[None, :3]]])
    return np.sum(m @ m)


@case(rand(4))
def choose_between_arrays(x):
    return np.sum(np.choose([0, 1, 1, 0], [x, x ** 2]) * np.arange(4.0))


@case(rand(2, 3))
def apply_along_an_axis(m):
    w = np.array([1.0, 2.0, 3.0])
    rows = np.apply_along_axis(lambda r: np.sum(r * w), 1, m)
    cols = np.apply_along_axis(lambda c: c / np.sum(c), 0, m)
    return np.sum(rows ** 2) + np.sum(cols * np.arange(6.0).reshape(2, 3))


@case(X6.copy())
def piecewise_on_the_values_where_each_holds(x):
    k = x[0]
    y = np.piecewise(x, [x < 1.0, x >= 1.0], [lambda v: v ** 2 * k, lambda v: np.sqrt(v - 1.0) + 3.0])
    z = np.piecewise(x, [x < 0.8], [lambda v: -v, 0.5])
    return np.sum(y) + np.sum(z * x)


@case(X6.copy())
def vectorized_python_functions(x):
    s = x[1]

    def clipped(v):
        if v > 1.0:
            return s * v
        return v ** 3

    f = np.vectorize(clipped)
    g = np.vectorize(lambda a, b: a * b + 1.0)
    return np.sum(f(x)) + np.sum(g(x, x[0])) + np.sum(np.vectorize(lambda v: np.exp(-v))(x))


@case(rand(2, 3, 3), rand(2, 3))
def vectorized_with_a_signature(a, x):
    # refused as a call of an unknown `mv`: np.vectorize with signature= maps pyfunc over the loop dimensions
    mv = np.vectorize(lambda m, v: np.tanh(m @ v), signature="(n,n),(n)->(n)")
    norm = np.vectorize(lambda r: np.sqrt(np.sum(r * r) + 1.0), signature="(n)->()")
    return np.sum(mv(a, x) ** 2) + np.sum(mv(a, x[0])) + np.sum(norm(x) ** 3)


@case(rand(5))
def ufunc_methods_without_rules(x):
    return np.sum(np.multiply.outer(x, x[:2])) + np.logaddexp.reduce(x) + np.sum(np.maximum.accumulate(x))


@case(rand(5))
def float_casts_and_exponents(x):
    m, e = np.frexp(x * 10.0)
    return np.float64(x[0]) * x[1] + np.sum(m * x) + float(np.float32(x[2])) * 0.0 + np.sum(np.unwrap(x * 3.0))


@case(rand(3, 3) + 2 * np.eye(3))
def condition_number(a):
    return np.linalg.cond(a) + np.linalg.cond(a, "fro")


@case(X6.copy())
def histogram_with_weights_and_edges(x):
    counts, edges = np.histogram(x, bins=4, weights=x ** 2)
    dens, _ = np.histogram(x, bins=3, range=(0.0, 2.5), density=True)
    return np.sum(counts * np.arange(4.0)) + np.sum(edges) + np.sum(dens)


@case(rand(2, 3))
def enumerate_every_element(m):
    total = 0.0
    for (i, j), v in np.ndenumerate(m):
        total = total + v * (i + 1) * (j + 2)
    return total


@case(rand(6))
def put_into_a_copy(x):
    y = np.zeros(6)
    np.put(y, [0, 2, 4], x[:3] ** 2)
    z = x.reshape(2, 3).copy()
    np.put_along_axis(z, np.array([[1], [2]]), x[3:5, None] * 3.0, axis=1)
    np.put(y, [1, -1], x[5])
    return np.sum(y * np.arange(6.0)) + np.sum(z ** 2)


@case(rand(7))
def quantiles_by_several_methods(x):
    total = np.quantile(x, 0.3, method="lower") + np.quantile(x, 0.62, method="midpoint")
    total = total + np.percentile(x, 40.0, method="hazen") * 2.0
    return total + np.sum(np.quantile(x, [0.1, 0.5, 0.85], method="median_unbiased") * np.array([1.0, 2.0, 3.0]))


@case(rand(4, 5))
def quantiles_along_an_axis_kept(m):
    q = np.quantile(m, [0.25, 0.7], axis=1, method="weibull", keepdims=True)
    p = np.percentile(m, 55.0, axis=0, method="nearest")
    return np.sum(q * np.arange(8.0).reshape(2, 4, 1)) + np.sum(p ** 2) + np.quantile(m, 0.4, method="linear")


@case(rand(2, 2, 2, 2))
def tensorsolve_of_a_well_conditioned_system(a):
    a = a * 0.2 + np.eye(4).reshape(2, 2, 2, 2) * 2.0
    x = np.linalg.tensorsolve(a, np.array([[1.0, 2.0], [0.5, -1.0]]))
    return np.sum(x ** 2)


@case(rand(8), rand(3, 5))
def moving_averages_over_sliding_windows(x, m):
    from numpy.lib.stride_tricks import sliding_window_view
    smooth = sliding_window_view(x, 3).mean(axis=-1)
    patches = sliding_window_view(m, (2, 3))
    cols = sliding_window_view(m, 2, axis=0)
    return np.sum(smooth ** 2) + np.sum(patches.max(axis=(-1, -2))) + np.sum(cols[:, :, 0] * cols[:, :, 1])


@case(rand(3))
def complex_numbers_through_cmath(x):
    import cmath
    z = cmath.exp(1j * x[0]) * cmath.sqrt(2.0 + x[1])
    w = cmath.rect(1.0 + x[2] ** 2, x[0]) + cmath.log(z + 3.0)
    r, phi = cmath.polar(w)
    return z.real + z.imag * x[1] + r * phi + cmath.phase(cmath.tanh(z)) + abs(cmath.sin(w))


@case(1.5)
def reductions_over_axis_zero_of_a_number(s):
    # NumPy takes axis 0 of a 0-d value (a value that is a number on some paths): adsrc divided by its ndim
    return np.sum(s * s, axis=0) + np.max(s * 2.0, axis=0) + np.prod(s, axis=0)


@case(rand(4, 6))
def real_ffts_in_two_and_more_dimensions(a):
    spectrum = np.fft.rfft2(a)
    back = np.fft.irfft2(spectrum * 1.5, s=a.shape)
    cube = np.stack([a, a * a, np.sin(a)])
    return np.sum(np.abs(spectrum) ** 2) + np.sum(back * a) + np.sum(np.abs(np.fft.rfftn(cube, axes=(0, 2))))


@case(rand(5, 4))
def integer_casts_as_indices(w):
    picked = w[:, :-1][np.int64(np.abs(w[:, -1]) * 2.9)]
    return np.sum(picked ** 2) + np.sum(w[np.intp(1)]) + float(np.bool_(w[0, 0] > 0)) * w[0, 0]


@case(np.array([0.5, -1.0, 2.0]), 0.7, label="x")
@case(np.array([0.5, -1.0, 2.0]), 0.7, argnums=1, label="c")
def ufunc_keywords_out_and_where(x, c):
    # a ufunc's where= (the safe divide: no NaN where the condition fails), out= given by position, and the
    # values nan_to_num puts in place of infinities (their derivative was silently zero)
    with np.errstate(all="ignore"):
        d = np.array([1.0, 0.0, 2.0])
        r = np.divide(x, d, out=np.zeros_like(x), where=d != 0)
        buf = x * 1.0
        np.sin(buf, buf)
        s = np.sqrt(np.abs(x), out=np.full(3, c), where=np.abs(x) > 0.6)
        filled = np.nan_to_num(np.log(d) / d, posinf=c, neginf=-c * c)    # -inf, inf where d is 0
    return np.sum(r ** 2) + np.sum(buf * x) + np.sum(s * c) + np.sum(filled * x)


@case(np.array([0.3, -0.5, 0.8, 1.2, -0.1, 0.6]))
def numpy_functions_and_keywords_written_in_numpy(x):
    # np.diff's prepend/append, np.cov's weights, np.polymul, numpy.polynomial's polyval, np.add.reduceat
    # (all were refused)
    from numpy.polynomial import polynomial as P
    d = np.diff(x, prepend=x[0] * 0.5, append=2.0)
    c = np.cov(np.stack([x, x ** 2]), aweights=np.exp(x), fweights=np.array([1, 2, 1, 1, 3, 1]))
    p = np.polymul(x[:3], x[3:5])
    v = P.polyval(x[2], x[:4]) + np.sum(P.polyval(x[:2], x[2:5]))
    seg = np.add.reduceat(x * x, np.array([0, 2, 2, 5]))
    return np.sum(d ** 2) + np.sum(c) + np.sum(p * x[:4]) + v + np.sum(seg * np.arange(4.0))


@case(np.array([0.3, 0.45, -0.2]))
def discrete_pmfs_and_erfcx(x):
    # binom/bernoulli/geom pmfs as functions of their probability, a frozen binomial, scipy.special.erfcx
    # (all were refused)
    from scipy import special, stats
    p = 0.5 + 0.4 * np.tanh(x)
    k = np.array([2.0, 0.0, 1.0])
    out = np.sum(stats.binom.logpmf(k, 4, p)) + np.sum(stats.bernoulli.pmf(np.array([1, 0, 1]), p))
    out = out + np.sum(stats.geom.logpmf(np.array([1, 3, 2]), p)) + stats.binom(5, p[0]).logpmf(3)
    return out + np.sum(special.erfcx(x * 2.0))


@case(np.array([1.0, -2.0, 0.5]))
def copyto_where_and_max_with_initial(x):
    # np.copyto(y, v, where=mask) and np.max(x, initial=0.0) (initial winning: no gradient) were refused
    y = np.zeros(3)
    np.copyto(y, x ** 2, where=x > 0)
    floor = np.max(x[1:2], initial=0.0) + np.max(x, initial=-5.0) + x.min(initial=0.0)
    return np.sum(y * x) + floor + np.max(np.stack([x, -x]), axis=0, initial=0.25).sum()


@case(np.array([[0.3, -1.2, 2.0, 0.1], [1.5, 0.2, -0.7, 0.9], [-0.4, 1.1, 0.6, -2.0]]))
def arrays_sorted_in_place_along_an_axis(x):
    # `y.sort(axis=...)`, `y.sort(kind=...)`, `y.sort(0)`: the keyword was read as list.sort's `reverse`
    # (sorted the wrong way), the position ignored (the wrong axis)
    y = x * 1.0
    y.sort(axis=0)
    z = x * 2.0
    z.sort(kind="stable")
    w = x * 3.0
    w.sort(0)
    lst = [x[0, 0], x[1, 1], x[2, 2]]
    flip = bool(x[0, 0] < 10.0)
    lst.sort(reverse=flip)
    return np.sum(y * np.arange(12.0).reshape(3, 4)) + np.sum(z[:, 0] * z[:, 3]) + np.sum(w[0] * x[0]) + \
        lst[0] * 2.0 + lst[2]


@case(np.array([0.3, -1.2, 2.0]))
def a_ufuncs_output_given_as_a_tuple(x):
    # `out=(o,)`, as ufuncs take it: the write was lost (value and gradient zero)
    o = np.zeros_like(x)
    np.sin(x, out=(o,))
    return np.sum(o ** 2)


@case(np.array([[0.3, -1.2, 2.0], [1.5, 0.2, -0.7], [-0.4, 1.1, 0.6]]))
def reductions_with_numpys_positions_and_keywords(x):
    # positional `out=None` before ddof/keepdims (ddof arrived as None: a crash), NumPy 2's keywords
    mask = np.array([[True, False, True], [True, True, False], [False, True, True]])
    out = np.sum(np.std(x, 0, None, None, 1)) + np.sum(x.var(1, None, None, 1)) + \
        np.sum(np.sum(x, 0, None, None, True) * x) + np.sum(np.max(x, 1, None, True) * x)
    out = out + np.sum(x ** 2, initial=3.0) + np.prod(x[0], initial=2.0) + np.prod(x, where=mask)
    out = out + np.max(x, where=mask, initial=-10.0) + np.sum(np.min(x, axis=1, where=mask, initial=10.0))
    out = out + np.var(x, where=mask) + np.sum(np.std(x, axis=1, correction=1))
    return out + np.sum(np.var(x, axis=0, mean=np.mean(x, axis=0, keepdims=True))) + \
        np.sum(np.median(x, 0, None, False, True) * x)


@case(np.arange(24.0).reshape(2, 3, 4) / 10, np.array([[1.0, 2.0, 0.5], [0.7, 1.2, 0.9]]), argnums=(0, 1))
def a_weighted_average_over_several_axes(x, w):
    # weights along a tuple of axes (crashed)
    return np.sum(np.average(x, axis=(0, 1), weights=w) ** 2)


@case(np.array([[3.0, 0.5, 0.1], [0.2, 2.0, 0.3], [0.1, 0.4, 4.0]]))
def slogdets_fields_by_name(x):
    # `r.logabsdet` of slogdet's result in forward mode (crashed)
    r = np.linalg.slogdet(x)
    return r.logabsdet * r.sign


@case(0.7)
def piecewise_of_a_number(x):
    # np.piecewise on a Python float, reverse mode (crashed)
    return np.piecewise(x, [x < 0, x >= 0], [lambda v: v ** 2, lambda v: np.sin(v)]) * x


@case(np.array([0.3, -1.2, 2.0, 0.1, 0.8]))
def padded_by_reflection(x):
    # (second derivatives crashed: the pad rule's helper imported inside itself)
    return np.sum(np.pad(x, 2, mode="reflect") ** 3)


@case(np.array([0.3, -0.8, 0.5, 1.1]))
def polynomial_arithmetic_on_coefficients(x):
    # np.polyder, np.polyint, np.polyadd and np.polysub were refused (no rule)
    d = np.polyder(x, 2)
    i = np.polyint(x[:3], 2, k=[0.5, x[0]])
    a = np.polyadd(x[:2], x) * np.polysub(x, x[1:])
    return np.sum(d ** 2) + np.sum(i ** 3) + np.sum(a ** 2) + np.polyval(np.polyder(x), 0.7)
