"""theory/scaling.py: the two local-slope laws of Edelman Fig. 5.1 right / B.6 (Fourier gap vs random search)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory.boolean import tc_growth_window
from theory.scaling import fourier_gap_law_slope, random_search_law_slope, slope_law_boundary


@settings(max_examples=50, deadline=None)
@given(lo=st.integers(4, 60), step=st.integers(1, 60), k=st.integers(1, 4))
def test_laws_against_their_definitions(lo: int, step: int, k: int) -> None:
    hi = lo + step
    ratio = math.log(hi / lo)
    gap = fourier_gap_law_slope(lo, hi, k)
    assert gap == pytest.approx(math.log(tc_growth_window(lo, hi, k)[1]) / ratio, rel=1e-12)
    assert gap == pytest.approx((k - 1) + math.log(math.log(hi) / math.log(lo)) / ratio, rel=1e-12)
    rs = random_search_law_slope(lo, hi, k)
    products = sum(math.log((hi - i) / (lo - i)) for i in range(k))  # C(hi,k)/C(lo,k) = prod (hi-i)/(lo-i)
    assert rs == pytest.approx(products / ratio, rel=1e-12)
    assert slope_law_boundary(lo, hi, k) == pytest.approx((gap + rs) / 2, rel=1e-12)


@settings(max_examples=30, deadline=None)
@given(lo=st.integers(6, 40), step=st.integers(1, 40), k=st.integers(1, 4))
def test_fourier_gap_law_grows_by_one_per_degree_and_stays_below_random_search(lo: int, step: int, k: int) -> None:
    hi = lo + step
    assert fourier_gap_law_slope(lo, hi, k + 1) - fourier_gap_law_slope(lo, hi, k) == pytest.approx(1.0)
    assert random_search_law_slope(lo, hi, k) >= k - 1e-12  # (hi-i)/(lo-i) >= hi/lo
    assert fourier_gap_law_slope(lo, hi, k) < slope_law_boundary(lo, hi, k) < random_search_law_slope(lo, hi, k)


@pytest.mark.parametrize(
    ("args", "match"), [((20, 10, 2), "n_lo < n_hi"), ((3, 10, 4), "k <= n_lo"), ((1, 5, 1), "n_lo")]
)
def test_inputs_are_checked(args: tuple[int, int, int], match: str) -> None:
    for fn in (fourier_gap_law_slope, random_search_law_slope, slope_law_boundary):
        with pytest.raises(ValueError, match=match):
            fn(*args)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(6, 40), k=st.integers(1, 4), r_lo=st.integers(1, 50), factor=st.integers(2, 20))
def test_random_search_width_speedup_is_the_ratio_of_expected_first_success_times(
    n: int, k: int, r_lo: int, factor: int
) -> None:
    from theory.scaling import random_search_width_speedup, width_plateau_boundary

    r_hi = r_lo * factor
    p = 1 / math.comb(n, k)
    expected = [1 / (1 - (1 - p) ** r) for r in (r_lo, r_hi)]  # E[min of r Geom(p)] = 1 / (1 - (1-p)^r)
    speedup = random_search_width_speedup(n, k, r_lo, r_hi)
    assert speedup == pytest.approx(expected[0] / expected[1], rel=1e-9)
    assert 1 < speedup <= factor + 1e-9  # never more than r_hi / r_lo: the copies' successes overlap
    assert width_plateau_boundary(n, k, r_lo, r_hi) == pytest.approx(math.sqrt(speedup))


def test_init_dominance_rate_exact_values_and_input_check() -> None:
    import sympy

    from theory.scaling import init_dominance_rate

    assert init_dominance_rate(0) == sympy.Rational(1, 2)
    assert (
        sympy.simplify(init_dominance_rate(1) - (sympy.Rational(1, 2) + sympy.asin(sympy.sqrt(2) / 4) / sympy.pi)) == 0
    )
    with pytest.raises(ValueError, match="theta"):
        init_dominance_rate(-1)


@settings(max_examples=20, deadline=None)
@given(a=st.integers(0, 50), b=st.integers(0, 50))
def test_init_dominance_rate_increases_with_theta(a: int, b: int) -> None:
    from theory.scaling import init_dominance_rate

    lo, hi = sorted((a, b))
    assert 0.5 <= float(init_dominance_rate(lo)) <= float(init_dominance_rate(hi)) < 1
    assert (lo == hi) or float(init_dominance_rate(lo)) < float(init_dominance_rate(hi))


@pytest.mark.parametrize("theta", [0.0, 1.0, 4.0, 10.0])
def test_init_dominance_rate_against_a_simulation_of_the_model(theta: float) -> None:
    """Monte Carlo of the random-effects model (base run, a data change, an initialisation change): 4e5 draws,
    standard error <= 8e-4, tolerance 5 standard errors."""
    import numpy as np

    from theory.scaling import init_dominance_rate

    rng = np.random.default_rng(0)
    N = 400_000
    a = rng.normal(0, math.sqrt(theta), (N, 2))  # a_i, a_i'
    e = rng.normal(0, 1, (N, 3))  # e_ij, e_ij', e_i'j
    x_base, x_data, x_init = a[:, 0] + e[:, 0], a[:, 0] + e[:, 1], a[:, 1] + e[:, 2]
    rate = np.mean(np.abs(x_init - x_base) > np.abs(x_data - x_base))
    assert rate == pytest.approx(float(init_dominance_rate(theta)), abs=5 * 0.5 / math.sqrt(N))
