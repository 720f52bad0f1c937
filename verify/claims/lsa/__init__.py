"""Claims of Shi thesis Ch. 5 (Sec. 5.3-5.4) and App. D.1-D.2: optimal linear self-attention (LSA) for in-context
linear regression ("larger models do in-context learning differently").

The setting, the corrected statements (Eq. 5.2, Lemma 5.1's assumption and constant, Thm 5.4.1's proof) and the
test cases (Case A: Lambda = diag(4, 3, 2, 1), N = 20; Case B: Lambda = [[2, 1], [1, 2]], N = 10) are explained in
``docs/lsa.md``. Predictions come from :mod:`theory.lsa` (exact sympy); observations from :mod:`numerics.lsa`
(float64, Monte Carlo with fixed seeds and standard errors, L-BFGS) and :mod:`verify.train.lsa` (torch training).
"""

from . import loss, optimum, trained, noisy  # noqa: F401, I001  (registers the claims in this order)
