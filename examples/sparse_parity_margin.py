"""(n, k)-sparse parity (Edelman Thm 7.8; docs/parity.md): the exact maximum margin (independent of n), its
construction evaluated on every input, and gamma* against k.

    python examples/sparse_parity_margin.py [out-dir]
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from _common import out_dir, run

from theory import parity

print("gamma*(k=4) =", parity.max_margin(4), "(independent of n); width bound", parity.min_width(4))
run("edelman-thm7.8-margin")
run("edelman-thm7.8-construction")

fig, ax = plt.subplots(figsize=(5, 3.5))
ks = list(range(1, 11))
ax.semilogy(ks, [float(parity.max_margin(k)) for k in ks], "o-", label="sqrt(2) k! (k+1)^(-(k+1)/2)")
ax.set(xlabel="k", ylabel="gamma*(k)", title="Edelman Thm 7.8: sparse-parity max margin")
ax.legend()
fig.savefig(out_dir() / "parity_gamma_star.png", dpi=110, bbox_inches="tight")
