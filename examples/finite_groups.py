"""Finite groups (Edelman Thm 7.9; docs/groups.md): the closed-form margin where the theorem's condition holds,
the claim that checks it, and gamma* for a few small groups.

    python examples/finite_groups.py [out-dir]
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from _common import out_dir, run

from theory import groups

names = ["S3", "D4", "D5", "Z2^3", "S4"]
values = {name: groups.max_margin(name) for name in names}
for name, value in values.items():
    print(f"gamma*({name}) = {value}")
run("edelman-thm7.9-condition")

fig, ax = plt.subplots(figsize=(5, 3.5))
ax.bar(names, [float(v) for v in values.values()])
ax.set(xlabel="group", ylabel="gamma*(G)", yscale="log", title="Edelman Thm 7.9: max margin on finite groups")
fig.savefig(out_dir() / "groups_gamma_star.png", dpi=110, bbox_inches="tight")
