r"""In-context learning of Markov chains: statistical induction heads (exact).

Source: Edelman thesis Ch. 8 (Sec. 8.2, Lemma 8.4, Prop. 8.2, Fact 8.3) and App. E.1 (Lemma E.1, Cor. E.2). The
setting, the derivations that are not in the thesis and the errata are explained in ``docs/markov.md``.

Setting (Sec. 8.2.1). States ``[k]``; every sequence draws its own transition matrix P with iid rows
``P_{i,:} ~ Dir(alpha)`` (flat ``alpha = 1``), ``x_1`` from the stationary law ``pi(P)`` and
``x_{s+1} ~ P_{x_s,:}``. For k = 2 (Eq. (E.1)) ``P = [[a, 1-a], [1-b, b]]`` with ``a, b ~ U(0, 1)``,
``lambda = a + b - 1`` (the second eigenvalue), ``pi = (1-b, 1-a)/(2-a-b)`` and
``P^n = 1 pi + lambda^n (I - 1 pi)`` (Eq. (E.15)); the special case ``a = b`` of Cor. E.2 has
``lambda = 2a - 1 ~ U(-1, 1)`` and ``pi = (1/2, 1/2)``.

Everything here is exact (sympy or :class:`fractions.Fraction`):

* the k = 2 chain (:func:`transition_matrix`, :func:`stationary_law`, :func:`matrix_power_closed_form`);
* the strategies of Sec. 8.2.2 on a given sequence (:func:`strategy_probs`) and the counts of Fact 8.3
  (:func:`bigram_logits`, :func:`unigram_logits`) and of Prop. 8.2 (:func:`normalised_bigram_frequencies`);
* the Dirichlet posterior (8.1)-(8.3) as corrected (:func:`posterior_mean`, :func:`posterior_beta_marginal`) and as
  printed (:func:`posterior_mean_as_printed`); the expected KL given counts (:func:`expected_kl_given_counts`);
* the strategy KLs at the last token where a closed form exists: uniform for any t (:func:`uniform_kl_two_state`),
  and uniform, unigram and bigram at finite t for k = 2 (:func:`two_state_strategy_kl`: a finite sum of
  ``(r + s ln 2) ln q`` over transition-count classes, exact); the asymptotic ``k^{n-1}(k-1)/(2t)``
  (:func:`ngram_kl_asymptotic`);
* Lemma 8.4 / E.1: the integrals (E.24), (E.25), ``D`` (E.29), ``K_1`` (E.42) and ``K_j`` (E.40) as exact sympy
  values (:func:`lemma84_constant`, :func:`K`), (E.43) as printed (:func:`e43_as_printed`), and the leading-order
  one- and two-step updates (:func:`step1_W_leading`, :func:`step1_v_leading`, :func:`step2_diag_leading`);
* Cor. E.2: the corrected first-step v update (:func:`cor_e2_v_update`), (E.49) as printed
  (:func:`e49_as_printed`) and the truncated diagonal coefficient that diverges like ``ln(1/delta)/16``
  (:func:`cor_e2_diagonal_truncated`);
* Prop. 8.5 / E.3: the curriculum step's loss as an exact bilinear form at finite t (:func:`curriculum_tensor`, with
  :func:`curriculum_lambda_moment`) and the model after the two steps as ``t -> infinity``
  (:func:`curriculum_limit`).

Sizes (checked before any work, :class:`theory._checks.LimitError` naming the parameter; ``docs/limits.md``): exact
values of at most 4000 digits (``lambda^n`` of :func:`matrix_power_closed_form`, ``k^(n-1)`` of
:func:`ngram_kl_asymptotic`), the harmonic-type sums up to ``MAX_HARMONIC_N`` = 9000 (:func:`cor_e2_v_update`,
:func:`expected_kl_given_counts`), tables of at most 200000 counts (t positions x k states), the monomial integrals up to
degree ``MAX_MONOMIAL_DEGREE`` = 300, the finite-t strategy KLs and their classes up to ``MAX_EXACT_T`` = 100, the
sympy integrals ``K_j`` up to ``MAX_EXACT_LAG`` = 12, the curriculum tensor up to ``MAX_CURRICULUM_T`` = 400.

Units: the first-step updates are reported as ``(W^(1) - c 11^T)/(c eta)`` and ``(v^(1) - c)/(c eta)``; the
diagonal-bias part of the second-step v update as ``G^I_j``, in units of ``(rho - c') eta`` (``docs/markov.md``).
"""

from __future__ import annotations

import collections
import functools
import math
import numbers
from collections.abc import Sequence
from fractions import Fraction

import sympy

from . import _checks
from ._checks import MAX_DIGITS, InputError, LimitError, as_number, check_cost, check_positive_int, format_count
from ._docstrings import fill_doc, sections
from .modular import _digits, _shown

__all__ = [
    "K_INTEGRAND",
    "LEMMA84_INTEGRANDS",
    "MAX_CURRICULUM_T",
    "MAX_EXACT_T",
    "A",
    "B",
    "K",
    "bigram_logits",
    "check_curriculum_eps",
    "check_k",
    "check_t",
    "cor_e2_diagonal_truncated",
    "cor_e2_v_update",
    "curriculum_lambda_moment",
    "curriculum_limit",
    "curriculum_tensor",
    "e43_as_printed",
    "e43_corrected",
    "e49_as_printed",
    "eigenvalue",
    "expected_kl_given_counts",
    "expected_row_entropy_two_state",
    "leading_argmax_v2",
    "lemma84_closed_form",
    "lemma84_constant",
    "matrix_power_closed_form",
    "matrix_power_entry_form",
    "next_token_class_probabilities",
    "ngram_kl_asymptotic",
    "normalised_bigram_frequencies",
    "posterior_beta_marginal",
    "posterior_dirichlet",
    "posterior_mean",
    "posterior_mean_as_printed",
    "stationary_law",
    "stationary_monomial_integral",
    "step1_W_leading",
    "step1_v_leading",
    "step2_diag_leading",
    "strategy_probs",
    "transition_count_classes",
    "transition_matrix",
    "two_state_strategy_kl",
    "uniform_kl_two_state",
    "unigram_logits",
]

#: The k = 2 parameters of Eq. (E.1): P = [[a, 1-a], [1-b, b]].
A, B = sympy.symbols("a b", real=True)
_HALF = sympy.Rational(1, 2)

# --- Shared docstring sections (:func:`theory._docstrings.fill_doc`)

_POWER = """
n : int or sympy.Expr
    The power: an integer (negative only when P is invertible) or a symbolic expression; the exact
    ``lambda^n`` of numeric a, b has at most 4000 digits.
a, b : number or sympy expression, optional
    The parameters of Eq. (E.1), the symbols ``A``, ``B`` by default; numeric values must lie in [0, 1].
    Not both 1.
"""
_SEQ_K = """
seq : sequence of int
    The sequence, tokens in ``range(k)``.
k : int
    Number of states, ``k >= 2``.
"""
_T_J = """
t : int
    Context length, ``t >= 2``.
j : int
    The lag, in ``1..t``.
"""

_DOC = {
    "power": sections(_POWER, returns="sympy.Matrix\n    ``P^n``."),
    "seq_k": sections(_SEQ_K),
    "seq_k_logits": sections(_SEQ_K, returns="list of list of int\n    ``f[p][i]``, one row per position."),
    "counts_alpha": sections(
        """
counts : k x k table of int
    Transition counts ``c_ij`` (``k >= 2``, entries >= 0).
alpha : sequence of k positive numbers, optional
    Dirichlet concentrations; all 1 (the flat prior) by default.
"""
    ),
    "expected_kl": sections(returns="sympy.Expr\n    The expected KL, exact."),
    "closed_form": sections(returns="sympy.Expr\n    The closed form."),
    "lag": sections("j : int\n    The lag, ``j >= 1``."),
    "integral": sections('name : {"E.24", "E.25", "E.29-collision", "E.42", "D"}\n    The integral.'),
    "t_j": sections(_T_J),
    "t_j_entries": _T_J.strip("\n"),
}


#: Largest n of the exact harmonic-type sums (:func:`cor_e2_v_update` at context length t = n,
#: :func:`expected_kl_given_counts` at N_i + k = n): their denominators are near lcm(1..n), about 0.43 n digits
#: (3900 at n = 9000, within ``MAX_DIGITS``).
MAX_HARMONIC_N = 9000

#: Largest total degree alpha + beta + gamma + delta of :func:`stationary_monomial_integral` (a table of n^2/2 exact
#: integrals with ~0.9 n-digit integers: 0.5 s at n = 200, 1.2 s at n = 300).
MAX_MONOMIAL_DEGREE = 300

#: Largest lag j of the exact sympy integrals ``K_j`` (:func:`K`, :func:`leading_argmax_v2`, :func:`step2_diag_leading`):
#: K_8 takes 9 s, K_12 18 s, K_16 did not finish in 9 minutes.
MAX_EXACT_LAG = 12


def check_k(k: object) -> int:
    """The number of states ``k >= 2`` (Sec. 8.2.1: a Markov chain needs at least two states).

    Parameters
    ----------
    k : int
        The number of states.

    Returns
    -------
    int
        ``k``, validated.

    Examples
    --------
    >>> check_k(3)
    3
    >>> check_k(1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: k must be an integer >= 2 (Edelman Sec. 8.2.1: a chain on k >= 2 states), got k = 1
    """
    return check_positive_int(k, "k", minimum=2, hypothesis="Edelman Sec. 8.2.1: a chain on k >= 2 states")


def check_t(t: object) -> int:
    """The context length ``t >= 2`` (a bigram needs two tokens).

    Parameters
    ----------
    t : int
        The context length.

    Returns
    -------
    int
        ``t``, validated.

    Examples
    --------
    >>> check_t(2)
    2
    >>> check_t(1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: t must be an integer >= 2 (a context of t >= 2 tokens holds at least one bigram), ...
    """
    return check_positive_int(t, "t", minimum=2, hypothesis="a context of t >= 2 tokens holds at least one bigram")


