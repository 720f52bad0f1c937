"""Looped linear transformers as gradient descent (Shi Lemma 8.13, Thms 8.14, 8.25; docs/looped.md): the claim
that T loops equal T GD steps, and the exact GD error of one small prompt, at Thm 8.25's step size eta = 1/L,
against the bound of Thm 8.25 (Lemma 8.23 at eta = 1/L) and the exact per-step contraction of GD on least squares.

    python examples/looped_gd.py [out-dir]
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from _common import out_dir, run

from theory import looped

run("shi-thm8.14-loops-equal-gd")

X = [[2, 1], [1, 3], [0, 1], [1, -1]]  # n = 4 examples in d = 2
y = [1, 2, 0, -1]
L, mu = looped.gram_spectrum(X)  # exact: L = 14, mu = 4 for this prompt
kappa = looped.condition_number(X)
eta = looped.prompt_step_size(L)  # Thm 8.25's eta = 1/L, rational here, so every iterate stays exact
T = 12
iterates = looped.gd_iterates(X, y, [eta] * T)
star = looped.gd_iterates(X, y, [eta] * 200)[-1]  # theta* to far below the plotted errors
err = [sum((float(a) - float(b)) ** 2 for a, b in zip(theta, star)) for theta in iterates]
print(f"L = {L}, mu = {mu}, kappa = {kappa}, eta = {eta}")
R2 = err[0]  # R^2 = ||theta_0 - theta*||^2
thm = [float(looped.thm_8_25_bound(t, kappa)) * R2 for t in range(T + 1)]
rho = float(looped.gd_contraction_factor(eta, L, mu))
contraction = [rho ** (2 * t) * R2 for t in range(T + 1)]
assert all(e <= c * (1 + 1e-12) for e, c in zip(err, contraction)) and all(c <= b for c, b in zip(contraction, thm))
print(f"after {T} steps: error {err[-1]:.3e} <= contraction {contraction[-1]:.3e} <= Thm 8.25 {thm[-1]:.3e}")

fig, ax = plt.subplots(figsize=(5, 3.5))
ax.semilogy(range(T + 1), err, "o-", label=f"||theta_t - theta*||^2 (exact GD, eta = 1/L = {eta})")
ax.semilogy(range(T + 1), contraction, "--", label="contraction rho(eta)^(2t) R^2")
ax.semilogy(range(T + 1), thm, ":", label="Thm 8.25: (1 - 1/kappa)^t R^2")
ax.set(xlabel="GD steps = transformer loops", ylabel="squared error", title="Shi Thm 8.14 / 8.25")
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), fontsize=8)
fig.savefig(out_dir() / "looped_gd.png", dpi=110, bbox_inches="tight")
