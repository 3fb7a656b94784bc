"""Matrix inversion by LU decomposition with partial pivoting, as OpenVINO's
reference computes it (so a singular matrix gives the same infinities and NaNs),
vectorised over the batch and carried out in f64."""

from __future__ import annotations

import numpy as np


def lu_inverse(a: np.ndarray) -> np.ndarray:
    """The inverse of each [n, n] matrix of ``a`` ([..., n, n]), in f64.

    Doolittle LU with row pivoting: at step k the row with the largest |U[i, k]|
    (the first of equals) is swapped in; then one forward and one backward
    substitution solve for all columns of the identity at once."""
    n = a.shape[-1]
    batch = a.shape[:-2]
    if a.size == 0:
        return np.zeros(a.shape)
    u = a.reshape(-1, n, n).astype(np.float64)  # a copy: decomposed in place
    m = u.shape[0]
    lower = np.zeros_like(u)
    perm = np.tile(np.arange(n), (m, 1))
    rows = np.arange(m)
    with np.errstate(all="ignore"):
        for k in range(n):
            pivot = k + np.argmax(np.abs(u[:, k:, k]), axis=1)
            swap = pivot != k
            if swap.any():
                r, p = rows[swap], pivot[swap]
                for mat in (u, lower):
                    top = mat[r, k].copy()
                    mat[r, k] = mat[r, p]
                    mat[r, p] = top
                top = perm[r, k].copy()
                perm[r, k] = perm[r, p]
                perm[r, p] = top
            factor = u[:, k + 1:, k] / u[:, k, k][:, None]
            lower[:, k + 1:, k] = factor
            u[:, k + 1:, k:] -= factor[:, :, None] * u[:, None, k, k:]
        # L (unit diagonal, not stored) y = P e_c for every column c, then U x = y
        y = np.zeros((m, n, n))
        y[rows[:, None], np.arange(n)[None, :], perm] = 1.0  # row i of P·I is e_{perm[i]}
        for i in range(n):
            y[:, i] -= np.einsum("bj,bjc->bc", lower[:, i, :i], y[:, :i])
        x = np.zeros_like(y)
        for i in range(n - 1, -1, -1):
            x[:, i] = (y[:, i] - np.einsum("bj,bjc->bc", u[:, i, i + 1:], x[:, i + 1:])) / u[:, i, i][:, None]
    return x.reshape(*batch, n, n)
