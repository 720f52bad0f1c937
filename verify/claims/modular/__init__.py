"""Claims for modular addition with k inputs: Shi thesis Ch. 4 + App. C (general k), then Edelman thesis
Ch. 7 + App. D.6 (k = 2, Theorem 7.7; Morwani et al. 2024).

The network, gamma*(p, k), the construction and the errata are explained in ``docs/modular.md``. Predictions
come from :mod:`theory.modular` (exact, sympy); observations from :mod:`numerics.modular`,
:mod:`numerics.margins`, :mod:`numerics.single_neuron`, :mod:`numerics.certificates` (float64) and, for the
training claims, :func:`verify.train.polynomial.train` with :func:`verify.compare.compare_modular`.

The submodules register their claims when imported, in this order (the order of ``tvk list``): Shi's claims
first, then Edelman's.
"""

# The import order is the registration order (Shi's claims, then Edelman's).
# isort: off
from . import margin  # noqa: F401
from . import single_neuron  # noqa: F401
from . import optimality  # noqa: F401
from . import training_runs  # noqa: F401
from . import edelman_k2  # noqa: F401
from . import controls  # noqa: F401
from . import init_purity  # noqa: F401
# isort: on