def check_lag(j: object, t: int) -> int:
    """The lag ``j`` of a positional weight ``v_j``: an integer in ``1..t`` (the model has t lags)."""
    j = check_positive_int(j, "j", minimum=1, hypothesis=f"v has the lags 1..t = {format_count(t)}")
    if j > t:
        raise InputError(
            f"j must be an integer in 1..t = {format_count(t)} (v has t lags), got j = {format_count(j)}", param="j"
        )
    return j


# --- Eq. (E.1), (E.15): the k = 2 chain


def _check_ab(a: object, b: object, *, irreducible: bool = False) -> tuple[sympy.Expr, sympy.Expr]:
    """``a, b`` as sympy values; numeric ones must lie in [0, 1] (else P is not a stochastic matrix) and, for the
    stationary law, not both equal 1 (then P = I has no unique stationary law)."""
    out = []
    for name, v in (("a", a), ("b", b)):
        x = as_number(v, name)
        if x.is_number and (not x.is_real or x < 0 or x > 1):
            raise InputError(
                f"{name} must lie in [0, 1] (Eq. (E.1): the rows of P = [[a, 1-a], [1-b, b]] are probability "
                f"vectors), got {name} = {_shown(x)}: P would not be a stochastic matrix",
                param=name,
            )
        out.append(x)
    if irreducible and out[0] == 1 and out[1] == 1:
        raise InputError(
            "a = b = 1 gives P = I, which has no unique stationary law (App. E.1 needs lambda != 1)", param=None
        )
    return out[0], out[1]


def transition_matrix(a: sympy.Expr = A, b: sympy.Expr = B) -> sympy.Matrix:
    """``P = [[a, 1-a], [1-b, b]]`` (Eq. (E.1)); numeric ``a, b`` outside [0, 1] raise ValueError.

    Parameters
    ----------
    a, b : number or sympy expression, optional
        The parameters of Eq. (E.1), the symbols ``A``, ``B`` by default; numeric values must lie in [0, 1].

    Returns
    -------
    sympy.Matrix
        The 2 x 2 transition matrix.

    Examples
    --------
    >>> transition_matrix()
    Matrix([
    [    a, 1 - a],
    [1 - b,     b]])
    >>> from sympy import Rational
    >>> transition_matrix(Rational(1, 3), Rational(1, 2))
    Matrix([
    [1/3, 2/3],
    [1/2, 1/2]])
    >>> transition_matrix(2, 0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: a must lie in [0, 1] (Eq. (E.1): ...), got a = 2: P would not be a stochastic matrix
    """
    a, b = _check_ab(a, b)
    return sympy.Matrix([[a, 1 - a], [1 - b, b]])


def eigenvalue(a: sympy.Expr = A, b: sympy.Expr = B) -> sympy.Expr:
    """The second eigenvalue ``lambda = a + b - 1`` of P (App. E.1, after Eq. (E.15)).

    Parameters
    ----------
    a, b : number or sympy expression, optional
        The parameters of Eq. (E.1), the symbols ``A``, ``B`` by default (finite numbers; the range is not checked:
        ``a + b - 1`` is an eigenvalue of ``[[a, 1-a], [1-b, b]]`` for any a, b).

    Returns
    -------
    sympy.Expr
        ``a + b - 1``.

    Examples
    --------
    >>> eigenvalue()
    a + b - 1
    >>> from sympy import Rational
    >>> a, b = Rational(1, 3), Rational(1, 2)
    >>> sorted(transition_matrix(a, b).eigenvals()) == sorted([eigenvalue(a, b), 1])
    True
    """
    x, y = as_number(a, "a"), as_number(b, "b")  # refuses NaN, infinities, lists and non-numeric strings
    return (x if isinstance(a, str) else a) + (y if isinstance(b, str) else b) - 1


def stationary_law(a: sympy.Expr = A, b: sympy.Expr = B) -> sympy.Matrix:
    """``pi = (1-b, 1-a)/(2-a-b)`` as a row vector (App. E.1: ``pi = (b-1, a-1)/(lambda-1)``).

    Parameters
    ----------
    a, b : number or sympy expression, optional
        The parameters of Eq. (E.1), the symbols ``A``, ``B`` by default; numeric values must lie in [0, 1].
        Not both 1 (then P = I has no unique stationary law).

    Returns
    -------
    sympy.Matrix
        The 1 x 2 row vector pi.

    Examples
    --------
    >>> from sympy import Rational
    >>> a, b = Rational(1, 3), Rational(1, 2)
    >>> stationary_law(a, b)
    Matrix([[3/7, 4/7]])
    >>> stationary_law(a, b) * transition_matrix(a, b) == stationary_law(a, b)
    True
    >>> stationary_law(1, 1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: a = b = 1 gives P = I, which has no unique stationary law (App. E.1 needs lambda != 1)
    """
    a, b = _check_ab(a, b, irreducible=True)
    return sympy.Matrix([[1 - b, 1 - a]]) / (2 - a - b)


def _check_power(n: object, lam: sympy.Expr) -> int | sympy.Expr:
    """The power n of ``P^n``: an integer (negative only for an invertible P, lambda != 0) or a symbolic sympy
    expression; the exact ``lambda^n`` of a numeric lambda has at most MAX_DIGITS digits (checked before it is formed:
    ``(-1/6)^(10^9)`` ran for minutes)."""
    if isinstance(n, sympy.Basic) and not n.is_number:
        if not isinstance(n, sympy.Expr):
            raise InputError(f"n must be an integer or a sympy expression, got {n!r:.80}", param="n")
        return n
    if isinstance(n, bool) or not isinstance(n, (numbers.Integral, sympy.Integer)):
        raise InputError(
            f"n must be an integer (or a symbolic sympy expression), got {n!r:.80} of type {type(n).__name__}",
            param="n",
        )
    n = int(n)
    if n < 0 and lam.is_number and lam == 0:
        raise InputError(f"n = {format_count(n)} < 0 needs an invertible P, but lambda = a + b - 1 = 0", param="n")
    if lam.is_number and not lam.is_Float and lam not in (0, 1, -1):
        # digits of lambda^n per unit of n: exact for a rational lambda, a bound (all its rationals) otherwise
        size = max(math.log10(abs(lam.p)), math.log10(lam.q)) if lam.is_Rational else max(_digits(lam), 1.0)
        check_cost(
            abs(n) * size if abs(n) < 10**300 else math.inf,
            MAX_DIGITS,
            param="n",
            value=n,
            what=f"the exact lambda^n at lambda = {_shown(lam)}",
            hint="pass a sympy Symbol for n, or floats for a and b",
            log10=True,
        )
    return n


@fill_doc(_DOC)
def matrix_power_closed_form(n: int | sympy.Expr, a: sympy.Expr = A, b: sympy.Expr = B) -> sympy.Matrix:
    """``P^n = 1 pi + lambda^n (I - 1 pi)`` (Eq. (E.15) rewritten with the projector ``1 pi``).

    {{power}}

    Examples
    --------
    >>> from sympy import Rational
    >>> a, b = Rational(1, 3), Rational(1, 2)
    >>> matrix_power_closed_form(3, a, b)
    Matrix([
    [23/54, 31/54],
    [31/72, 41/72]])
    >>> matrix_power_closed_form(3, a, b) == transition_matrix(a, b) ** 3
    True

    The exact ``lambda^n`` is sized before it is formed (at most 4000 digits):

    >>> matrix_power_closed_form(10**9, a, b)
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: n = 1,000,000,000 is too large: the exact lambda^n at lambda = -1/6 is ~10^778151250, ...
    """
    a, b = _check_ab(a, b, irreducible=True)
    n = _check_power(n, eigenvalue(a, b))
    one_pi = sympy.ones(2, 1) * stationary_law(a, b)
    return one_pi + eigenvalue(a, b) ** n * (sympy.eye(2) - one_pi)


@fill_doc(_DOC)
def matrix_power_entry_form(n: int | sympy.Expr, a: sympy.Expr = A, b: sympy.Expr = B) -> sympy.Matrix:
    """The printed form of Eq. (E.15): ``P^n_ij = (beta_ij lambda^n + gamma_ij)/(lambda - 1)``.

    {{power}}

    Examples
    --------
    >>> from sympy import Rational
    >>> a, b = Rational(1, 3), Rational(1, 2)
    >>> matrix_power_entry_form(3, a, b) == matrix_power_closed_form(3, a, b) == transition_matrix(a, b) ** 3
    True
    """
    a, b = _check_ab(a, b, irreducible=True)
    lam = eigenvalue(a, b)
    n = _check_power(n, lam)
    beta = sympy.Matrix([[a - 1, 1 - a], [1 - b, b - 1]])
    gamma = sympy.Matrix([[b - 1, a - 1], [b - 1, a - 1]])
    return (beta * lam**n + gamma) / (lam - 1)


# --- Sec. 8.2.2: the strategies on one sequence; Fact 8.3 and Prop. 8.2


def _token(s: object) -> int | None:
    """A token as an int: an integer, or an integral float (a float token array); None for anything else."""
    if isinstance(s, bool):
        return None
    if isinstance(s, (numbers.Integral, sympy.Integer)):
        return int(s)
    if isinstance(s, numbers.Real) and math.isfinite(float(s)) and float(s).is_integer():
        return int(float(s))
    return None


def _check_seq(seq: Sequence[int], k: int, *, per_token: int = 1) -> list[int]:
    """A sequence of tokens in range(k); the table of ``per_token`` entries per position (k for the logits) has at
    most MAX_EXACT_ENTRIES entries, checked from the length before the tokens are read."""
    if isinstance(seq, (str, bytes)) or not hasattr(seq, "__iter__"):
        raise InputError(f"seq must be a sequence of tokens in range({k}), got {seq!r:.80}", param="seq")
    if hasattr(seq, "__len__"):
        _check_table_size(len(seq), k, per_token)
    raw = list(seq)
    _check_table_size(len(raw), k, per_token)
    x = [_token(s) for s in raw]
    if not x or any(s is None or s < 0 or s >= k for s in x):
        raise InputError(
            f"a sequence must be a non-empty list of tokens in range({k}), got {raw[:10]!r:.200}...", param="seq"
        )
    return x  # type: ignore[return-value]


