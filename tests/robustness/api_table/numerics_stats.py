"""numerics.stats (docs/verdicts.md): distributions up to 10^7 trials, verdict sums up to 10^5 seeds, Fisher power up to
2000 runs."""

MODULE = "numerics.stats"

BASELINE = {
    "binomial_pmf": {"n": 4, "p": 0.5},
    "clopper_pearson": {"successes": 3, "n": 4, "confidence": 0.95},
    "rate_verdict": {"successes": 3, "n": 4, "p0": 0.5, "confidence": 0.95},
    "rate_power": {"n": 6, "p0": 0.5, "p_alt": 0.9, "confidence": 0.95},
    "predictive_pmf": {"successes": 2, "n": 3, "m": 3},
    "flip_probability": {"successes": 5, "n": 6, "p0": 0.5, "confidence": 0.95, "method": "predictive"},
    "fisher_greater": {"x": 5, "y": 2, "runs": 6},
    "fisher_drop_power": {"p_first": 0.9, "p_second": 0.4, "runs": 5, "level": 0.05},
    "holm_rejections": {"pvalues": [0.01, 0.2], "alpha": 0.05},
    "mann_whitney_greater": {"x": [3.0, 4.0], "y": [1.0, 2.0]},
    "MannWhitney": {"U": 1.0, "p_value": 0.5, "min_p": 0.1, "effect": 0.25},
}

REFUSED = [
    ("binomial_pmf", {"n": 10**7 + 1, "p": 0.5}, "n"),
    ("predictive_pmf", {"successes": 1, "n": 10**7 + 1}, "n"),
    ("rate_power", {"n": 10**5 + 1, "p0": 0.5, "p_alt": 0.9}, "n"),
    ("flip_probability", {"successes": 1, "n": 10**5 + 1, "p0": 0.5}, "n"),
    ("fisher_greater", {"x": 1, "y": 1, "runs": 10**7 + 1}, "runs"),
    ("fisher_drop_power", {"p_first": 0.9, "p_second": 0.5, "runs": 2001, "level": 0.05}, "runs"),
]

NO_SIZE: dict[str, str] = {}
