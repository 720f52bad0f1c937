"""Modular addition with k inputs (Shi Thm 4.9; docs/modular.md): the exact maximum margin gamma*(p, k), the
claim that checks it, and gamma* against p for k = 2, 3, 4.

    python examples/modular_addition.py [out-dir]
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from _common import out_dir, run

from theory import modular

print("gamma*(97, 3) =", modular.max_margin(97, 3), "; width bound", modular.min_width(97, 3))
run("shi-thm4.9-margin")

primes = [5, 7, 11, 13, 17, 19, 23, 29, 31]
fig, ax = plt.subplots(figsize=(5, 3.5))
for k in (2, 3, 4):
    ax.loglog(primes, [float(modular.max_margin(p, k)) for p in primes], "o-", label=f"k = {k}")
ax.set(xlabel="p", ylabel="gamma*(p, k)", title="Shi Thm 4.9: maximum L2,k+1 margin")
ax.legend()
fig.savefig(out_dir() / "modular_gamma_star.png", dpi=110, bbox_inches="tight")