def _check_table_size(t: int, k: int, per_token: int) -> None:
    if per_token == 1:
        return
    check_cost(
        t * per_token,
        _checks.MAX_EXACT_ENTRIES,
        param="seq" if t >= k else "k",
        value=t if t >= k else k,
        what=f"the number t k of exact counts at t = {format_count(t)} positions, k = {format_count(k)} states",
        hint="numerics.markov counts batches of sequences in float64",
    )


def _ngram_counts(x: list[int], k: int, order: int) -> list[int]:
    """``counts[j]`` = number of s with ``x[s-order+1:s]`` equal to the last ``order - 1`` tokens and ``x[s] = j``:
    the occurrences of that context in ``x[:-1]``, found in O(t) by Knuth-Morris-Pratt (the slice-by-slice
    comparison was O(t n))."""
    t = len(x)
    counts = [0] * k
    if order > t:
        return counts
    pattern = x[t - order + 1 :]
    m = len(pattern)
    fail = [0] * m  # the KMP failure function of the pattern
    q = 0
    for i in range(1, m):
        while q and pattern[i] != pattern[q]:
            q = fail[q - 1]
        if pattern[i] == pattern[q]:
            q += 1
        fail[i] = q
    q = 0
    for i in range(t - 1):  # a match ending at i is followed by the token x[i + 1]
        while q and x[i] != pattern[q]:
            q = fail[q - 1]
        if x[i] == pattern[q]:
            q += 1
        if q == m:
            counts[x[i + 1]] += 1
            q = fail[q - 1]
    return counts


def strategy_probs(seq: Sequence[int], k: int, strategy: str, n: int = 2) -> list[Fraction]:
    """The next-token law after the context ``seq = x_1..x_t`` (Sec. 8.2.2, flat Dirichlet prior).

    ``uniform``: ``1/k``; ``unigram``: ``(n_j + 1)/(t + k)``; ``bigram``: ``(c_{x_t j} + 1)/(N_{x_t} + k)``;
    ``ngram`` (Sec. 8.3.3): the same with the context ``(x_{t-n+2}, ..., x_t)`` of ``n - 1`` tokens.

    Parameters
    ----------
    seq : sequence of int
        The context, tokens in ``range(k)``.
    k : int
        Number of states, ``k >= 2``.
    strategy : {"uniform", "unigram", "bigram", "ngram"}
        The strategy.
    n : int, optional
        The order of ``ngram`` (``n >= 2``; ignored otherwise).

    Returns
    -------
    list of fractions.Fraction
        The k next-token probabilities.

    Examples
    --------
    >>> seq = [0, 1, 1, 0, 1]
    >>> [str(q) for q in strategy_probs(seq, 2, "unigram")]
    ['3/7', '4/7']
    >>> [str(q) for q in strategy_probs(seq, 2, "bigram")]
    ['1/2', '1/2']
    >>> [str(q) for q in strategy_probs(seq, 2, "ngram", n=3)]
    ['1/3', '2/3']
    >>> strategy_probs(seq, 2, "trigram")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: unknown strategy 'trigram'; expected uniform, unigram, bigram or ngram
    """
    k = check_k(k)
    check_cost(k, _checks.MAX_EXACT_ENTRIES, param="k", value=k, what="the number of exact probabilities", hint="")
    if strategy not in ("uniform", "unigram", "bigram", "ngram"):
        raise InputError(
            f"unknown strategy {strategy!r:.80}; expected uniform, unigram, bigram or ngram", param="strategy"
        )
    order = check_positive_int(n, "n", minimum=2) if strategy == "ngram" else 2
    x = _check_seq(seq, k)
    if strategy == "uniform":
        return [Fraction(1, k)] * k
    if strategy == "unigram":
        seen = [0] * k
        for s in x:
            seen[s] += 1
        return [Fraction(seen[j] + 1, len(x) + k) for j in range(k)]
    counts = _ngram_counts(x, k, order)
    total = sum(counts)
    return [Fraction(c + 1, total + k) for c in counts]


@fill_doc(_DOC)
def bigram_logits(seq: Sequence[int], k: int) -> list[list[int]]:
    """Fact 8.3 (bigrams): ``f_{p,i} = sum_{t'=2}^{p} 1{x_t' = i} 1{x_{t'-1} = x_p}`` for p = 1..t (raw counts).

    {{seq_k_logits}}

    Examples
    --------
    >>> bigram_logits([0, 1, 1, 0, 1], 2)
    [[0, 0], [0, 0], [0, 1], [0, 1], [1, 1]]
    """
    k = check_k(k)
    x = _check_seq(seq, k, per_token=k)
    rows: dict[int, list[int]] = {}  # transition counts c[i][j] seen so far, one row per state left
    out = []
    for p in range(len(x)):
        if p:
            rows.setdefault(x[p - 1], [0] * k)[x[p]] += 1
        out.append(list(rows.get(x[p], [0] * k)))
    return out


@fill_doc(_DOC)
def unigram_logits(seq: Sequence[int], k: int) -> list[list[int]]:
    """Fact 8.3 (unigrams): ``f_{p,i} = #{t' <= p: x_t' = i}`` for p = 1..t.

    {{seq_k_logits}}

    Examples
    --------
    >>> unigram_logits([0, 1, 1, 0, 1], 2)
    [[1, 0], [1, 1], [1, 2], [2, 2], [2, 3]]
    """
    k = check_k(k)
    x = _check_seq(seq, k, per_token=k)
    seen = [0] * k
    out = []
    for s in x:
        seen[s] += 1
        out.append(list(seen))
    return out


@fill_doc(_DOC)
def normalised_bigram_frequencies(seq: Sequence[int], k: int) -> list[list[Fraction] | None]:
    """What the construction of Prop. 8.2 outputs at position i: ``c_{x_i, j}/N_{x_i}`` over the transitions
    ``x_{s-1} -> x_s``, ``s <= i``, with the boundary convention ``x_0 := x_1`` (the first position attends to itself
    in layer 1; ``docs/markov.md``). ``None`` where no transition leaves ``x_i`` (there the construction's output
    is not a bigram statistic).

    {{seq_k}}

    Returns
    -------
    list of (list of fractions.Fraction or None)
        One entry per position.

    Examples
    --------
    >>> out = normalised_bigram_frequencies([0, 1, 1, 0, 1], 2)
    >>> [None if row is None else [str(q) for q in row] for row in out]
    [['1', '0'], None, ['0', '1'], ['1/2', '1/2'], ['1/2', '1/2']]
    """
    k = check_k(k)
    x = _check_seq(seq, k, per_token=k)
    prev = [x[0], *x[:-1]]  # x_0 := x_1
    rows: dict[int, list[int]] = {}  # counts of the transitions prev[s] -> x[s], s <= i, one row per state left
    out: list[list[Fraction] | None] = []
    for i in range(len(x)):
        rows.setdefault(prev[i], [0] * k)[x[i]] += 1
        counts = rows.get(x[i], [0] * k)
        total = sum(counts)
        out.append([Fraction(c, total) for c in counts] if total else None)
    return out


# --- Eqs. (8.1)-(8.3): the Dirichlet posterior, as corrected and as printed


def _rows(values: object, name: str) -> list[list[object]]:
    """A caller's table as a list of rows (never a string, which would be read character by character)."""
    if isinstance(values, (str, bytes)):
        raise InputError(f"{name} must be a table of numbers, got {values!r:.80}", param=name)
    try:
        return [list(row) if not isinstance(row, (str, bytes)) else [row] for row in values]  # type: ignore[attr-defined]
    except TypeError:
        raise InputError(f"{name} must be a table of numbers, got {values!r:.80}", param=name) from None


def _count(v: object) -> int | None:
    """A count: a non-negative integer (integral floats accepted, as tokens); None for anything else."""
    x = _token(v)
    return x if x is not None and x >= 0 else None


def _counts_alpha(counts: Sequence[Sequence[int]], alpha: Sequence[int | Fraction] | None) -> tuple[list, list]:
    rows = _rows(counts, "counts")
    c = [[_count(v) for v in row] for row in rows]
    k = len(c)
    if k < 2 or any(len(row) != k for row in c) or any(v is None for row in c for v in row):
        raise InputError(
            f"counts must be a k x k table of non-negative integers (k >= 2), got {counts!r:.200}", param="counts"
        )
    if alpha is None:
        al = [Fraction(1)] * k
    else:
        if isinstance(alpha, (str, bytes)) or not hasattr(alpha, "__iter__"):
            raise InputError(f"alpha must hold k = {k} positive concentrations, got {alpha!r:.80}", param="alpha")
        al = [_checks.as_fraction(v, "alpha") for v in alpha]
    if len(al) != k or any(v <= 0 for v in al):
        raise InputError(f"alpha must hold k = {k} positive concentrations, got {alpha!r:.200}", param="alpha")
    return c, al


def _state(i: object, name: str, k: int) -> int:
    """A state index in 0..k-1 (a negative index would silently read from the end)."""
    v = check_positive_int(i, name, minimum=0, hypothesis=f"a state of 0..k-1 = 0..{k - 1}")
    if v >= k:
        raise InputError(f"{name} must be a state in 0..k-1 = 0..{k - 1}, got {name} = {format_count(v)}", param=name)
    return v


@fill_doc(_DOC)
def posterior_dirichlet(counts: Sequence[Sequence[int]], alpha: Sequence[int | Fraction] | None = None) -> list:
    """(8.1) corrected: ``P_{i,:} | x ~ Dir(alpha + c_{i,:})`` (no leading "k" parameter); one list per row.

    {{counts_alpha}}

    Returns
    -------
    list of list of fractions.Fraction
        The posterior concentrations of each row.

    Examples
    --------
    >>> [[str(v) for v in row] for row in posterior_dirichlet([[3, 1], [0, 2]])]
    [['4', '2'], ['1', '3']]
    >>> posterior_dirichlet([[1, 2]])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: counts must be a k x k table of non-negative integers (k >= 2), got [[1, 2]]
    """
    c, al = _counts_alpha(counts, alpha)
    return [[al[j] + c[i][j] for j in range(len(c))] for i in range(len(c))]


