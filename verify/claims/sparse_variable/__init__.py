"""Sparse variable creation by self-attention: Edelman thesis Ch. 4 and App. A.1-A.3 (docs/sparse_variable.md).

``constructions``: Prop. 4.12 / Prop. A.18, the heads of Lemmas A.19-A.21 and the networks of Lemmas A.22-A.25
(exact representation, norms, and the errata of App. A.2). ``capacity``: Lemma 4.7, Cor. A.7 and Prop. 4.8.
``lipschitz``: Lemmas A.14-A.16 and A.24. ``trained``: Figs. 4.2-4.4 (one-layer transformers trained on sparse AND and sparse parity).
``overfitting``: Fig. 4.3 left (overfitting below the sample threshold).
"""

from . import constructions, capacity, lipschitz, trained, overfitting  # noqa: F401, I001  (importing registers the claims, in this order)
