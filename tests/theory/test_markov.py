"""Exact checks of theory/markov.py (Edelman thesis Ch. 8 and App. E; docs/markov.md): the k = 2 chain and
Eq. (E.15), the Dirichlet posterior (8.1)-(8.3) and its printed form, the expected KL given counts, the uniform
strategy's KL, the Lemma 8.4 / E.1 constants, Cor. E.2, and bad input. Expected values come from independent brute
force in Fractions or from mpmath quadrature of the definitions."""

from __future__ import annotations

import itertools
import time
from fractions import Fraction as F

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import markov as tm
from theory._checks import InputError, LimitError

PROB = st.fractions(min_value=0, max_value=1, max_denominator=50)


def _rational(x: F) -> sympy.Rational:
    return sympy.Rational(x.numerator, x.denominator)


# --- Eq. (E.1), (E.15): the k = 2 chain


@settings(max_examples=60, deadline=None)
@given(a=PROB, b=PROB, n=st.integers(0, 12))
def test_matrix_power_closed_form_equals_matrix_powers(a: F, b: F, n: int) -> None:
    """P^n = 1 pi + lambda^n (I - 1 pi) and the printed entry form of (E.15), against repeated multiplication."""
    if a == 1 and b == 1:
        return  # P = I: no unique stationary law (refused, see test_bad_input)
    a, b = _rational(a), _rational(b)
    power = tm.transition_matrix(a, b) ** n
    assert tm.matrix_power_closed_form(n, a, b) == power
    assert tm.matrix_power_entry_form(n, a, b) == power


@settings(max_examples=40, deadline=None)
@given(a=PROB, b=PROB)
def test_stationary_law_is_stationary(a: F, b: F) -> None:
    if a == 1 and b == 1:
        return
    a, b = _rational(a), _rational(b)
    pi = tm.stationary_law(a, b)
    assert pi * tm.transition_matrix(a, b) == pi and sum(pi) == 1 and min(pi) >= 0
    assert tm.eigenvalue(a, b) == a + b - 1


def test_matrix_powers_symbolic() -> None:
    P = tm.transition_matrix()
    for n in (0, 1, 2, 3):
        assert sympy.simplify(tm.matrix_power_closed_form(n) - P**n) == sympy.zeros(2, 2)


# --- Sec. 8.2.2: strategies, Fact 8.3, Prop. 8.2

SEQS = st.integers(2, 4).flatmap(
    lambda k: st.tuples(st.just(k), st.lists(st.integers(0, k - 1), min_size=1, max_size=30))
)


def _counts(seq: list[int], k: int) -> list[list[int]]:
    c = [[0] * k for _ in range(k)]
    for s, u in itertools.pairwise(seq):
        c[s][u] += 1
    return c


@settings(max_examples=80, deadline=None)
@given(SEQS)
def test_bigram_strategy_is_the_posterior_mean_of_the_current_row(case: tuple[int, list[int]]) -> None:
    k, seq = case
    assert tm.strategy_probs(seq, k, "bigram") == tm.posterior_mean(_counts(seq, k))[seq[-1]]
    assert tm.strategy_probs(seq, k, "ngram", n=2) == tm.strategy_probs(seq, k, "bigram")
    assert tm.strategy_probs(seq, k, "unigram") == [F(seq.count(j) + 1, len(seq) + k) for j in range(k)]
    assert tm.strategy_probs(seq, k, "uniform") == [F(1, k)] * k


@settings(max_examples=60, deadline=None)
@given(SEQS)
def test_fact83_counts_and_prop82_frequencies(case: tuple[int, list[int]]) -> None:
    """Bigram logits at p count the transitions x_p -> i up to p; Prop. 8.2's frequencies normalise the counts
    with x_0 := x_1 (one extra self-transition of x_1 at position 1)."""
    k, seq = case
    big, uni = tm.bigram_logits(seq, k), tm.unigram_logits(seq, k)
    for p in range(len(seq)):
        assert big[p] == _counts(seq[: p + 1], k)[seq[p]]
        assert uni[p] == [seq[: p + 1].count(i) for i in range(k)]
        freq = tm.normalised_bigram_frequencies(seq, k)[p]
        counts = _counts([seq[0], *seq[: p + 1]], k)[seq[p]]
        if sum(counts) == 0:
            assert freq is None
        else:
            assert freq == [F(c, sum(counts)) for c in counts] and sum(freq) == 1