def posterior_beta_marginal(
    counts: Sequence[Sequence[int]], i: int, j: int, alpha: Sequence[int | Fraction] | None = None
) -> tuple[Fraction, Fraction]:
    """(8.2): ``P_ij | x ~ Beta(c_ij + alpha_j, sum_l alpha_l + N_i - alpha_j - c_ij)``.

    Parameters
    ----------
    counts : k x k table of int
        Transition counts ``c_ij`` (``k >= 2``, entries >= 0).
    i, j : int
        The entry ``P_ij``.
    alpha : sequence of k positive numbers, optional
        Dirichlet concentrations; all 1 (the flat prior) by default.

    Returns
    -------
    (fractions.Fraction, fractions.Fraction)
        The two Beta parameters.

    Examples
    --------
    >>> posterior_beta_marginal([[3, 1], [0, 2]], 0, 1)
    (Fraction(2, 1), Fraction(4, 1))
    """
    c, al = _counts_alpha(counts, alpha)
    i, j = _state(i, "i", len(c)), _state(j, "j", len(c))
    return al[j] + c[i][j], sum(al) + sum(c[i]) - al[j] - c[i][j]


@fill_doc(_DOC)
def posterior_mean(counts: Sequence[Sequence[int]], alpha: Sequence[int | Fraction] | None = None) -> list:
    """(8.3) corrected: ``E[P_ij | x] = (c_ij + alpha_j)/(N_i + sum_l alpha_l)`` with ``N_i = sum_j c_ij``.

    {{counts_alpha}}

    Returns
    -------
    list of list of fractions.Fraction
        The posterior mean of P; every row sums to 1.

    Examples
    --------
    >>> [[str(v) for v in row] for row in posterior_mean([[3, 1], [0, 2]])]
    [['2/3', '1/3'], ['1/4', '3/4']]
    """
    c, al = _counts_alpha(counts, alpha)
    return [[(c[i][j] + al[j]) / (sum(c[i]) + sum(al)) for j in range(len(c))] for i in range(len(c))]


@fill_doc(_DOC)
def posterior_mean_as_printed(counts: Sequence[Sequence[int]], alpha: Sequence[int | Fraction] | None = None) -> list:
    """(8.3) as printed: ``(c_ij + alpha_j)/(N + sum_i alpha_i)``, N read as the total number of transitions.

    {{counts_alpha}}

    Returns
    -------
    list of list of fractions.Fraction
        The printed formula's values; its rows do not sum to 1.

    Examples
    --------
    >>> [[str(v) for v in row] for row in posterior_mean_as_printed([[3, 1], [0, 2]])]
    [['1/2', '1/4'], ['1/8', '3/8']]
    """
    c, al = _counts_alpha(counts, alpha)
    total = sum(sum(row) for row in c)
    return [[(c[i][j] + al[j]) / (total + sum(al)) for j in range(len(c))] for i in range(len(c))]


def _harmonic_numbers(n: int) -> list[Fraction]:
    """``[H_0, H_1, ..., H_n]`` exactly (one pass: each H_m was summed from scratch, once per entry of a row)."""
    out = [Fraction(0)]
    for m in range(1, n + 1):
        out.append(out[-1] + Fraction(1, m))
    return out


def _check_harmonic_n(n: int, param: str, value: object) -> None:
    """The order n of the exact harmonic-type sums is at most MAX_HARMONIC_N (about 0.43 n digits)."""
    check_cost(
        n,
        MAX_HARMONIC_N,
        param=param,
        value=value,
        what="the order n of the exact harmonic sums (H_n has about 0.43 n digits)",
        hint="numerics.markov_gradients evaluates it in float64",
    )


@fill_doc(_DOC)
def expected_kl_given_counts(counts_row: Sequence[int]) -> sympy.Expr:
    """``E[KL(P_{i,:} || q) | c] = sum_j q_j [psi(c_ij + 2) - psi(N_i + k + 1) - ln q_j]``, ``q_j = (c_ij+1)/(N_i+k)``.

    The bigram strategy's expected loss on row i given its counts under the posterior Dir(1 + c_{i,:}), from
    ``E[X_j ln X_j] = (a_j/a_0)(psi(a_j + 1) - psi(a_0 + 1))`` for ``X ~ Dir(a)`` (``docs/markov.md``). The digamma
    differences are rational: ``psi(m) - psi(n) = H_{m-1} - H_{n-1}``.

    Parameters
    ----------
    counts_row : sequence of int
        The counts ``c_{i,:}`` of one row (k >= 2 entries, >= 0).

    {{expected_kl}}

    Examples
    --------
    >>> expected_kl_given_counts([3, 1])
    -101/180 - 2*log(2)/3 + log(3)

    With no counts the posterior is the flat prior, whose row entropy has mean 1/2:

    >>> expected_kl_given_counts([0, 0])
    -1/2 + log(2)
    """
    if isinstance(counts_row, (str, bytes)) or not hasattr(counts_row, "__iter__"):
        raise InputError(
            f"counts_row must hold k >= 2 non-negative integers, got {counts_row!r:.80}", param="counts_row"
        )
    if hasattr(counts_row, "__len__"):
        _check_harmonic_n(len(counts_row), "counts_row", f"a row of k = {format_count(len(counts_row))} counts")
    c = [_count(v) for v in counts_row]
    if len(c) < 2 or any(v is None for v in c):
        raise InputError(
            f"counts_row must hold k >= 2 non-negative integers, got {counts_row!r:.200}", param="counts_row"
        )
    k, total = len(c), sum(c)  # type: ignore[arg-type]
    _check_harmonic_n(total + k, "counts_row", f"a row with N_i + k = {format_count(total + k)}")
    H = _harmonic_numbers(total + k)
    h_total = sympy.Rational(H[total + k])
    terms = []  # equal counts give equal terms: each distinct one is formed once, times its multiplicity
    for cj, times in collections.Counter(c).items():
        q = sympy.Rational(cj + 1, total + k)  # type: ignore[operator]
        terms.append(times * (q * (sympy.Rational(H[cj + 1]) - h_total - sympy.log(q))))  # type: ignore[operator]
    return sympy.expand_log(sympy.Add(*terms), force=True)


# --- App. E.2: strategy KLs at the last token


@fill_doc(_DOC)
def expected_row_entropy_two_state() -> sympy.Expr:
    """``E_pi[H(P_{x,:})] = E_{a,b}[pi_1 H(a) + pi_2 H(b)] = 1/6 - (2/3) ln 2 - (2/3) ln^2 2 + pi^2/9`` (k = 2).

    The entropy of the row the last token reads, weighted by the stationary law (not the unweighted
    ``E[H] = 1/2``). The inner integral is elementary; the closed form of the outer one was identified by an integer
    relation (PSLQ) on a 40-digit quadrature and is re-checked to 40 digits in ``tests/theory/test_markov.py``.

    {{closed_form}}

    Examples
    --------
    >>> expected_row_entropy_two_state()
    -2*log(2)/3 - 2*log(2)**2/3 + 1/6 + pi**2/9
    >>> round(float(expected_row_entropy_two_state()), 6)
    0.480889
    """
    ln2 = sympy.log(2)
    return sympy.Rational(1, 6) - sympy.Rational(2, 3) * ln2 - sympy.Rational(2, 3) * ln2**2 + sympy.pi**2 / 9


@fill_doc(_DOC)
def uniform_kl_two_state() -> sympy.Expr:
    """The uniform strategy's KL at the last token, k = 2: ``ln 2 - E_pi[H(row)]`` (App. E.2's metric).

    {{closed_form}}

    Examples
    --------
    >>> uniform_kl_two_state()
    -pi**2/9 - 1/6 + 2*log(2)**2/3 + 5*log(2)/3
    >>> round(float(uniform_kl_two_state()), 6)
    0.212258
    """
    return sympy.expand(sympy.log(2) - expected_row_entropy_two_state())


def ngram_kl_asymptotic(k: int, t: int, n: int = 2) -> sympy.Rational:
    """The n-gram strategy's KL at the last token for large t: ``k^{n-1}(k-1)/(2t)`` (bigram: ``k(k-1)/(2t)``).

    Each of the ``k^{n-1}`` contexts is seen about ``t/k^{n-1}`` times and a Dirichlet posterior mean on k outcomes
    from m draws costs ``(k-1)/(2m)`` nats (``docs/markov.md``).

    Parameters
    ----------
    k : int
        Number of states, ``k >= 2``.
    t : int
        Context length, ``t >= 2``.
    n : int, optional
        Order of the n-gram, ``n >= 2`` (2: bigram).

    Returns
    -------
    sympy.Rational
        ``k^{n-1}(k-1)/(2t)``.

    Examples
    --------
    >>> ngram_kl_asymptotic(2, 100), ngram_kl_asymptotic(3, 100, n=3)
    (1/100, 9/100)
    """
    k, t, n = check_k(k), check_t(t), check_positive_int(n, "n", minimum=2)
    check_cost(
        n * math.log10(k) if n < 10**300 else math.inf,
        MAX_DIGITS,
        param="n" if n > 2 else "k",
        value=n if n > 2 else k,
        what=f"the exact k^(n-1) (k-1) at k = {format_count(k)}",
        hint="its logarithm is (n-1) ln k + ln(k-1) - ln(2t)",
        log10=True,
    )
    return sympy.Rational(k ** (n - 1) * (k - 1), 2 * t)


#: Largest context length of the exact finite-t strategy KLs (the work grows like t^4: 0.6 s at t = 40, about 12 s
#: at t = 100, the thesis's context).
MAX_EXACT_T = 100

_Ln2 = tuple[Fraction, Fraction]  # r + s ln 2


