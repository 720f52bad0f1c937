"""Looped linear transformers as gradient descent (Shi Lemma 8.13, Thms 8.14, 8.25; docs/looped.md): the claim
that T loops equal T GD steps, and the exact GD error of one small prompt against the bound of Thm 8.25.

    python examples/looped_gd.py [out-dir]
"""

from fractions import Fraction

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from _common import out_dir, run

from theory import looped

run("shi-thm8.14-loops-equal-gd")

X = [[2, 1], [1, 3], [0, 1], [1, -1]]  # n = 4 examples in d = 2
y = [1, 2, 0, -1]
L, mu = looped.gram_spectrum(X)
kappa = looped.condition_number(X)
eta = Fraction(1, 16)  # a rational step size below 1/L (L = 14 here), so every iterate stays exact
T = 12
iterates = looped.gd_iterates(X, y, [eta] * T)
star = looped.gd_iterates(X, y, [eta] * 200)[-1]  # theta* to far below the plotted errors
err = [sum((float(a) - float(b)) ** 2 for a, b in zip(theta, star)) for theta in iterates]
print(f"L = {float(L):.4f}, mu = {float(mu):.4f}, kappa = {float(kappa):.4f}")

fig, ax = plt.subplots(figsize=(5, 3.5))
ax.semilogy(range(T + 1), err, "o-", label="||theta_t - theta*||^2 (exact GD, eta = 1/16)")
contraction = float(looped.gd_contraction_factor(eta, L, mu))
ax.semilogy(range(T + 1), [err[0] * contraction ** (2 * t) for t in range(T + 1)], "--", label="rho(eta)^(2t) bound")
ax.set(xlabel="GD steps = transformer loops", ylabel="squared error", title="Shi Thm 8.14 / 8.25")
ax.legend(loc="upper right")
fig.savefig(out_dir() / "looped_gd.png", dpi=110, bbox_inches="tight")
