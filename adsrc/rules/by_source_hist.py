"""np.histogram2d in plain NumPy that adsrc differentiates (by_source.py maps np.histogram2d here). The counts
are piecewise constant in the samples (their derivative is 0 between bin edges); with `weights=` the summed
weights are linear in them; edges computed from the samples (an integer number of bins, no `range=`) move with
the smallest and largest sample, and with `density=True` the bin areas move with the edges, as NumPy computes
them (np.histogramdd's rules: one list of edges for both axes unless `bins` has two items)."""

import numpy as np

from . import nondiff


def histogram2d_bins(a, edges):
    """The bin of each of a's values among edges, the last bin closed, -1 outside (and for NaN)."""
    index = np.searchsorted(edges, a, side="right") - 1
    index = np.where(a == edges[-1], len(edges) - 2, index)
    return np.where((a >= edges[0]) & (a <= edges[-1]), index, -1)


nondiff(histogram2d_bins, "histogram2d_bins")


def histogram2d_axis_edges(a, bins, limits):
    """One axis's edges: `bins` itself when it is a sequence of edges, else bins + 1 edges across limits (the
    data's smallest and largest values when limits is None; one wider when they are equal)."""
    if np.ndim(bins) == 1:
        return np.asarray(bins)
    if limits is not None:
        lo, hi = limits[0] + 0.0, limits[1] + 0.0
    elif np.size(a):
        lo, hi = np.min(a) + 0.0, np.max(a) + 0.0
    else:
        lo, hi = 0.0, 1.0
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return np.linspace(lo, hi, bins + 1)


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    x = np.ravel(x)
    y = np.ravel(y)
    if isinstance(bins, str):
        raise ValueError("adsrc differentiates np.histogram2d with bins given as numbers or edges, not by name")
    both = isinstance(bins, (int, np.integer)) or len(bins) != 2       # one bins for both axes, as NumPy reads it
    xbins = bins if both else bins[0]
    ybins = bins if both else bins[1]
    xedges = histogram2d_axis_edges(x, xbins, None if range is None else range[0])
    yedges = histogram2d_axis_edges(y, ybins, None if range is None else range[1])
    ix = histogram2d_bins(x, xedges)
    iy = histogram2d_bins(y, yedges)
    inside = (ix >= 0) & (iy >= 0)
    nx = len(xedges) - 1
    ny = len(yedges) - 1
    flat = ix[inside] * ny + iy[inside]
    if weights is None:
        counts = np.bincount(flat, minlength=nx * ny) * 1.0
    else:
        counts = np.bincount(flat, weights=np.ravel(weights)[inside], minlength=nx * ny)
    hist = np.reshape(counts, (nx, ny))
    if density:
        total = np.sum(hist)            # (divided in NumPy's order: by the widths, then by the total)
        hist = hist / np.diff(xedges)[:, None] / np.diff(yedges)[None, :] / total
    return hist, xedges, yedges