@functools.lru_cache(maxsize=8)
def _stationary_integral_table(n: int) -> tuple[int, dict[tuple[int, int], tuple[int, int]]]:
    """``I(p, q) = int_0^1 int_0^1 u^p w^q/(u + w) du dw = (R + S ln 2)/D`` for ``p + q <= n``, exactly (integers R, S
    over the common denominator ``D = lcm(1..n+2)^2``; returns D and the table).

    ``I(p, q) = 1/(p(q+1)) - I(p-1, q+1)`` (from ``u/(u+w) = 1 - w/(u+w)``) down to
    ``I(0, m) = int_0^1 w^m (ln(1+w) - ln w) dw = (ln 2 - M_{m+1})/(m+1) + 1/(m+1)^2`` with
    ``M_m = int_0^1 w^m/(1+w) dw = 1/m - M_{m-1}``, ``M_0 = ln 2``.
    """
    M: list[_Ln2] = [(Fraction(0), Fraction(1))]
    for m in range(1, n + 2):
        M.append((Fraction(1, m) - M[-1][0], -M[-1][1]))
    table: dict[tuple[int, int], _Ln2] = {}
    for d in range(n + 1):
        r, s = M[d + 1]
        table[(0, d)] = (Fraction(1, (d + 1) ** 2) - r / (d + 1), Fraction(1, d + 1) - s / (d + 1))
        for p in range(1, d + 1):
            r0, s0 = table[(p - 1, d - p + 1)]
            table[(p, d - p)] = (Fraction(1, p * (d - p + 1)) - r0, -s0)
    D = math.lcm(*range(1, n + 3)) ** 2
    scaled = {}
    for key, (r, s) in table.items():
        R, S = r * D, s * D
        assert R.denominator == 1 and S.denominator == 1  # D is a common denominator
        scaled[key] = (int(R), int(S))
    return D, scaled


def stationary_monomial_integral(alpha: int, beta: int, gamma: int, delta: int) -> _Ln2:
    """``E_{a,b ~ U(0,1)}[a^alpha (1-a)^beta (1-b)^gamma b^delta / (2 - a - b)] = r + s ln 2``, exactly.

    With ``u = 1 - a``, ``w = 1 - b`` this is ``int int (1-u)^alpha u^beta w^gamma (1-w)^delta/(u + w)``; the binomial
    expansions of ``(1-u)^alpha`` and ``(1-w)^delta`` reduce it to the table ``I(p, q)``. Every probability of a
    k = 2 chain with ``x_1 ~ pi`` is a sum of such terms: ``pi_1 = (1-b)/(2-a-b)``, ``pi_2 = (1-a)/(2-a-b)``.

    Parameters
    ----------
    alpha, beta, gamma, delta : int
        The exponents, each >= 0, of total degree at most ``MAX_MONOMIAL_DEGREE`` (300).

    Returns
    -------
    (r, s) : tuple of fractions.Fraction
        The value is ``r + s ln 2``.

    Examples
    --------
    >>> stationary_monomial_integral(0, 0, 0, 0)  # E[1/(2-a-b)] = 2 ln 2
    (Fraction(0, 1), Fraction(2, 1))
    >>> stationary_monomial_integral(0, 0, 1, 0), stationary_monomial_integral(0, 1, 0, 0)  # E[pi_1], E[pi_2]
    ((Fraction(1, 2), Fraction(0, 1)), (Fraction(1, 2), Fraction(0, 1)))
    """
    names = ("alpha", "beta", "gamma", "delta")
    exps = {name: check_positive_int(v, name, minimum=0) for name, v in zip(names, (alpha, beta, gamma, delta))}
    largest = max(exps, key=exps.__getitem__)
    check_cost(
        sum(exps.values()),
        MAX_MONOMIAL_DEGREE,
        param=largest,
        value=exps[largest],
        what="the total degree alpha + beta + gamma + delta (a table of n^2/2 exact integrals)",
        hint="numerics.markov_gradients integrates in float64",
    )
    alpha, beta, gamma, delta = exps["alpha"], exps["beta"], exps["gamma"], exps["delta"]
    D, table = _stationary_integral_table(alpha + beta + gamma + delta)
    R = S = 0
    for i in range(alpha + 1):
        ci = math.comb(alpha, i) * (-1) ** i
        for m in range(delta + 1):
            c = ci * math.comb(delta, m) * (-1) ** m
            ri, si = table[(beta + i, gamma + m)]
            R += c * ri
            S += c * si
    return Fraction(R, D), Fraction(S, D)


def _check_exact_t(t: object) -> int:
    t = check_t(t)
    if t > MAX_EXACT_T:
        raise LimitError(
            f"t = {format_count(t)} is too large for the exact finite-t strategy KLs (the work grows like t^4), above the limit "
            f"t <= {MAX_EXACT_T}; use the Monte Carlo estimate numerics.markov.mc_strategy_kl "
            "(or numerics.markov_gradients.two_state_strategy_kl_quadrature up to t = 150)",
            param="t",
            value=t,
            limit=MAX_EXACT_T,
            hint="use the quadrature or the Monte Carlo estimate",
        )
    return t


@functools.lru_cache(maxsize=8)
def transition_count_classes(t: int) -> dict[tuple[int, ...], int]:
    """The k = 2 sequences ``x_1..x_t`` grouped by ``(x_1, x_t, c_00, c_01, c_10, c_11)`` (0-based tokens, ``c_ij`` the
    transitions ``i -> j``): the number of sequences in each class, by dynamic programming over t.

    A sequence's probability given (a, b) depends on it only through its class:
    ``pi_{x_1} a^c00 (1-a)^c01 (1-b)^c10 b^c11``.

    Parameters
    ----------
    t : int
        Sequence length, ``2 <= t <= MAX_EXACT_T`` (the classes number about t^3/6).

    Returns
    -------
    dict of tuple to int
        ``{(x_1, x_t, c_00, c_01, c_10, c_11): number of sequences}``.

    Examples
    --------
    >>> sorted(transition_count_classes(2).items())
    [((0, 0, 1, 0, 0, 0), 1), ((0, 1, 0, 1, 0, 0), 1), ((1, 0, 0, 0, 1, 0), 1), ((1, 1, 0, 0, 0, 1), 1)]
    >>> len(transition_count_classes(5)), sum(transition_count_classes(5).values())
    (22, 32)
    """
    t = _check_exact_t(t)
    classes: dict[tuple[int, ...], int] = {(x, x, 0, 0, 0, 0): 1 for x in (0, 1)}
    for _ in range(t - 1):
        step: dict[tuple[int, ...], int] = {}
        for (x1, xs, *c), n in classes.items():
            for y in (0, 1):
                cc = list(c)
                cc[2 * xs + y] += 1
                key = (x1, y, *cc)
                step[key] = step.get(key, 0) + n
        classes = step
    return classes


@functools.lru_cache(maxsize=8)
def next_token_class_probabilities(t: int) -> dict[tuple[tuple[int, ...], int], _Ln2]:
    """``P[class(x_1..x_t) = cls, x_{t+1} = j] = r + s ln 2`` for every class of :func:`transition_count_classes` and
    next token j (flat Dirichlet prior, k = 2, ``x_1 ~ pi``), exactly; the values sum to 1.

    Parameters
    ----------
    t : int
        Context length, ``2 <= t <= MAX_EXACT_T``.

    Returns
    -------
    dict of (tuple, int) to (fractions.Fraction, fractions.Fraction)
        ``{(class, j): (r, s)}``, the probability being ``r + s ln 2``.

    Examples
    --------
    >>> probs = next_token_class_probabilities(2)
    >>> probs[((0, 0, 1, 0, 0, 0), 0)]  # P[x = 0, 0, 0]
    (Fraction(-17, 24), Fraction(4, 3))
    >>> sum(r for r, _ in probs.values()), sum(s for _, s in probs.values())
    (Fraction(1, 1), Fraction(0, 1))
    """
    t = _check_exact_t(t)
    out: dict[tuple[tuple[int, ...], int], _Ln2] = {}
    for cls, n in transition_count_classes(t).items():
        x1, xt, c00, c01, c10, c11 = cls
        for j in (0, 1):
            e = [c00, c01, c10, c11]  # exponents of a, 1-a, 1-b, b
            e[2 if x1 == 0 else 1] += 1  # pi_{x_1} = (1-b or 1-a)/(2-a-b)
            e[2 * xt + j] += 1  # P_{x_t, j}
            r, s = stationary_monomial_integral(*e)
            out[(cls, j)] = (n * r, n * s)
    return out


def _prediction_two_state(cls: tuple[int, ...], t: int, strategy: str) -> list[Fraction]:
    """The strategy's next-token law after a sequence of class ``cls`` (Sec. 8.2.2, flat prior, k = 2)."""
    _x1, xt, c00, c01, c10, c11 = cls
    if strategy == "uniform":
        return [Fraction(1, 2)] * 2
    if strategy == "unigram":
        n0 = c00 + c01 + (xt == 0)  # visits to state 0 among x_1..x_t
        return [Fraction(n0 + 1, t + 2), Fraction(t - n0 + 1, t + 2)]
    if strategy == "bigram":
        row = (c00, c01) if xt == 0 else (c10, c11)
        return [Fraction(c + 1, sum(row) + 2) for c in row]
    raise InputError(f"unknown strategy {strategy!r:.80}; expected uniform, unigram or bigram", param="strategy")


@fill_doc(_DOC)
@functools.lru_cache(maxsize=32)
def two_state_strategy_kl(t: int, strategy: str) -> sympy.Expr:
    """A strategy's expected KL at the last token, k = 2, flat Dirichlet prior, ``x_1 ~ pi``, context length t, exact:

    ``E KL(P_{x_t,:} || q) = -E_pi[H(row)] - sum_{cls, j} P[cls, x_{t+1} = j] ln q_j(cls)``

    (:func:`expected_row_entropy_two_state`, :func:`next_token_class_probabilities`): a finite sum of
    ``(r + s ln 2) ln q`` with rational r, s, q (``docs/markov.md``). ``strategy`` is ``"uniform"`` (then the value is
    :func:`uniform_kl_two_state` for every t), ``"unigram"`` or ``"bigram"``; ``t <= MAX_EXACT_T``.

    Parameters
    ----------
    t : int
        Context length, ``2 <= t <= MAX_EXACT_T`` (any ``t >= 2`` for ``"uniform"``).
    strategy : {"uniform", "unigram", "bigram"}
        The strategy.

    {{expected_kl}}

    Examples
    --------
    >>> two_state_strategy_kl(7, "uniform") == uniform_kl_two_state()
    True

    At t = 2 the unigram strategy has the smaller KL, at t = 3 the bigram strategy:

    >>> [round(float(two_state_strategy_kl(t, s)), 4) for t in (2, 3) for s in ("unigram", "bigram")]
    [0.1475, 0.1526, 0.145, 0.1317]
    >>> two_state_strategy_kl(101, "bigram")
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: t = 101 is too large for the exact finite-t strategy KLs ...
    """
    if strategy not in ("uniform", "unigram", "bigram"):
        raise InputError(f"unknown strategy {strategy!r:.80}; expected uniform, unigram or bigram", param="strategy")
    if strategy == "uniform":
        check_t(t)
        return uniform_kl_two_state()
    t = _check_exact_t(t)
    by_q: dict[Fraction, list[Fraction]] = {}
    for (cls, j), (r, s) in next_token_class_probabilities(t).items():
        q = _prediction_two_state(cls, t, strategy)[j]
        acc = by_q.setdefault(q, [Fraction(0), Fraction(0)])
        acc[0] += r
        acc[1] += s
    ln2 = sympy.log(2)
    cross = sympy.Add(
        *[(sympy.Rational(r) + sympy.Rational(s) * ln2) * sympy.log(sympy.Rational(q)) for q, (r, s) in by_q.items()]
    )
    return -expected_row_entropy_two_state() - cross