# --- Eqs. (8.1)-(8.3): the posterior

COUNTS = st.integers(2, 4).flatmap(
    lambda k: st.tuples(
        st.lists(st.lists(st.integers(0, 12), min_size=k, max_size=k), min_size=k, max_size=k),
        st.lists(st.integers(1, 4), min_size=k, max_size=k),
    )
)


@settings(max_examples=80, deadline=None)
@given(COUNTS)
def test_posterior_mean_identities(case: tuple[list[list[int]], list[int]]) -> None:
    """E[P_ij | x] = (c_ij + alpha_j)/(N_i + sum alpha): the mean of Dir(alpha + c_i) and of its Beta marginal
    (8.2); rows sum to 1; the printed (8.3) agrees with it on row i only when every transition leaves state i."""
    counts, alpha = case
    k = len(counts)
    mean = tm.posterior_mean(counts, alpha)
    post = tm.posterior_dirichlet(counts, alpha)
    printed = tm.posterior_mean_as_printed(counts, alpha)
    total = sum(map(sum, counts))
    for i in range(k):
        assert sum(mean[i]) == 1
        assert mean[i] == [F(post[i][j]) / sum(post[i]) for j in range(k)]
        for j in range(k):
            a, b = tm.posterior_beta_marginal(counts, i, j, alpha)
            assert mean[i][j] == F(a) / (F(a) + F(b))
            assert a + b == sum(post[i])
        assert (printed[i] == mean[i]) == (sum(counts[i]) == total)


def _expected_kl_by_quadrature(c1: int, c2: int) -> mpmath.mpf:
    """E[KL(P || q)] for P ~ Beta(c1 + 1, c2 + 1) (k = 2), by mpmath quadrature of the definition."""
    q1, q2 = mpmath.mpf(c1 + 1) / (c1 + c2 + 2), mpmath.mpf(c2 + 1) / (c1 + c2 + 2)
    norm = mpmath.beta(c1 + 1, c2 + 1)

    def f(p):
        kl = (p * mpmath.log(p / q1) if p > 0 else 0) + ((1 - p) * mpmath.log((1 - p) / q2) if p < 1 else 0)
        return kl * p**c1 * (1 - p) ** c2 / norm

    return mpmath.quad(f, [0, 0.5, 1])


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 15), st.integers(0, 15))
def test_expected_kl_given_counts_matches_quadrature(c1: int, c2: int) -> None:
    mpmath.mp.dps = 30
    exact = tm.expected_kl_given_counts([c1, c2])
    assert abs(sympy.N(exact, 30) - sympy.Float(str(_expected_kl_by_quadrature(c1, c2)), 30)) < 1e-20


def test_expected_kl_with_no_counts() -> None:
    assert sympy.simplify(tm.expected_kl_given_counts([0, 0]) - (sympy.log(2) - sympy.Rational(1, 2))) == 0


# --- App. E.2: the uniform strategy's KL; the asymptotic n-gram KL


def test_expected_row_entropy_to_40_digits() -> None:
    """E_pi[H(row)] = 2 E[pi_1 H(a)] with E_b[pi_1] = 1 - (1-a) ln((2-a)/(1-a)) (the b-integral done by hand):
    a 1-D mpmath quadrature to 40 digits against the closed form identified by PSLQ."""
    mpmath.mp.dps = 45

    def f(a):
        h = -(a * mpmath.log(a) + (1 - a) * mpmath.log(1 - a))
        return 2 * h * (1 - (1 - a) * mpmath.log((2 - a) / (1 - a)))

    value = mpmath.quad(f, [0, 0.5, 1])
    closed = sympy.N(tm.expected_row_entropy_two_state(), 45)
    assert abs(sympy.Float(str(value), 45) - closed) < sympy.Float("1e-40")
    assert sympy.simplify(tm.uniform_kl_two_state() - (sympy.log(2) - tm.expected_row_entropy_two_state())) == 0
    assert abs(float(tm.uniform_kl_two_state()) - 0.212258) < 1e-6


