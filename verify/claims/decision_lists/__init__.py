"""One-layer softmax attention learning decision lists: the claims of Karp thesis Ch. 4 (docs/decision_lists.md).

``gradients``: the gradient identities of Sec. 4.3.3 against autograd and finite differences.
``theorems``: the initial loss, the algebra and the per-sequence bounds of Theorems 4.3 and 4.4 (with the
statement errata as refuted claims), the constants' scale and the delta of Assumptions 4.2-4.4.
``one_step``: the first GD step of V under uniform attention (Fig. 4.1), exactly, by Monte Carlo and by the model.
``training``: exact population gradient descent on W orders every column by its decision list.
``thm44_gd``: Theorem 4.4 and Lemma 4.1 end to end, population gradient descent on W and V.
"""

from . import gradients, theorems, one_step, training, thm44_gd  # noqa: F401, I001  (registers the claims in this order)