# --- Lemma 8.4 / E.1: the integrals of the first and second gradient steps

_LAM = A + B - 2  # lambda - 1

#: The integrands over (a, b) in [0, 1]^2 as printed in App. E.1, by equation.
LEMMA84_INTEGRANDS: dict[str, sympy.Expr] = {
    "E.24": (B - 1) ** 2 * (B - A) * (A - _HALF) / _LAM**3,
    "E.25": (B - 1) * (A - 1) * (B - A) * (A - _HALF) / _LAM**3,
    "E.29-collision": ((A - 1) ** 2 + (B - 1) ** 2) / _LAM**2,
    "E.42": ((B - 1) ** 2 * (A - _HALF) + (A - 1) ** 2 * (B - _HALF)) / _LAM**2,
}


@fill_doc(_DOC)
def K_INTEGRAND(j: int) -> sympy.Expr:
    """The integrand of ``K_j`` (Eq. (E.40) for j >= 2, Eq. (E.42) for j = 1).

    {{lag}}

    Returns
    -------
    sympy.Expr
        A rational function of the symbols ``A``, ``B``.

    Examples
    --------
    >>> K_INTEGRAND(1) == LEMMA84_INTEGRANDS["E.42"]
    True
    >>> K_INTEGRAND(2).subs({A: 0, B: 0}), K_INTEGRAND(3).subs({A: 0, B: 0})
    (1/4, -1/4)
    """
    j = check_positive_int(j, "j", minimum=1)
    if j == 1:
        return LEMMA84_INTEGRANDS["E.42"]
    lam = A + B - 1
    return (
        2 * (A - 1) * (B - 1) * ((B - 1) * (A - _HALF) + (A - 1) * (B - _HALF)) * lam ** (j - 1)
        + (B - A) * ((B - 1) ** 2 * (A - _HALF) - (A - 1) ** 2 * (B - _HALF))
    ) / _LAM**3


def _integrate_unit_square(expr: sympy.Expr) -> sympy.Expr:
    """``int_0^1 int_0^1 expr da db`` exactly (substituting u = 1-a, w = 1-b puts the pole at the corner u = w = 0)."""
    u, w = sympy.symbols("u w", positive=True)
    e = sympy.together(expr.subs({A: 1 - u, B: 1 - w}, simultaneous=True))
    inner = sympy.integrate(e, (u, 0, 1))
    outer = sympy.integrate(sympy.expand(sympy.simplify(inner)), (w, 0, 1))
    return sympy.expand(sympy.expand_log(sympy.simplify(outer), force=True))


@fill_doc(_DOC)
@functools.cache
def lemma84_constant(name: str) -> sympy.Expr:
    """A Lemma 8.4 integral by sympy integration of its printed integrand (``LEMMA84_INTEGRANDS``), or ``"D"``:
    ``D = E[pi_1^2 + pi_2^2] - 1/2`` (Eq. (E.29)).

    Values: (E.24) ``(8 ln 2 - 5)/12`` (the diagonal coefficient B), (E.25) ``(7 - 10 ln 2)/6`` (the off-diagonal
    coefficient A), collision ``2 - ln 4``, ``D = 3/2 - ln 4``, (E.42) ``K_1 = (1 - ln 2)/3``.

    {{integral}}

    Returns
    -------
    sympy.Expr
        Its exact value.

    Examples
    --------
    The integral takes about a second (sympy), so the doctest runner skips the lines that compute one.

    >>> lemma84_constant("E.24")  # doctest: +SKIP
    -5/12 + 2*log(2)/3
    >>> lemma84_constant("D")  # doctest: +SKIP
    3/2 - 2*log(2)
    >>> lemma84_constant("E.99")
    Traceback (most recent call last):
    ...
    theory._checks.InputError: unknown Lemma 8.4 integral 'E.99'; expected one of ['E.24', 'E.25', 'E.29-collision', 'E.42'] or 'D'
    """
    if name == "D":
        return sympy.expand(lemma84_constant("E.29-collision") - _HALF)
    if name not in LEMMA84_INTEGRANDS:
        raise InputError(
            f"unknown Lemma 8.4 integral {name!r:.80}; expected one of {sorted(LEMMA84_INTEGRANDS)} or 'D'",
            param="name",
        )
    return _integrate_unit_square(LEMMA84_INTEGRANDS[name])


@fill_doc(_DOC)
def lemma84_closed_form(name: str) -> sympy.Expr:
    """The closed forms as printed in App. E.1 (and ``D`` as derived from (E.29)), for comparison.

    {{integral}}

    Returns
    -------
    sympy.Expr
        The printed closed form, expanded.

    Examples
    --------
    >>> lemma84_closed_form("E.24"), lemma84_closed_form("D")
    (-5/12 + 2*log(2)/3, 3/2 - 2*log(2))
    >>> lemma84_constant("E.24") == lemma84_closed_form("E.24")  # doctest: +SKIP
    True
    """
    ln2 = sympy.log(2)
    forms = {
        "E.24": (sympy.log(256) - 5) / 12,
        "E.25": (7 - 10 * ln2) / 6,
        "E.29-collision": 2 - sympy.log(4),
        "D": sympy.Rational(3, 2) - sympy.log(4),
        "E.42": (1 - ln2) / 3,
    }
    if name not in forms:
        raise InputError(f"unknown Lemma 8.4 integral {name!r:.80}; expected one of {sorted(forms)}", param="name")
    return sympy.expand(sympy.expand_log(forms[name], force=True))


def _check_exact_lag(j: object, name: str) -> int:
    j = check_positive_int(j, name, minimum=1)
    check_cost(
        j,
        MAX_EXACT_LAG,
        param=name,
        value=j,
        what="the lag of the exact integral K_j (sympy integration: 9 s at j = 8, 18 s at j = 12)",
        hint="numerics.markov_gradients.K_quadrature integrates in float64",
    )
    return j


@fill_doc(_DOC)
@functools.cache
def K(j: int) -> sympy.Expr:
    """``K_j``: the coefficient of ``(t-j+1)(t-j+2)/(2t)`` in the diagonal-bias part of the second-step update of
    ``v_j`` (Eqs. (E.39), (E.40)), exact: ``K_1 = (1 - ln 2)/3``, ``K_2 = 8/3 - (11/3) ln 2``, ... Even j beat their
    odd neighbours and ``K_2`` is the largest (``docs/markov.md``).

    {{lag}}

    Returns
    -------
    sympy.Expr
        ``K_j``, exact.

    Examples
    --------
    The integral takes about a second (sympy), so the doctest runner skips the lines that compute one.

    >>> [K(j) for j in (1, 2, 3)]  # doctest: +SKIP
    [1/3 - log(2)/3, 8/3 - 11*log(2)/3, 121/20 - 43*log(2)/5]
    >>> K(2) == e43_corrected()  # doctest: +SKIP
    True
    >>> K(0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: j must be an integer >= 1, got j = 0
    >>> K(13)
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: j = 13 is above the limit j <= 12 of the lag of the exact integral K_j ...
    """
    _check_exact_lag(j, "j")
    return _integrate_unit_square(K_INTEGRAND(j))


def e43_as_printed() -> sympy.Expr:
    """(E.43) as printed: ``K_2 = (7 - 10 ln 2)/2 + (5 - 8 ln 2)/6`` (about -0.0566).

    Returns
    -------
    sympy.Expr
        The printed value, negative (``K_2`` is positive: :func:`e43_corrected`).

    Examples
    --------
    >>> e43_as_printed()
    13/3 - 19*log(2)/3
    >>> round(float(e43_as_printed()), 4)
    -0.0566
    """
    ln2 = sympy.log(2)
    return (7 - 10 * ln2) / 2 + (5 - 8 * ln2) / 6


def e43_corrected() -> sympy.Expr:
    """(E.43) with the sign of the second term corrected: ``(7 - 10 ln 2)/2 + (8 ln 2 - 5)/6 = 8/3 - (11/3) ln 2``.

    Returns
    -------
    sympy.Expr
        ``K_2`` (:func:`K`).

    Examples
    --------
    >>> e43_corrected()
    8/3 - 11*log(2)/3
    >>> round(float(e43_corrected()), 4)
    0.1251
    """
    ln2 = sympy.log(2)
    return sympy.expand((7 - 10 * ln2) / 2 + (8 * ln2 - 5) / 6)


def leading_argmax_v2(jmax: int = 8) -> int:
    """The j maximising ``K_j`` over ``1..jmax``: Lemma 8.4's "v_2 becomes dominant" at leading order.

    Parameters
    ----------
    jmax : int, optional
        The largest lag compared, ``2 <= jmax <= MAX_EXACT_LAG`` (12: each K_j is a sympy integral).

    Returns
    -------
    int
        The maximising j.

    Examples
    --------
    Each ``K_j`` is an integral of about a second, so the doctest runner skips the computation:

    >>> leading_argmax_v2()  # doctest: +SKIP
    2
    >>> leading_argmax_v2(1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: jmax must be an integer >= 2, got jmax = 1
    """
    jmax = _check_exact_lag(check_positive_int(jmax, "jmax", minimum=2), "jmax")
    values = [K(j) for j in range(1, jmax + 1)]
    return 1 + max(range(len(values)), key=lambda i: float(values[i]))


