"""theory.markov (Edelman Ch. 8, App. E): exact values up to 4000 digits (P^n of a rational chain, k^(n-1) of the
n-gram asymptotic, the harmonic-type sums of Cor. E.2 and of the expected KL), tables of at most 200000 entries
(k states x t positions), the finite-t strategy KLs up to t = 100, K_j up to j = 12 (sympy integrals)."""

from fractions import Fraction

from sympy import Rational

MODULE = "theory.markov"

BASELINE = {
    "K_INTEGRAND": {"j": 2},
    "bigram_logits": {"seq": [0, 1, 1, 0, 1], "k": 2},
    "check_k": {"k": 3},
    "check_t": {"t": 2},
    "cor_e2_diagonal_truncated": {"delta": Rational(1, 2)},
    "cor_e2_v_update": {"t": 10, "j": 1, "k": 2},
    "e49_as_printed": {"t": 10, "j": 1},
    "eigenvalue": {"a": Rational(1, 3), "b": Rational(1, 2)},
    "expected_kl_given_counts": {"counts_row": [3, 1]},
    "leading_argmax_v2": {"jmax": 2},
    "lemma84_closed_form": {"name": "E.24"},
    "matrix_power_closed_form": {"n": 3, "a": Rational(1, 3), "b": Rational(1, 2)},
    "matrix_power_entry_form": {"n": 3, "a": Rational(1, 3), "b": Rational(1, 2)},
    "ngram_kl_asymptotic": {"k": 3, "t": 100, "n": 3},
    "normalised_bigram_frequencies": {"seq": [0, 1, 1, 0, 1], "k": 2},
    "posterior_beta_marginal": {"counts": [[3, 1], [0, 2]], "i": 0, "j": 1, "alpha": [1, Fraction(1, 2)]},
    "posterior_dirichlet": {"counts": [[3, 1], [0, 2]], "alpha": [1, 2]},
    "posterior_mean": {"counts": [[3, 1], [0, 2]], "alpha": [1, 1]},
    "posterior_mean_as_printed": {"counts": [[3, 1], [0, 2]], "alpha": [1, 1]},
    "stationary_law": {"a": Rational(1, 3), "b": Rational(1, 2)},
    "stationary_monomial_integral": {"alpha": 1, "beta": 0, "gamma": 2, "delta": 1},
    "step1_W_leading": {"t": 2},
    "step1_v_leading": {"t": 2, "j": 1},
    "step2_diag_leading": {"t": 3, "j": 2},
    "strategy_probs": {"seq": [0, 1, 1, 0, 1], "k": 2, "strategy": "ngram", "n": 3},
    "transition_matrix": {"a": Rational(1, 3), "b": Rational(1, 2)},
    "unigram_logits": {"seq": [0, 1, 1, 0, 1], "k": 2},
    "check_curriculum_eps": {"eps": Fraction(1, 4)},
    "curriculum_lambda_moment": {"eps": Fraction(1, 4), "n": 4},
    "curriculum_tensor": {"t": 4, "eps": Fraction(1, 4)},
    "curriculum_limit": {"eps": Fraction(1, 4), "w_init": 1, "v_init": 1, "c1": 6, "c2": 8, "js": (1, 2)},
}

REFUSED = [
    ("matrix_power_closed_form", {"n": 10**9, "a": Rational(1, 3), "b": Rational(1, 2)}, "n"),
    ("matrix_power_entry_form", {"n": 10**9, "a": Rational(1, 3), "b": Rational(1, 2)}, "n"),
    ("ngram_kl_asymptotic", {"k": 10, "t": 100, "n": 5000}, "n"),
    ("ngram_kl_asymptotic", {"k": 10**4001, "t": 2}, "k"),
    ("cor_e2_v_update", {"t": 9001, "j": 1}, "t"),
    ("expected_kl_given_counts", {"counts_row": [8999, 0]}, "counts_row"),
    ("strategy_probs", {"seq": [0, 1], "k": 200_001, "strategy": "uniform"}, "k"),
    ("bigram_logits", {"seq": [0, 1] * 50_001, "k": 2}, "seq"),
    ("unigram_logits", {"seq": [0, 1], "k": 100_001}, "k"),
    ("normalised_bigram_frequencies", {"seq": [0, 1] * 50_001, "k": 2}, "seq"),
    ("stationary_monomial_integral", {"alpha": 301, "beta": 0, "gamma": 0, "delta": 0}, "alpha"),
    ("leading_argmax_v2", {"jmax": 13}, "jmax"),
    ("step2_diag_leading", {"t": 100, "j": 13}, "j"),
    ("curriculum_tensor", {"t": 401, "eps": Fraction(1, 4)}, "t"),
    ("curriculum_limit", {"eps": Fraction(1, 4), "w_init": 1, "v_init": 1, "c1": 6, "c2": 8, "js": (401,)}, "js"),
]

NO_SIZE = {
    "e43_as_printed": "no argument, a constant",
    "e43_corrected": "no argument, a constant",
    "expected_row_entropy_two_state": "no argument, a constant",
    "uniform_kl_two_state": "no argument, a constant",
}
