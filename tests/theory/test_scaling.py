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