def step1_W_leading(t: int) -> list[list[sympy.Expr]]:
    """(E.23): ``(W^(1) - c 11^T)/(c eta) = ((t+1)(t+2)/6) [[B, A], [A, B]] + O(t)``, B = (E.24), A = (E.25).

    Parameters
    ----------
    t : int
        Context length, ``t >= 2``.

    Returns
    -------
    list of list of sympy.Expr
        The 2 x 2 leading-order update.

    Examples
    --------
    Each integral takes about a second (sympy), so the doctest runner skips the lines that compute one.

    >>> step1_W_leading(2)  # doctest: +SKIP
    [[-5/6 + 4*log(2)/3, 7/3 - 10*log(2)/3], [7/3 - 10*log(2)/3, -5/6 + 4*log(2)/3]]
    >>> step1_W_leading(1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: t must be an integer >= 2 ...
    """
    t = check_t(t)
    s = sympy.Rational((t + 1) * (t + 2), 6)
    b, a = lemma84_constant("E.24"), lemma84_constant("E.25")
    return [[s * b, s * a], [s * a, s * b]]


@fill_doc(_DOC)
def step1_v_leading(t: int, j: int) -> sympy.Expr:
    """(E.29): ``(v_j^(1) - c)/(c eta) = ((t-j+1)(t-j+2)/(2t)) D + O(1)``.

    {{t_j}}

    Returns
    -------
    sympy.Expr
        The leading-order update.

    Examples
    --------
    The integral takes about a second (sympy), so the doctest runner skips the lines that compute one.

    >>> step1_v_leading(2, 1)  # doctest: +SKIP
    9/4 - 3*log(2)
    >>> step1_v_leading(5, 6)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: j must be an integer in 1..t = 5 (v has t lags), got j = 6
    """
    t = check_t(t)
    j = check_lag(j, t)
    return sympy.Rational((t - j + 1) * (t - j + 2), 2 * t) * lemma84_constant("D")


@fill_doc(_DOC)
def step2_diag_leading(t: int, j: int) -> sympy.Expr:
    """(E.39), (E.40): the diagonal-bias part ``G^I_j = ((t-j+1)(t-j+2)/(2t)) K_j + O(1)`` of the second step.

    {{t_j}}

    Returns
    -------
    sympy.Expr
        ``G^I_j`` at leading order.

    Examples
    --------
    The integral takes about a second (sympy), so the doctest runner skips the lines that compute one.

    >>> step2_diag_leading(3, 2)  # doctest: +SKIP
    8/3 - 11*log(2)/3
    >>> step2_diag_leading(5, 0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: j must be an integer >= 1 (v has the lags 1..t = 5), got j = 0
    """
    t = check_t(t)
    j = check_lag(j, t)
    return sympy.Rational((t - j + 1) * (t - j + 2), 2 * t) * K(j)


# --- Cor. E.2 (a = b)


