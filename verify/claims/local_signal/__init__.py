"""Claims of Karp thesis Ch. 3 + App. B: local signal adaptivity, a one-filter CNN with a soft-threshold activation
that finds a planted signal patch among k Gaussian noise patches, against its finite-width neural tangent kernel.

The setting, the derivations the thesis leaves implicit, the thresholds and the errata are explained in
``docs/local_signal.md``. Predictions come from :mod:`theory.local_signal`; observations from
:mod:`numerics.local_signal` (quadrature, scipy, Monte Carlo with standard errors, cvxpy) and
:mod:`verify.train.local_signal` (torch SGD: the direct d-dimensional simulation and the exact reduced simulator).
Submodules: ``gaussian`` (Sec. 3.3, App. B.1.1-B.1.2), ``optimum`` (the optimal solution, Lemma B.5, regimes),
``kernel`` (Theorem 3.2), ``trained`` (Fig. 3.3), ``lemB12`` (Lemma B.12, m filters), ``lemB4`` (Lemma B.4, the
minibatch gradients).
"""

from . import gaussian, kernel, optimum, proof, trained  # noqa: F401, I001  (registers the claims in this order)
from . import algorithm, lemmas  # noqa: F401  (Theorem 3.1 end to end; the lemmas along trajectories)
from . import thm32_infimum  # noqa: F401  (Theorem 3.2 with the infimum over w)
from . import lemB12  # noqa: F401  (Lemma B.12, m filters)
from . import lemB4  # noqa: F401  (Lemma B.4, the minibatch gradients)