@pytest.mark.parametrize(
    ("k", "t", "n", "value"), [(2, 100, 2, F(1, 100)), (3, 100, 2, F(3, 100)), (2, 200, 3, F(1, 100))]
)
def test_ngram_kl_asymptotic(k: int, t: int, n: int, value: F) -> None:
    assert tm.ngram_kl_asymptotic(k, t, n) == _rational(value)


# --- Lemma 8.4 / E.1 and Cor. E.2


@pytest.mark.parametrize("name", ["E.24", "E.25", "E.29-collision", "E.42"])
def test_lemma84_closed_forms_by_mpmath(name: str) -> None:
    """The printed closed forms against mpmath 2-D quadrature of the printed integrands (u = 1 - a, w = 1 - b puts
    the integrable singularity at the corner)."""
    mpmath.mp.dps = 20
    fn = sympy.lambdify((tm.A, tm.B), tm.LEMMA84_INTEGRANDS[name], "mpmath")
    value = mpmath.quad(lambda u, w: fn(1 - u, 1 - w), [0, 1], [0, 1])
    assert abs(value - mpmath.mpf(str(sympy.N(tm.lemma84_closed_form(name), 25)))) < 1e-12


def test_lemma84_constants_and_K2_erratum() -> None:
    """D = collision - 1/2; sympy integration of (E.42) and of K_2's integrand gives the closed forms; (E.43) as
    printed is negative and below K_1, the corrected one above it."""
    assert (
        sympy.simplify(tm.lemma84_closed_form("D") - (tm.lemma84_closed_form("E.29-collision") - sympy.Rational(1, 2)))
        == 0
    )
    assert sympy.simplify(tm.lemma84_constant("E.42") - tm.lemma84_closed_form("E.42")) == 0
    k1, k2 = tm.K(1), tm.K(2)
    assert sympy.simplify(k1 - tm.lemma84_closed_form("E.42")) == 0
    assert sympy.simplify(k2 - tm.e43_corrected()) == 0
    assert sympy.simplify(k2 - (sympy.Rational(8, 3) - sympy.Rational(11, 3) * sympy.log(2))) == 0
    assert float(tm.e43_as_printed()) < 0 < float(k1) < float(k2)


