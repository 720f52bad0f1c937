"""Claims for the experiments of Shi thesis Sec. 4.5 and App. C.10 (Li et al., the conference version): the
polynomial network trained on an even train/test split (Figs. 4.1, 4.2), the Fourier structure of one-layer
transformers' attention matrices W^KQ (Fig. 4.3, C.5, C.6) with a negative control and Li et al.'s
LayerNorm/residual ablation, and grokking against k (Fig. 4.4). Setting, thresholds and cost: docs/modular_transformer.md.

Predictions come from :mod:`theory.modular_transformer`; observations from :mod:`verify.train.modular_transformer`
(training) and :mod:`numerics.modular_transformer` (diagnostics). The submodules register their claims when imported,
in figure order.
"""

# The import order is the registration order (figure order).
# isort: off
from . import polynomial  # noqa: F401
from . import heads  # noqa: F401
from . import grokking  # noqa: F401
# isort: on
