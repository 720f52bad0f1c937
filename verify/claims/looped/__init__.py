"""Claims of Shi thesis Ch. 8: the linear looped transformer implements multi-step gradient descent.

The chapter claims that one linear attention layer with the hand-made weights Q = I, P = diag(I_d, 0) performs one
GD step on the least-squares loss of its prompt (Lemma 8.13), so T loops equal T GD steps for any step sizes
(Theorem 8.14); that the loss is L-smooth and mu-strongly convex (Lemmas 8.20, 8.22), so GD with eta = 1/L contracts
like (1 - 1/kappa)^T <= exp(-T/kappa) (Lemma 8.23, Theorem 8.25) and the transformer's error is at most
|alpha| exp(-T/(2 kappa)) (Theorem 8.16), against the bound of Gatmiry et al. restated as Theorem 8.17 (its
condition and growth in T, ``comparison``); and that the experiment of Sec. 8.6 (Figure 8.1) reproduces this.

Predictions come from :mod:`theory.looped` (exact rational/sympy arithmetic; the float64 fallback for the large
Theorem 8.14 setting); observations from the torch looped transformer (:mod:`verify.train.looped`, on ``ctx.device``) or
the numpy GD reference and Monte Carlo (:mod:`numerics.looped`). The setting, the claims and the chapter's errata
are explained in ``docs/looped.md``. None of the errata changes a number that a claim could refute: the index set
of Theorem 8.14 is covered by checking every t = 1..T, the exponent T/(2 kappa) of Theorem 8.16 is a true but loose
bound (checked together with the sharper (1 - 1/kappa)^T), and the average kappa values of Figure 8.1 are
consistent with 10-trial means.
"""

from . import comparison, construction, convergence, figure8_1

__all__ = ["comparison", "construction", "convergence", "figure8_1"]