@pytest.mark.parametrize("t", [2, 5, 20, 100])
def test_cor_e2_v_update_by_brute_force(t: int) -> None:
    """(1/(2t)) sum_p sum_{n=1}^{p-j+1} E[lambda^n], lambda ~ U(-1, 1), E[lambda^n] = int_{-1}^{1} l^n dl / 2; and
    (E.49) as printed has the opposite sign."""
    moment = [F(1 + (-1) ** n, 2 * (n + 1)) for n in range(t + 2)]
    for j in sorted({1, 2, t // 2 or 1, t}):
        brute = sum((sum(moment[1 : p - j + 2], F(0)) for p in range(j, t + 1)), F(0)) / (2 * t)
        assert tm.cor_e2_v_update(t, j) == _rational(brute)
        assert tm.e49_as_printed(t, j) < 0 <= tm.cor_e2_v_update(t, j)
    assert abs(float(tm.cor_e2_v_update(100, 1)) - 0.7433) < 1e-4


def test_cor_e2_diagonal_diverges_logarithmically() -> None:
    d = sympy.Symbol("d", positive=True)
    a = sympy.Symbol("a")
    integral = sympy.integrate(-(a - sympy.Rational(1, 2)) / (8 * (a - 1)), (a, 0, 1 - d))
    for delta in (sympy.Rational(1, 10), sympy.Rational(1, 1000)):
        assert sympy.simplify(integral.subs(d, delta) - tm.cor_e2_diagonal_truncated(delta)) == 0
    values = [float(tm.cor_e2_diagonal_truncated(sympy.Rational(1, 10**e))) for e in (2, 4, 8, 16)]
    assert all(b > a for a, b in itertools.pairwise(values))


def test_leading_order_formulas() -> None:
    W = tm.step1_W_leading(100)
    assert W[0][0] == W[1][1] and W[0][1] == W[1][0]
    assert abs(float(W[0][0]) - 78.0) < 0.1 and abs(float(W[0][1]) - 19.6) < 0.1
    assert sympy.simplify(tm.step1_v_leading(100, 1) - sympy.Rational(100 * 101, 200) * tm.lemma84_constant("D")) == 0
    assert sympy.simplify(tm.step2_diag_leading(100, 2) - sympy.Rational(99 * 100, 200) * tm.K(2)) == 0


# --- bad input


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="k must be an integer >= 2"):
        tm.check_k(1)
    with pytest.raises(ValueError, match="t must be an integer >= 2"):
        tm.check_t(1)
    with pytest.raises(ValueError, match="k must be"):
        tm.strategy_probs([0, 1], 1, "uniform")
    with pytest.raises(ValueError, match="t must be"):
        tm.ngram_kl_asymptotic(2, 1)
    with pytest.raises(ValueError, match="k must be"):
        tm.ngram_kl_asymptotic(1, 10)
    with pytest.raises(ValueError, match="unknown strategy"):
        tm.strategy_probs([0, 1], 2, "fourgram")
    with pytest.raises(ValueError, match="range"):
        tm.bigram_logits([0, 3], 2)
    with pytest.raises(ValueError, match="not be a stochastic matrix"):
        tm.transition_matrix(sympy.Rational(3, 2), 0)
    with pytest.raises(ValueError, match="not be a stochastic matrix"):
        tm.matrix_power_closed_form(2, 0, -0.5)
    with pytest.raises(ValueError, match="no unique stationary law"):
        tm.stationary_law(1, 1)
    with pytest.raises(ValueError, match="non-negative"):
        tm.posterior_mean([[1, -1], [0, 0]])
    with pytest.raises(ValueError, match="alpha"):
        tm.posterior_mean([[1, 1], [0, 0]], [1, 0])
    with pytest.raises(ValueError, match=r"unknown Lemma 8\.4 integral"):
        tm.lemma84_constant("E.99")
    with pytest.raises(ValueError, match="k = 2"):
        tm.cor_e2_v_update(10, 1, k=3)
    with pytest.raises(ValueError, match=r"j must be an integer in 1\.\.t"):
        tm.cor_e2_v_update(10, 11)
    with pytest.raises(ValueError, match="delta"):
        tm.cor_e2_diagonal_truncated(2)


@pytest.mark.parametrize("fn", [tm.step1_v_leading, tm.step2_diag_leading, tm.e49_as_printed, tm.cor_e2_v_update])
@pytest.mark.parametrize("j", [0, -3, 101, 500, 1000, 1.5, True, "2"])
def test_lag_must_be_an_integer_in_1_to_t(fn, j) -> None:
    """v has the lags 1..t: a lag outside that range (or not an integer) is a ValueError naming j, not a number."""
    with pytest.raises(ValueError, match="j must be an integer"):
        fn(100, j)


def test_lag_range_ends_are_accepted() -> None:
    """j = 1 and j = t are valid lags; at j = t the leading-order profile (t-j+1)(t-j+2)/(2t) is 1/t."""
    assert tm.step1_v_leading(100, 100) == tm.lemma84_constant("D") / 100
    assert tm.e49_as_printed(100, 100) == sympy.Rational(-1, 200)
    assert tm.e49_as_printed(100, 1) == sympy.Rational(-1, 2)


# ------------------------------------------------------------------------------------------ issue 32: hostile input


@pytest.mark.parametrize("form", [tm.matrix_power_closed_form, tm.matrix_power_entry_form])
def test_matrix_power_at_a_billion_is_refused_before_the_work(form) -> None:
    """P^n at n = 10^9 with rational a, b formed (-1/6)^(10^9) exactly (over 20 s): the digits of lambda^n are now
    sized first; symbolic a, b (or n) and float a, b keep any n."""
    a, b = sympy.Rational(1, 3), sympy.Rational(1, 2)
    t0 = time.perf_counter()
    with pytest.raises(LimitError, match=r"^n = 1,000,000,000 is too large: the exact lambda\^n") as info:
        form(10**9, a, b)
    assert time.perf_counter() - t0 < 1.0 and info.value.param == "n"
    with pytest.raises(LimitError):
        form(10**400, a, b)
    assert form(13_000, sympy.Rational(1, 2), 1)[0, 0] == sympy.Rational(1, 2) ** 13_000  # 3914 digits, accepted
    assert form(10**9)[0, 0].has(eigenvalue_power := (tm.A + tm.B - 1) ** 10**9) and eigenvalue_power.exp == 10**9
    assert form(10**9, 1, 0) == sympy.Matrix([[1, 0], [1, 0]])  # lambda = 0: no growth
    n = sympy.Symbol("n")
    assert form(n, a, b)[0, 0].subs(n, 3) == form(3, a, b)[0, 0]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), sympy.nan, sympy.oo, 2.5, "3", None])
