"""Boolean Fourier analysis (Edelman Lemma B.1; docs/boolean.md): Majority's exact Fourier coefficients, the
claim that checks them against brute force, and the level weights of Maj_101.

    python examples/majority_spectrum.py [out-dir]
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from _common import out_dir, run

from theory import boolean

print("Maj_11 coefficient at level 3:", boolean.majority_coefficient(11, 3))
run("edelman-ch5-lemB.1-majority-closed-form")

n = 101
levels = list(range(1, 40, 2))
fig, ax = plt.subplots(figsize=(5, 3.5))
ax.loglog(levels, [float(boolean.majority_level_weight(n, k)) for k in levels], "o-", label="W^k[Maj_101]")
ax.loglog(levels, [(2 / 3.14159265) ** 1.5 * k**-1.5 for k in levels], "--", label="(2/pi)^1.5 k^-1.5")
ax.set(xlabel="level k", ylabel="Fourier weight", title="Edelman Lemma B.1: Majority's level weights")
ax.legend()
fig.savefig(out_dir() / "majority_levels.png", dpi=110, bbox_inches="tight")
