"""Mutation audit of the margin judges of the parity and modular-addition claims (``verify/claims/parity.py``:
SingleNeuronOptimum; ``verify/claims/modular/single_neuron.py``: OptimumAttained; ``modular/controls.py``:
BelowGammaStar and memorising_problems) and of the polynet plateau judge (``verify/claims/polynet.py``: Plateau),
on hand-built observations whose verdict follows from the judges' docstrings and from the theorems (gamma* is an
upper bound for every network; the sign rule is a strict inequality). Each test kills a one-line mutant that the
other tests let through."""

from __future__ import annotations

from verify.claims.base import Observation
from verify.claims.judges import MaxRel
from verify.claims.modular.controls import BelowGammaStar, MemorisingConfig
from verify.claims.modular.single_neuron import OPTIMUM_BELOW, OPTIMUM_MAX_BALANCE, OptimumAttained
from verify.claims.parity import SingleNeuronOptimum as ParitySingleNeuron
from verify.claims.polynet import Plateau


def _parity_case(success: bool = True, **dev: float) -> dict:
    d = {"abs_u": 0.0, "off_support": 0.0, "w": 0.0, "sign_product": 1.0} | dev
    return {"n": 5, "k": 2, "n_at_best": 1, "n_starts": 4, "success": success, "deviations": d}


def _parity(value: float, case: dict, gamma: float = 0.25) -> tuple:
    judge = ParitySingleNeuron(rtol=1e-8, structure_atol=1e-5)
    return judge([gamma], Observation([value], details={"per_case": [case]}))


def test_parity_single_neuron_above_gamma_star_fails_even_without_convergence():
    """Theorem 7.8 makes gamma* the maximum over unit neurons: a value above it is a failure of the prediction
    whatever the optimizer reports; only a shortfall of an unconverged optimizer is inconclusive."""
    assert _parity(0.25 * 1.01, _parity_case(success=False))[0] == "fail"
    assert _parity(0.25 * 0.99, _parity_case(success=False))[0] == "inconclusive"
    assert _parity(0.25 * 0.99, _parity_case(success=True))[0] == "fail"
    assert _parity(0.25, _parity_case(success=False))[0] == "pass"


def test_parity_sign_rule_is_strict():
    """The sign rule is (prod_S u_j)(w0 - w1) > 0: a sign product of exactly 0 breaks it."""
    assert _parity(0.25, _parity_case(sign_product=0.0))[0] == "fail"
    assert _parity(0.25, _parity_case(sign_product=2.0**-30))[0] == "pass"


def test_parity_output_weight_deviation_counts_as_structure():
    """The predicted structure includes w = +-[1, -1]/sqrt(2(k+1)): a deviation of w alone fails."""
    assert _parity(0.25, _parity_case(w=2.0**-10))[0] == "fail"
    assert _parity(0.25, _parity_case(w=2.0**-20))[0] == "pass"


def _optimum(ratios: list[float], purity=None, phase=None, balance=None) -> str:
    judge = OptimumAttained(
        below=OPTIMUM_BELOW, above=1e-9, min_purity=1 - 1e-6, max_phase=1e-4, max_balance=OPTIMUM_MAX_BALANCE
    )
    n = len(ratios)
    details = {
        "maximizer_min_purity": purity or [1.0] * n,
        "maximizer_phase_residual": phase or [0.0] * n,
        "maximizer_balance": balance or [0.0] * n,
    }
    return judge([2.0] * n, Observation([2.0 * r for r in ratios], details=details))[0]


def test_optimum_every_case_within_the_window():
    """Lemma 4.10: the maximum lies in [1 - below, 1 + above] x gamma* in every case: one case 1 % short, or one
    above gamma* by 1e-6, fails although the others are at gamma*."""
    assert _optimum([1.0, 1.0]) == "pass"
    assert _optimum([1.0, 0.99]) == "fail"
    assert _optimum([0.99, 1.0]) == "fail"
    assert _optimum([1.0, 1.0 + 1e-6]) == "fail"


