"""SGD on (n,k)-sparse parities: the training claims of Edelman thesis Ch. 5 and Ch. 6 (docs/sparse_parity.md).

``sgd``: online SGD, Ch. 5 / App. B.3 ("hidden progress", Barak et al. 2022): convergence times grow with n
(Fig. 5.1), no early convergence (Fig. 5.2), hidden progress of a sinusoid neuron (Fig. 5.3).
``thm5_5``: Thm 5.5 end to end, the theorem's algorithm for a ReLU MLP (sign-vector init, one first-layer step,
then SGD on the second layer; numpy, :func:`numerics.parity_sgd.thm55_run`).
``lemB5``: Lemma B.5, the first step at the unbiased initialisation (its mean, its concentration, the width).
``thm5_8``: Thm 5.8 end to end, online SGD on the disjoint-PolyNet with the theorem's adaptive rate and step count
(numpy, :func:`numerics.polynet.polynet_sgd`).
``pareto``: offline SGD, Ch. 6 / App. C.3 ("Pareto frontiers", Edelman et al. 2023): the success grid over
width and sample size (Fig. 6.1 / C.1) and "width buys data" (Fig. 6.2, Prop. 6.3).
``embeddings``: Ch. 5 Thm 5.6, fixed embeddings cannot fit all k-parities (one certified convex program per
parity; no training). ``scaling``: Ch. 5 Fig. 5.1 right / B.6, the local slope law of median t_c against n.
``width``: Ch. 5 Fig. 5.4 left / B.10, convergence times plateau in the width (no r-fold parallel speedup).
``noisy``: Ch. 5 Fig. B.12, SGD learns noisy parities (accuracy on the noiseless distribution).
``init_noise``: Ch. 5 Fig. 5.2 centre, t_c depends on the initialisation more than on the SGD sample stream.
``grokking``: Ch. 5 Fig. 5.4 right / B.11, finite samples with weight decay: zero training error well before zero
test error.
``finding3``: Finding (3), sparse against dense initialisation, judged on the Pareto grid's runs.

Every run trains a seed ensemble with :func:`verify.train.sparse_parity.train_parity` on the report's device.
"""

from . import sgd, thm5_5, lemB5, thm5_8, embeddings, noisy, scaling, width, init_noise, grokking  # noqa: F401, I001  (Ch. 5 first)
from . import pareto, finding3  # noqa: F401  (Ch. 6)
