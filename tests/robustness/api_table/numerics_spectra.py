"""numerics.spectra (docs/modular.md): Fourier diagnostics of given arrays; the frequency counts of
frequency_coverage (p // 2 + 1) checked against the available memory."""

import numpy as np

from numerics.modular import ModularTask, construction_network
from numerics.spectra import neuron_diagnostics

MODULE = "numerics.spectra"

_V = np.cos(2 * np.pi * 2 * np.arange(7) / 7 + 0.3)
_NET = construction_network(5, 2)
_INPUTS = ModularTask(5, 2).batch(0, 25)[0]

BASELINE = {
    "one_sided_power": {"v": _V},
    "purity": {"v": _V},
    "dominant_frequency": {"v": np.stack([_V, np.ones(7)])},
    "wrap_angle": {"x": [np.pi, -np.pi, 7.0]},
    "NeuronDiagnostics": {
        "frequency": np.array([1]),
        "block_frequency": np.array([[1, 1, 1]]),
        "block_purity": np.ones((1, 3)),
        "phase_residual": np.zeros(1),
        "balance": np.zeros(1),
        "mass": np.ones(1),
        "dc_share": np.zeros(1),
    },
    "neuron_diagnostics": {"net": _NET},
    "frequency_coverage": {"diag": neuron_diagnostics(_NET), "p": 5, "rel_mass": 1e-3},
    "diagonal_fourier": {"F": _NET.logits(_INPUTS), "inputs_sum": _INPUTS.sum(axis=1), "p": 5},
}

REFUSED = [
    ("frequency_coverage", {"diag": neuron_diagnostics(_NET), "p": 10**13}, "p"),
]

NO_SIZE: dict[str, str] = {}
