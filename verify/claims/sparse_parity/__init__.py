"""SGD on (n,k)-sparse parities: the training claims of Edelman thesis Ch. 5 and Ch. 6 (docs/sparse_parity.md).

``sgd``: online SGD, Ch. 5 / App. B.3 ("hidden progress", Barak et al. 2022): convergence times grow with n
(Fig. 5.1), no early convergence (Fig. 5.2), hidden progress of a sinusoid neuron (Fig. 5.3).
``pareto``: offline SGD, Ch. 6 / App. C.3 ("Pareto frontiers", Edelman et al. 2023): the success grid over
width and sample size (Fig. 6.1 / C.1) and "width buys data" (Fig. 6.2, Prop. 6.3).
``finding3``: Finding (3), sparse against dense initialisation, judged on the Pareto grid's runs.

Every run trains a seed ensemble with :func:`verify.train.sparse_parity.train_parity` on the report's device.
"""

from . import sgd, pareto, finding3  # noqa: F401, I001  (registers the claims, Ch. 5 before Ch. 6)