@fill_doc(_DOC)
def cor_e2_v_update(t: int, j: int, k: int = 2) -> sympy.Rational:
    """The first-step v update for ``a = b ~ U(0, 1)``, exact: ``(v_j^(1) - c)/(c eta)
    = (1/(2t)) sum_{p=j}^{t} sum_{n=1}^{p-j+1} E[lambda^n]``, ``E[lambda^n] = 1/(n+1)`` for even n, 0 for odd n.

    From (E.28): ``P[x_t' = x_{p+1}] - 1/2 = lambda^{p+1-t'}/2`` when ``pi = (1/2, 1/2)`` (``docs/markov.md``).
    Positive and of order ``(t-j+1) ln(t)/t``, unlike (E.49).

    Parameters
    ----------
    {{t_j_entries}}
    k : int, optional
        Number of states; only 2 is accepted.

    Returns
    -------
    sympy.Rational
        The update, exact: positive for ``j < t``, 0 for ``j = t`` (then only ``E[lambda] = 0`` enters).

    Examples
    --------
    >>> cor_e2_v_update(2, 1), cor_e2_v_update(10, 1), cor_e2_v_update(10, 10)
    (1/12, 6397/23100, 0)
    >>> e49_as_printed(10, 1)
    -1/2
    """
    t = check_t(t)
    if isinstance(k, bool) or k != 2:
        raise InputError(f"Cor. E.2 is stated for k = 2, got k = {k!r:.80}", param="k")
    _check_harmonic_n(t, "t", t)
    j = check_lag(j, t)
    # sum_{p=j}^{t} sum_{n=1}^{p-j+1} E[lambda^n] = sum_{even n <= L} (L - n + 1)/(n + 1), L = t - j + 1, summed over
    # the common denominator D = lcm of the n + 1 in integers (one reduction, not one per term)
    L = t - j + 1
    odd = range(3, L + 2, 2)  # the n + 1 of the even n in 2..L
    D = math.lcm(1, *odd)
    total = Fraction(sum((L - m + 2) * (D // m) for m in odd), D)
    return sympy.Rational(total / (2 * t))


@fill_doc(_DOC)
def e49_as_printed(t: int, j: int) -> sympy.Rational:
    """(E.49) as printed (leading order): ``(v_j^(1) - c)/(c eta) = -(t - j + 1)/(2t)``.

    {{t_j}}

    Returns
    -------
    sympy.Rational
        The printed value, negative (the exact update is not: :func:`cor_e2_v_update`).

    Examples
    --------
    >>> e49_as_printed(10, 1), cor_e2_v_update(10, 1)
    (-1/2, 6397/23100)
    """
    t = check_t(t)
    j = check_lag(j, t)
    return sympy.Rational(-(t - j + 1), 2 * t)


def cor_e2_diagonal_truncated(delta: sympy.Expr) -> sympy.Expr:
    """``int_0^{1-delta} -(a - 1/2)/(8(a - 1)) da = -(1 - delta)/8 - ln(delta)/16``: the coefficient of (E.47)
    truncated at ``a = 1 - delta``; it grows like ``ln(1/delta)/16``, so the untruncated expectation is +infinity
    (the "infinity" of (E.45)).

    Parameters
    ----------
    delta : number in (0, 1)
        The truncation; a float is read as its exact rational.

    Returns
    -------
    sympy.Expr
        The truncated coefficient, exact.

    Examples
    --------
    >>> from sympy import Rational
    >>> cor_e2_diagonal_truncated(Rational(1, 2))
    -1/16 + log(2)/16
    >>> round(float(cor_e2_diagonal_truncated(Rational(1, 10**6))), 4)
    0.7385
    >>> cor_e2_diagonal_truncated(0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: delta must lie in (0, 1), got 0
    """
    value = as_number(delta, "delta", symbolic=False)
    if not value.is_real or not (0 < value < 1):
        raise InputError(f"delta must lie in (0, 1), got {_shown(value)}", param="delta")
    if isinstance(value, sympy.Float):
        exact = sympy.nsimplify(value)  # a float's exact rational reading (a number, never a string)
        # nsimplify rounds 1e-300 to 0 and 0.9999999999999999 to 1: then the float's exact binary value
        value = exact if 0 < exact < 1 else sympy.Rational(*float(value).as_integer_ratio())
    return -(1 - value) / 8 - sympy.log(value) / 16


# --- Prop. 8.5 / E.3: the two-step curriculum (a, b ~ U(0, 1), then a = b ~ U[1/2 - eps, 1/2 + eps])

#: Largest context length of :func:`curriculum_tensor` (t exact 2 x 2 blocks whose entries carry ``(2 eps)^n`` up to
#: n = t: a few hundred digits at t = 400).
MAX_CURRICULUM_T = 400


def check_curriculum_eps(eps: object) -> sympy.Rational:
    """The half-width ``eps`` of the second step's law ``a = b ~ U[1/2 - eps, 1/2 + eps]``, exact, in ``(0, 1/2)``.

    Parameters
    ----------
    eps : int, Fraction, str or sympy.Rational
        The half-width (Prop. E.3 takes ``eps in (0, 1/2)``); a float is refused (pass ``Fraction(1, 10)``).

    Returns
    -------
    sympy.Rational
        ``eps``, validated.

    Examples
    --------
    >>> from fractions import Fraction
    >>> check_curriculum_eps(Fraction(1, 4)), check_curriculum_eps("1/10")
    (1/4, 1/10)
    >>> check_curriculum_eps(Fraction(1, 2))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: eps must be a rational number in (0, 1/2) (Prop. E.3), got 1/2
    """
    value = as_number(eps, "eps", symbolic=False)
    if not isinstance(value, sympy.Rational) or not (0 < value < _HALF):
        raise InputError(f"eps must be a rational number in (0, 1/2) (Prop. E.3), got {_shown(value)}", param="eps")
    return value


def curriculum_lambda_moment(eps: object, n: int) -> sympy.Rational:
    """``E[lambda^n]`` for ``lambda = 2a - 1`` with ``a ~ U[1/2 - eps, 1/2 + eps]`` (the second step of Prop. E.3):
    ``lambda ~ U[-2 eps, 2 eps]``, so ``E[lambda^n] = (2 eps)^n/(n + 1)`` for even n and 0 for odd n.

    This is the *normalised* form of the integrals of (E.56)-(E.57), which the thesis writes without the density
    ``1/(2 eps)`` (its ``4^k eps^{2k+1}/(2k+1)`` for j = 2k is ``2 eps`` times ``E[(a - 1/2)(2a - 1)^{j-1}]``).

    Parameters
    ----------
    eps : rational in (0, 1/2)
        The half-width.
    n : int
        The power, ``n >= 0``.

    Returns
    -------
    sympy.Rational
        The moment, exact.

    Examples
    --------
    >>> from fractions import Fraction
    >>> [curriculum_lambda_moment(Fraction(1, 4), n) for n in range(5)]
    [1, 0, 1/12, 0, 1/80]
    >>> curriculum_lambda_moment(Fraction(1, 4), -1)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: n must be an integer >= 0, got n = -1
    """
    e = check_curriculum_eps(eps)
    n = check_positive_int(n, "n", minimum=0)
    size = max(math.log10(abs((2 * e).p)) if (2 * e).p else 0.0, math.log10((2 * e).q), 1.0)
    check_cost(
        n * math.ceil(size),
        MAX_DIGITS,
        param="n",
        value=n,
        what="the digits of the exact (2 eps)^n",
        hint="use a smaller power or an eps with fewer digits",
    )
    if n % 2:
        return sympy.Integer(0)
    return (2 * e) ** n / (n + 1)


def curriculum_tensor(t: int, eps: object) -> list[list[list[sympy.Rational]]]:
    r"""The population loss of the second step as a bilinear form, exact at finite t: with every hinge active,
    ``L(W_k, v) = const - sum_{j,m,l} v_j (W_k)_{ml} T[j][m][l]`` under ``a = b ~ U[1/2 - eps, 1/2 + eps]`` (k = 2),
    where

    ``T[j][m][l] = (1/(8t)) [ s_{lm} E[lambda^j] N_j + S_j ]``, ``N_j = (t-j+1)(t-j+2)/2``,
    ``S_j = sum_{p=j}^{t} sum_{n=1}^{p-j+1} E[lambda^n]``, ``s_{lm} = +1`` if ``l = m`` else ``-1``.

    Derivation (``docs/markov.md``, "Prop. 8.5 / E.3"): by (E.2) and (E.8),
    ``T[j][m][l] = (1/t) sum_{p=j}^{t} sum_{t'=j}^{p} E[1{x_p = m} 1{x_{t'-j+1} = l} (1{x_{t'} = x_{p+1}} - 1/2)]``;
    for ``a = b`` the chain has ``pi = (1/2, 1/2)`` and ``(P^n)_{li} = (1 + s_{li} lambda^n)/2``, and the sum over the
    middle state gives ``(lambda/8)(s_{lm} lambda^{j-1} + lambda^{p-t'})``. So ``-dL/dW_k = sum_j v_j T[j]`` and
    ``-dL/dv_j = sum_{ml} (W_k)_{ml} T[j][m][l]`` (Eqs. (E.47), (E.48), (E.55)-(E.57) in closed form).

    Parameters
    ----------
    t : int
        Context length, ``2 <= t <= MAX_CURRICULUM_T``.
    eps : rational in (0, 1/2)
        The half-width of the second step's law.

    Returns
    -------
    list of t 2 x 2 lists of sympy.Rational
        ``T[j-1][m-1][l-1]``, j = 1..t.

    Examples
    --------
    >>> from fractions import Fraction
    >>> T = curriculum_tensor(3, Fraction(1, 4))
    >>> T[0], T[1]
    ([[1/144, 1/144], [1/144, 1/144]], [[1/72, -1/144], [-1/144, 1/72]])
    >>> curriculum_tensor(1, Fraction(1, 4))
    Traceback (most recent call last):
    ...
    theory._checks.InputError: t must be an integer >= 2 (a context of t >= 2 tokens holds at least one bigram), got t = 1
    """
    t = check_t(t)
    e = check_curriculum_eps(eps)
    check_cost(
        t,
        MAX_CURRICULUM_T,
        param="t",
        value=t,
        what="the exact curriculum tensor (t blocks with entries of up to t powers of 2 eps)",
        hint="numerics.markov_gradients.bilinear_gradient_tensor computes it in float64",
    )
    moments = [curriculum_lambda_moment(e, n) for n in range(t + 1)]
    # S(L) = sum_{n=1}^{L} (L - n + 1) E[lambda^n] for L = t - j + 1, by S(L) = S(L-1) + M(L), M(L) = sum_{n<=L} E[lambda^n]
    s_of_len, running_s, running_m = [sympy.Integer(0)], sympy.Integer(0), sympy.Integer(0)
    for length in range(1, t + 1):
        running_m += moments[length]
        running_s += running_m
        s_of_len.append(running_s)
    out = []
    for j in range(1, t + 1):
        n_j = sympy.Rational((t - j + 1) * (t - j + 2), 2)
        diag_part = moments[j] * n_j
        s_j = s_of_len[t - j + 1]
        same, other = (diag_part + s_j) / (8 * t), (s_j - diag_part) / (8 * t)
        out.append([[same, other], [other, same]])
    return out


def curriculum_limit(
    eps: object, w_init: object, v_init: object, c1: object, c2: object, js: Sequence[int] = (1, 2, 3, 4)
) -> dict[str, sympy.Expr | list[sympy.Expr]]:
    r"""The model after the two steps of Prop. E.3, as ``t -> infinity`` at fixed lags j.

    Procedure (App. E.1, proof of Prop. E.3): init ``W_k = w_init 11^T``, ``v = v_init 1``; step 1 on
    ``a, b ~ U(0, 1)`` with ``eta_1 = c1/t^2``; step 2 on ``a = b ~ U[1/2 - eps, 1/2 + eps]`` with
    ``eta_2 = c2/t`` and weight decay ``lambda_wd = 1`` (``theta^(2) = (1 - lambda_wd) theta^(1) - eta_2 grad L``,
    Eqs. (E.53), (E.54)); the margin loss with every hinge active. Limits:

    * step 1 (Lemma E.1, (E.23), (E.29)): ``W^(1) -> w_init 11^T + (v_init c1/6) [[B, A], [A, B]]`` with
      ``B = (ln 256 - 5)/12`` (E.24), ``A = (7 - 10 ln 2)/6`` (E.25), and ``v^(1) -> v_init 1`` (its change is
      ``O(1/t)``); so ``W^(1) = c' 11^T + g I`` with ``g = v_init c1 (B - A)/6``;
    * step 2 (:func:`curriculum_tensor`): ``W^(2) -> (v_init c2 Lambda/8) I`` with
      ``Lambda = sum_{n>=1} E[lambda^n] = E[(a - 1/2)/(1 - a)] = artanh(2 eps)/(2 eps) - 1`` (off-diagonal ``O(1/t)``),
      and ``v_j^(2) -> (c2 g/8) E[lambda^j]``: 0 for odd j, ``(c2 g/8)(2 eps)^j/(j + 1)`` for even j (the ``c'``
      part of the gradient and the ``S_j`` part are ``O(1/t)`` per lag);
    * so the logits ``f_{p,i} = sum_j v_j sum_{t'} 1{x_{t'} = i} (W_k)[x_p, x_{t'-j+1}]`` tend to
      ``beta * (bigram count) + sum_{even j >= 4} W_11 v_j (lag-j count)`` with the bigram coefficient
      ``beta = W_11 v_2 = v_init g c2^2 Lambda eps^2/48 = Theta(eps^4)`` and the next coefficient
      ``W_11 v_4 = Theta(eps^6)``: Eq. (E.60), ``f = O(eps^4) (bigram) + O(eps^6)``. The ratio of the lag-4 to the
      bigram coefficient is ``E[lambda^4]/E[lambda^2] = 12 eps^2/5``.

    Parameters
    ----------
    eps : rational in (0, 1/2)
        The half-width of the second step's law.
    w_init, v_init : number
        The initial values of every entry of ``W_k`` and v (``v_init != 0``).
    c1, c2 : number > 0
        The step sizes are ``eta_1 = c1/t^2`` and ``eta_2 = c2/t``.
    js : sequence of int
        The lags whose ``v_j^(2)`` are returned.

    Returns
    -------
    dict
        ``"W11"``, ``"W12"`` (0), ``"v"`` (the limits of ``v_j^(2)`` for ``j in js``), ``"bigram"`` (beta),
        ``"lag4_over_bigram"`` (``12 eps^2/5``), exact sympy expressions.

    Examples
    --------
    >>> from fractions import Fraction
    >>> lim = curriculum_limit(Fraction(1, 4), 1, 1, 6, 8, js=(1, 2, 4))
    >>> lim["W12"], lim["v"], lim["lag4_over_bigram"]
    (0, [0, -19/144 + 7*log(2)/36, -19/960 + 7*log(2)/240], 3/20)
    >>> lim["W11"], round(float(lim["bigram"]), 7)
    (-1 + 2*atanh(1/2), 0.0002795)
    >>> curriculum_limit(Fraction(1, 4), 1, 0, 6, 8)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: v_init must be a nonzero real number (the first step moves W_k by v_init eta_1 G^W), got 0
    """
    e = check_curriculum_eps(eps)
    _ = _real(w_init, "w_init")
    u = _real(v_init, "v_init")
    if u == 0:
        raise InputError(
            "v_init must be a nonzero real number (the first step moves W_k by v_init eta_1 G^W), got 0", param="v_init"
        )
    s1, s2 = _real(c1, "c1"), _real(c2, "c2")
    for name, val in (("c1", s1), ("c2", s2)):
        if not val > 0:
            raise InputError(f"{name} must be > 0, got {_shown(val)}", param=name)
    lags = [check_positive_int(j, "j", minimum=1) for j in js]
    check_cost(
        max(lags, default=1),
        MAX_CURRICULUM_T,
        param="js",
        value=max(lags, default=1),
        what="the largest lag of the limit",
        hint="use lags <= MAX_CURRICULUM_T",
    )
    b_diag, a_off = lemma84_closed_form("E.24"), lemma84_closed_form("E.25")
    g = sympy.expand(u * s1 * (b_diag - a_off) / 6)
    lam_sum = sympy.atanh(2 * e) / (2 * e) - 1
    w11 = u * s2 * lam_sum / 8
    v = [sympy.expand(s2 * g * curriculum_lambda_moment(e, j) / 8) for j in lags]
    m2, m4 = curriculum_lambda_moment(e, 2), curriculum_lambda_moment(e, 4)
    bigram = w11 * s2 * g * m2 / 8
    return {"W11": w11, "W12": sympy.Integer(0), "v": v, "bigram": bigram, "lag4_over_bigram": m4 / m2}


def _real(value: object, name: str) -> sympy.Expr:
    """A caller's real number (exact when given exactly), refusing symbols, complex values and non-numbers."""
    x = as_number(value, name, symbolic=False)
    if not x.is_real:
        raise InputError(f"{name} must be a real number, got {_shown(x)}", param=name)
    return x
