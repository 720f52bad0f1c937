"""In-context learning of Markov chains: statistical induction heads (Edelman thesis Ch. 8 and App. E).

``exact``: the task, the strategies and the Bayes predictor, the one- and two-step gradient integrals of
Lemma 8.4 / E.1, Cor. E.2, Fact 8.3 and Prop. 8.2 (exact and numeric claims). ``curriculum``: Prop. 8.5 / E.3,
the two population steps with a curriculum that reach the bigram solution. ``trained``: the minimal model
and the two-layer attention-only transformer trained on sampled chains (training claims).
"""

from . import curriculum, exact, trained  # noqa: F401  (importing registers the claims)