def test_matrix_power_refuses_a_non_integer_power(bad) -> None:
    """n = inf returned 1 pi (lambda^inf = 0) and n = nan a TypeError; n is an integer or a symbolic expression."""
    with pytest.raises(InputError) as info:
        tm.matrix_power_closed_form(bad, sympy.Rational(1, 3), sympy.Rational(1, 2))
    assert info.value.param == "n"
    with pytest.raises(InputError, match="invertible"):
        tm.matrix_power_closed_form(-1, sympy.Rational(1, 2), sympy.Rational(1, 2))  # lambda = 0
    assert (
        tm.matrix_power_closed_form(-1, sympy.Rational(1, 3), sympy.Rational(1, 2))
        == tm.transition_matrix(sympy.Rational(1, 3), sympy.Rational(1, 2)).inv()
    )


NAN_CALLS = [
    (lambda v: tm.transition_matrix(v, 0.5), "a"),
    (lambda v: tm.stationary_law(0.5, v), "b"),
    (lambda v: tm.eigenvalue(v, 0.5), "a"),
    (lambda v: tm.cor_e2_diagonal_truncated(v), "delta"),
    (lambda v: tm.posterior_mean([[1, 0], [0, 1]], [v, 1]), "alpha"),
    (lambda v: tm.posterior_dirichlet([[v, 0], [0, 1]]), "counts"),
    (lambda v: tm.expected_kl_given_counts([v, 1]), "counts_row"),
    (lambda v: tm.strategy_probs([0, v], 2, "unigram"), "seq"),
    (lambda v: tm.bigram_logits([0, v, 1], 2), "seq"),
    (lambda v: tm.cor_e2_v_update(5, 1, v), "k"),
]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), sympy.nan, sympy.zoo, sympy.oo])
@pytest.mark.parametrize(("call", "param"), NAN_CALLS)
def test_nan_and_inf_are_refused_naming_the_parameter(call, param, value) -> None:
    """NaN and infinities used to come back (eigenvalue(nan) = nan) or raise bare errors (OverflowError, a NaN fed
    into Fraction); now an InputError names the parameter."""
    with pytest.raises(InputError) as info:
        call(value)
    assert info.value.param == param


def test_counts_and_tokens_are_not_truncated() -> None:
    """int() truncated 1.5 to 1 and read negative state indices from the end of the row."""
    with pytest.raises(InputError, match="counts"):
        tm.posterior_mean([[1.5, 0], [0, 1]])
    with pytest.raises(InputError, match="seq"):
        tm.unigram_logits([0, 1.5], 2)
    assert tm.unigram_logits([0.0, 1.0], 2) == tm.unigram_logits([0, 1], 2)  # integral floats are tokens
    with pytest.raises(InputError) as info:
        tm.posterior_beta_marginal([[3, 1], [0, 2]], -1, 0)
    assert info.value.param == "i"
    with pytest.raises(InputError) as info:
        tm.posterior_beta_marginal([[3, 1], [0, 2]], 0, 2)
    assert info.value.param == "j"