def test_optimum_every_maximizer_meets_the_structure():
    """Every maximizer is single-frequency, phase-aligned and balanced: one bad maximizer among good ones fails,
    whichever of the three it breaks."""
    assert _optimum([1.0, 1.0], purity=[1.0, 0.9]) == "fail"
    assert _optimum([1.0, 1.0], phase=[0.0, 0.01]) == "fail"
    assert _optimum([1.0, 1.0], phase=[0.01, 0.0]) == "fail"
    assert _optimum([1.0, 1.0], balance=[0.0, 0.1]) == "fail"


def _memorising(rows: list[dict], cfg: MemorisingConfig, value: float = 0.5, predicted: float = 0.5) -> str:
    judge = BelowGammaStar(MaxRel(1e-9))
    return judge([predicted], Observation([value], details={"per_network": rows}), cfg)[0]


def _row(**changes: float) -> dict:
    return {"p": 3, "scaling": "printed", "accuracy": 1.0, "margin_ratio": 0.5, "fourier_construction_ratio": 1.0} | (
        changes
    )


def test_memorising_control_needs_the_exact_values_and_every_row():
    """The control passes only when the float values agree with the exact ones *and* no row has a problem: a
    value 1 % off fails, a network that misclassifies one pair fails."""
    cfg = MemorisingConfig(ps=(3,))
    assert _memorising([_row()], cfg) == "pass"
    assert _memorising([_row()], cfg, value=0.505) == "fail"
    assert _memorising([_row(accuracy=8 / 9)], cfg) == "fail"


def test_memorising_network_above_or_near_gamma_star_fails_the_control():
    """A memorising network must be below gamma* (ratio < 1) and fail the training threshold: a ratio of 1.5
    (above gamma*, which no network may reach) and one of 0.95 (above the smallest training threshold 0.9) both
    make the control fail."""
    cfg = MemorisingConfig(ps=(3,))
    assert _memorising([_row(margin_ratio=1.5)], cfg) == "fail"
    assert _memorising([_row(margin_ratio=0.95)], cfg) == "fail"


def test_fourier_construction_must_pass_the_training_threshold_too():
    """The Fourier construction must pass the check at both ends: with a training threshold above the "at gamma*"
    end (1 - 1e-10 > 1 - 1e-9), a construction at 1 - 5e-10 is at gamma* but below the training threshold: fail."""
    cfg = MemorisingConfig(ps=(3,), training_min_ratio=1 - 1e-10)
    assert _memorising([_row(fourier_construction_ratio=1 - 5e-10)], cfg) == "fail"
    assert _memorising([_row(fourier_construction_ratio=1.0)], cfg) == "pass"


def _plateau(value: float = 0.5, worst: float = 1.0, v_star: float = 10.0, approx: float = 10.0) -> str:
    details = {"max_scaled_ratio": worst, "velocity": [{"v_star": v_star, "approx": approx}]}
    return Plateau(1e-8)([0.5], Observation([value], details=details))[0]


def test_plateau_needs_exact_values_scaled_bound_and_velocity_both_ways():
    """Plateau passes iff the float oracle matches the exact ratios, the scaled ratio is within its bound and every
    weight is within atol + rtol x approx of its approximation, above or below it."""
    assert _plateau() == "pass"
    assert _plateau(value=0.51) == "fail"
    assert _plateau(worst=16.0) == "fail"
    assert _plateau(v_star=14.0) == "fail"
    assert _plateau(v_star=6.0) == "fail"
    assert _plateau(v_star=12.5) == "pass"  # 2.5 <= 2 + 0.1 x 10


def test_parity_single_neuron_a_case_above_gamma_star_fails_whatever_another_optimizer_did():
    """Theorem 7.8: no unit neuron exceeds gamma*, so a case above it is a failure of the prediction; another case's
    unconverged shortfall (which alone is inconclusive) cannot turn that failure into "inconclusive". The verdict
    must not depend on the order of the cases either."""
    judge = ParitySingleNeuron(rtol=1e-8, structure_atol=1e-5)
    above, short = _parity_case(success=True), _parity_case(success=False)
    for cases, values in (([above, short], [0.2525, 0.2475]), ([short, above], [0.2475, 0.2525])):
        assert judge([0.25, 0.25], Observation(values, details={"per_case": cases}))[0] == "fail"
