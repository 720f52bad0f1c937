"""Boolean Fourier analysis (Edelman Lemmas B.1, C.3; docs/boolean.md): Majority's exact Fourier coefficients, the
claim that checks them against brute force, and the level weights of Maj_101 against their limit rho(k) and its
order k^(-3/2) (O'Donnell Thm 5.22; Lemma B.1 prints k^(-2/3), an erratum this toolkit refutes).

    python examples/majority_spectrum.py [out-dir]
"""

import matplotlib

matplotlib.use("Agg")
import math

import matplotlib.pyplot as plt
from _common import out_dir, run

from theory import boolean

print("Maj_11 coefficient at level 3:", boolean.majority_coefficient(11, 3))
run("edelman-ch5-lemB.1-majority-closed-form")
run("edelman-ch5-lemB.1-level-weight-exponent")
run("edelman-ch5-lemB.1-level-weight-exponent-as-printed")

n = 101
levels = list(range(1, 40, 2))
order, printed = float(boolean.level_weight_exponent()), float(boolean.level_weight_exponent_as_printed())
scale = (2 / math.pi) ** 1.5  # rho(k) k^(3/2) -> (2/pi)^(3/2)
fig, ax = plt.subplots(figsize=(5, 3.5))
ax.loglog(levels, [float(boolean.majority_level_weight(n, k)) for k in levels], "o", label="W^k[Maj_101] (exact)")
ax.loglog(levels, [float(boolean.rho(k)) for k in levels], "-", label="rho(k), the limit n -> oo (Lemma C.3 corrected)")
ax.loglog(levels, [scale * k**order for k in levels], "--", label="(2/pi)^1.5 k^-1.5 (O'Donnell Thm 5.22)")
ax.loglog(levels, [scale * k**printed for k in levels], ":", label="(2/pi)^1.5 k^-2/3 (order printed in Lemma B.1)")
ax.set(xlabel="level k", ylabel="Fourier weight", title="Majority's level weights: order k^-3/2, not k^-2/3")
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), fontsize=8)
fig.savefig(out_dir() / "majority_levels.png", dpi=110, bbox_inches="tight")