@pytest.mark.parametrize(
    ("call", "param"),
    [
        (lambda: tm.cor_e2_v_update(10**9, 1), "t"),
        (lambda: tm.cor_e2_v_update(9001, 1), "t"),
        (lambda: tm.expected_kl_given_counts([10**9, 0]), "counts_row"),
        (lambda: tm.expected_kl_given_counts(range(10**9)), "counts_row"),
        (lambda: tm.ngram_kl_asymptotic(10**9, 100, 10**9), "n"),
        (lambda: tm.strategy_probs([0, 1], 10**9, "uniform"), "k"),
        (lambda: tm.unigram_logits([0, 1], 10**9), "k"),
        (lambda: tm.bigram_logits([0, 1] * 10**6, 2), "seq"),
        (lambda: tm.stationary_monomial_integral(0, 10**9, 0, 0), "beta"),
        (lambda: tm.transition_count_classes(10**9), "t"),
        (lambda: tm.next_token_class_probabilities(101), "t"),
        (lambda: tm.K(10**9), "j"),
        (lambda: tm.leading_argmax_v2(10**9), "jmax"),
        (lambda: tm.step2_diag_leading(100, 13), "j"),
    ],
)
def test_sizes_are_refused_before_the_work(call, param) -> None:
    """Each of these ran for minutes or without end (t = 10^9 loops, K_j integrals beyond j = 12, harmonic sums of
    10^9 terms, 10^9-entry lists)."""
    t0 = time.perf_counter()
    with pytest.raises(LimitError) as info:
        call()
    assert time.perf_counter() - t0 < 2.0 and info.value.param == param
    assert str(info.value).startswith(f"{param} = ")


def test_the_sizes_at_the_limits_are_accepted() -> None:
    """The largest accepted sizes answer, with the same values as the direct sums."""
    assert tm.cor_e2_v_update(9000, 8999) == sympy.Rational(1, 3 * 2 * 9000)
    assert len(tm.bigram_logits([0, 1] * 50_000, 2)) == 100_000
    assert tm.stationary_monomial_integral(0, 0, 0, 0) == (F(0), F(2))

    def direct(t: int, j: int) -> F:  # the sum as printed: sum_{p=j}^t sum_{n=1}^{p-j+1} E[lambda^n]
        return sum(
            (sum((F(1, n + 1) for n in range(1, p - j + 2) if n % 2 == 0), F(0)) for p in range(j, t + 1)), F(0)
        ) / (2 * t)

    for t in (2, 3, 10, 57):
        for j in range(1, t + 1):
            assert tm.cor_e2_v_update(t, j) == sympy.Rational(direct(t, j))


@settings(max_examples=60, deadline=None)
@given(seq=st.lists(st.integers(0, 2), min_size=1, max_size=25), n=st.integers(2, 30))
def test_counts_in_one_pass_match_the_definitions(seq: list[int], n: int) -> None:
    """The O(t k) counts (and the Knuth-Morris-Pratt n-gram context) against Fact 8.3 and Sec. 8.2.2 summed directly."""
    k, t = 3, len(seq)
    assert tm.bigram_logits(seq, k) == [
        [sum(1 for s in range(1, p + 1) if seq[s] == i and seq[s - 1] == seq[p]) for i in range(k)] for p in range(t)
    ]
    assert tm.unigram_logits(seq, k) == [
        [sum(1 for s in range(p + 1) if seq[s] == i) for i in range(k)] for p in range(t)
    ]
    ctx = tuple(seq[t - n + 1 :]) if n <= t else None
    counts = [0] * k
    for s in range(n - 1, t):
        if tuple(seq[s - n + 1 : s]) == ctx:
            counts[seq[s]] += 1
    assert tm.strategy_probs(seq, k, "ngram", n) == [F(c + 1, sum(counts) + k) for c in counts]
