"""Optimal rank-r linear self-attention (Shi Thm 5.4.1; docs/lsa.md): the exact optimal losses L_r for
Lambda = diag(4, 3, 2, 1), N = 20, the claim that checks the closed form, and L_r against r.

    python examples/lsa_optimum.py [out-dir]
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import sympy
from _common import out_dir, run

from theory import lsa

Lam = sympy.diag(4, 3, 2, 1)
losses = lsa.optimal_losses(Lam, 20)
print("L_r, r = 0..4:", losses)
run("shi-thm5.4.1-closed-form")

fig, ax = plt.subplots(figsize=(5, 3.5))
ax.plot(range(len(losses)), [float(v) for v in losses], "o-")
ax.set(xlabel="rank r", ylabel="optimal loss L_r", title="Shi Thm 5.4.1: Lambda = diag(4,3,2,1), N = 20")
fig.savefig(out_dir() / "lsa_losses.png", dpi=110, bbox_inches="tight")
