"""numerics.local_signal_dynamics (Karp App. B.1.3, docs/local_signal.md): Monte Carlo work within numerics.limits'
MAX_MC_SAMPLES and MAX_MC_WORK (6 k normals and products per sample of population_terms_mc, d per draw of
init_failure_mc)."""

MODULE = "numerics.local_signal_dynamics"

BASELINE = {
    "population_terms_mc": {"k": 5, "sigma": 0.5, "c": 1.0, "v": 0.2, "b": -0.1, "n": 20, "seed": 0, "chunk": 10},
    "init_failure_mc": {"k": 2, "d": 3, "n": 50, "seed": 0, "chunk": 20},
    "PopulationTerms": {
        "noise_signal": 0.1,
        "se_noise_signal": 0.01,
        "signal": -0.5,
        "se_signal": 0.01,
        "noise_perp": 0.1,
        "se_noise_perp": 0.01,
        "gamma_sym": 1.0,
        "se_gamma_sym": 0.01,
        "grad_b": 0.3,
        "se_grad_b": 0.01,
        "loss": 0.6,
        "se_loss": 0.01,
        "error": 0.3,
        "se_error": 0.01,
        "small_sum": 1.0,
        "se_small_sum": 0.0,
        "upper_tail": 0.3,
        "se_upper_tail": 0.01,
        "n": 20,
    },
}

REFUSED = [
    ("population_terms_mc", {"k": 10**6, "sigma": 0.5, "c": 1.0, "v": 0.2, "b": -0.1, "n": 10**6, "seed": 0}, "n"),
    ("init_failure_mc", {"k": 2, "d": 3, "n": 10**12, "seed": 0}, "n"),
]

NO_SIZE: dict[str, str] = {}
