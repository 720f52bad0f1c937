"""theory.modular (Shi Thm 4.9, Lemmas 4.10-4.11, C.14-C.18; Edelman App. D.4): gamma*(p, k) of at most 4000
digits, the construction up to 2^(2k-2)(p-1)(k+1) <= 200000 entries, the identities up to 512 terms, the
brute-force Psi up to p^k <= 10^4, the exact DFTs up to (k+1) p^2 <= 200000 terms."""

from sympy import Integer, Rational, pi

MODULE = "theory.modular"

BASELINE = {
    "FourierNeuron": {"p": 3, "zeta": 1, "phases": (Integer(0),), "amplitude": Integer(1), "mismatch": pi},
    "construction": {"p": 3, "k": 2, "width": 9},
    "construction_logit_as_printed": {"p": 3, "a": [1, 2], "c": 0},
    "cos_sum_expansion": {"k": 2},
    "frequencies": {"p": 7},
    "max_margin": {"p": 5, "k": 3},
    "max_margin_k2_morwani": {"p": 7},
    "max_margin_logits": {"p": 5, "k": 3},
    "memorising_margin": {"p": 3, "scaling": "rebalanced"},
    "memorising_margin_ratio": {"p": 3, "scaling": "rebalanced"},
    "memorising_normalized_margin": {"p": 3, "alpha": 1, "beta": Rational(1, 4)},
    "memorising_scales": {"scaling": "printed"},
    "min_width": {"p": 7, "k": 3},
    "optimal_amplitude": {"p": 5, "k": 2},
    "optimal_fourier_magnitude": {"p": 5, "k": 2},
    "optimal_neuron": {"p": 5, "k": 2, "zeta": 2, "phases": [pi / 3, pi / 6]},
    "polarization_identity": {"k": 2},
    "psi_dc_leak": {"p": 5, "k": 3, "eps": Rational(1, 2)},
    "psi_fourier": {"u": [[1, 0, 0]], "w": [1, 0, 0]},
    "psi_phase_mismatch": {"p": 3, "k": 2, "delta": pi / 3},
    "psi_time_domain": {"u": [[1, 0, 0], [0, 1, 0]], "w": [0, 1, 0]},
    "psi_two_frequencies": {"p": 5, "k": 3, "s": Rational(1, 2)},
    "psi_unbalanced": {"p": 5, "k": 2, "r": ["1/2", "1/4", "1/4"]},
    "single_neuron_bound": {"p": 5, "k": 3},
    "init_purity_cdf": {"p": 11, "x": Rational(1, 4)},
}

REFUSED = [
    ("max_margin", {"p": 3, "k": 10**6}, "k"),
    ("max_margin", {"p": 10**4001 + 1, "k": 2}, "p"),
    ("min_width", {"p": 5, "k": 10**6}, "k"),
    ("single_neuron_bound", {"p": 3, "k": 5000}, "k"),
    ("max_margin_logits", {"p": 3, "k": 5000}, "k"),
    ("max_margin_k2_morwani", {"p": 10**4001 + 1}, "p"),
    ("memorising_margin", {"p": 10**4001 + 1}, "p"),
    ("psi_dc_leak", {"p": 3, "k": 5000, "eps": 0}, "k"),
    ("construction", {"p": 3, "k": 12}, "k"),
    ("polarization_identity", {"k": 11}, "k"),
    ("cos_sum_expansion", {"k": 10}, "k"),
    ("optimal_neuron", {"p": 5, "k": 200_001}, "k"),
    ("psi_time_domain", {"u": [[0] * 11] * 4, "w": [0] * 11}, "k"),
    ("psi_fourier", {"u": [[0] * 317], "w": [0] * 317}, "p"),
    ("optimal_amplitude", {"p": 10**1001 + 1, "k": 2}, "p"),
    ("optimal_fourier_magnitude", {"p": 3, "k": 10**1001}, "k"),
    ("memorising_normalized_margin", {"p": 3, "alpha": Rational(1, 10**600), "beta": 1}, "alpha"),
    ("memorising_margin_ratio", {"p": 10**4001 + 1}, "p"),
    ("psi_two_frequencies", {"p": 5, "k": 1001, "s": Rational(1, 10**10)}, "s"),
    ("psi_dc_leak", {"p": 5, "k": 2, "eps": Rational(1, 10**1001)}, "eps"),
    ("psi_unbalanced", {"p": 5, "k": 1, "r": [Rational(1, 10**600), 1 - Rational(1, 10**600)]}, "r"),
    ("psi_phase_mismatch", {"p": 3, "k": 5000, "delta": 0}, "k"),
    ("init_purity_cdf", {"p": 403, "x": Rational(1, 4)}, "p"),
]

NO_SIZE = {
    "ModularConstruction": "built by construction() from its own neurons",
}
