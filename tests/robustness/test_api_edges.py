"""Edge values of the public API found by a QA pass (2026-11-30): each gave a wrong number, a NaN, a hang or an
error from deep inside numpy/mpmath where the docstring promises a value or an InputError naming the parameter."""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pytest

from numerics import attention_parity as ap
from numerics import certificates, limits, markov, modular, polynet, sparse_init, walsh
from numerics import decision_lists as ndl
from numerics import local_signal as nls
from numerics import modular_transformer as mt
from theory import decision_lists as tdl
from theory import interpolation as tint
from theory import local_signal as tls
from theory import looped as tlp
from theory import lsa as tlsa
from theory import modular as tm
from theory import parity as tpa
from theory import polynet as tpn
from theory import sparse_variable as tsv
from theory._checks import InputError

from .api_table.numerics_attention_parity import BASELINE as ATTENTION
from .api_table.numerics_certificates import BASELINE as CERTIFICATES
from .api_table.numerics_decision_lists import BASELINE as NUM_DECISION_LISTS
from .api_table.numerics_local_signal import BASELINE as LOCAL_SIGNAL
from .api_table.numerics_modular import BASELINE as MODULAR
from .api_table.numerics_modular_transformer import BASELINE as TRANSFORMER
from .api_table.numerics_sparse_init import BASELINE as SPARSE_INIT
from .api_table.numerics_walsh import BASELINE as WALSH
from .api_table.theory_decision_lists import BASELINE as DECISION_LISTS


@pytest.mark.parametrize("v", [10**6, 10**30, 10**300])
def test_equal_init_error_float_far_in_the_tail_equals_the_exact_value(v):
    """An int64 overflow in the block probabilities gave 0.5 at v = 1e30 where the exact error is 0."""
    assert polynet.equal_init_error_float(np.array([float(v)]), 3, 5)[0] == float(tpn.equal_init_error(v, 3, 5))


@pytest.mark.parametrize("v", [0.0, -1.0])
def test_equal_init_error_float_refuses_v_that_the_exact_twin_refuses(v):
    with pytest.raises(InputError) as exact:
        tpn.equal_init_error(Fraction(v), 3, 5)
    with pytest.raises(InputError) as floating:
        polynet.equal_init_error_float(np.array([1.0, v]), 3, 5)
    assert exact.value.param == floating.value.param == "v"


@pytest.mark.parametrize("tol", [0.0, -1.0, float("-inf"), float("nan"), 1e-20, 1.0])
def test_flow_error_crossings_refuses_a_tolerance_its_bisection_cannot_reach(tol):
    """tol <= 0 (or below float64's precision) made the bisection loop for ever; NaN skipped it silently."""
    with pytest.raises(InputError) as err:
        polynet.flow_error_crossings(np.ones((3, 5)), [0.49, 0.0], tol=tol)
    assert err.value.param == "tol"


def test_numpy_integers_are_numbers_like_ints():
    """numpy.int64 reached Fraction and mpmath unconverted (AttributeError: bit_length; cannot create mpf)."""
    assert limits.check_rational(np.int64(3), "b") == Fraction(3) and limits.check_rational(np.float32(0.5), "b")
    assert walsh.population_gradient_exact([1, 1, 1, 1, 1], np.int64(3), [0, 1]) == walsh.population_gradient_exact(
        [1, 1, 1, 1, 1], 3, [0, 1]
    )
    assert tls.mills_ratio(np.int64(3)) == tls.mills_ratio(3)
    assert tls.soft_threshold_moments(np.int64(3), 1.0) == tls.soft_threshold_moments(3, 1.0)
    assert tls.truncated_moments(np.int64(3), 1.0) == tls.truncated_moments(3, 1.0)


def test_mc_strategy_kl_needs_two_chains_for_its_standard_error():
    """n = 1 returned a NaN standard error."""
    with pytest.raises(InputError) as err:
        markov.mc_strategy_kl(2, 8, "bigram", 1, np.random.default_rng(0))
    assert err.value.param == "n"
    mean, se = markov.mc_strategy_kl(2, 8, "bigram", 2, np.random.default_rng(0))
    assert np.isfinite(mean) and np.isfinite(se)


def test_thm_c11_at_s_equal_k_has_no_weights_off_s_and_says_none():
    """s = k is allowed (k <= s < n): supp w \\ S is empty, and its mean weight was a NaN."""
    kw = {**SPARSE_INIT["thm_c11_end_to_end"]}
    kw["s"] = kw["k"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = sparse_init.thm_c11_end_to_end(**kw)
    assert out["w_rest"] is None and all(not (isinstance(x, float) and np.isnan(x)) for x in out.values())


def test_walsh_coefficients_exact_refuses_floats():
    """A float gave AttributeError: 'Float' object has no attribute 'p'."""
    with pytest.raises(InputError) as err:
        walsh.walsh_coefficients_exact([0.5, 1, 1, 1])
    assert err.value.param == "values"
    values = [1, 1, 1, -1, Fraction(1, 3), 0, 2, 5]  # ints and Fractions stay exact: brute force over the cube
    brute = [
        sum(Fraction(v) * (-1) ** bin(x & s).count("1") for x, v in enumerate(values)) / len(values)
        for s in range(len(values))
    ]
    assert walsh.walsh_coefficients_exact(values) == brute


def test_error_floor_tends_to_one_half_as_the_noise_grows():
    """For sigma above about 1e16, Phi(-1/sigma) rounds to 1/2 and log1p(-q) raised a math domain error; the floor
    is non-decreasing in sigma and reaches 1/2 (every patch's sign is a coin flip)."""
    sigmas = [10.0**e for e in range(0, 31)] + [10**30]
    floors = [tls.error_floor(1000, sigma=s) for s in sigmas]
    assert all(a <= b for a, b in itertools.pairwise(floors)) and floors[-1] == 0.5


def _refused(fn, param, **kwargs):
    """The call is refused with an InputError naming ``param``."""
    with pytest.raises(InputError) as err:
        fn(**kwargs)
    assert err.value.param == param, f"{err.value.param!r} named instead of {param!r}: {err.value}"


def test_refusals_name_the_callers_parameter():
    """memorising_network(alpha=0) named 'scale' and grokking_delay(train_threshold=True) named 'threshold': names of
    internal helpers, not parameters of the function called."""
    _refused(modular.memorising_network, "alpha", **{**MODULAR["memorising_network"], "alpha": 0})
    _refused(modular.memorising_network, "beta", **{**MODULAR["memorising_network"], "beta": -1.0})
    _refused(mt.grokking_delay, "train_threshold", **{**TRANSFORMER["grokking_delay"], "train_threshold": True})


#: The parameters where QA's numeric string '3' reached a comparison, with the functions that take them.
STRING_REACHED_A_COMPARISON = {
    "gamma": (ap.float_margins, ap.parity_behaviour_sim),
    "train_fraction": (mt.even_split,),
    "train_threshold": (mt.grokking_delay,),
    "val_threshold": (mt.grokking_delay,),
}


@pytest.mark.parametrize("param", sorted(STRING_REACHED_A_COMPARISON))
def test_numeric_strings_are_refused_before_a_comparison(param):
    """A string reached a comparison: TypeError "'<' not supported between instances of 'int' and 'str'"."""
    for fn in STRING_REACHED_A_COMPARISON[param]:
        base = ATTENTION if fn.__module__ == ap.__name__ else TRANSFORMER
        _refused(fn, param, **{**base[fn.__name__], param: "3"})


@pytest.mark.parametrize("v0", [0, -1, 0.0])
def test_hitting_time_refuses_a_start_the_flow_cannot_leave(v0):
    """v0 <= 0 (outside v >= v0 > 0 of theory.polynet.flow_time) integrated to the end and raised "ValueError: v
    did not reach 2.0 (solver ...)"."""
    _refused(polynet.hitting_time, "v0", k=3, v_target=2.0, v0=v0)


@pytest.mark.parametrize("name", ["output_probs", "grad_w_column"])
def test_decision_lists_refuse_a_number_for_the_attention_column(name):
    """p = numpy.int64(3) (a scalar with tolist()) gave TypeError: 'int' object is not iterable."""
    _refused(getattr(tdl, name), "p", **{**DECISION_LISTS[name], "p": np.int64(3)})


@pytest.mark.parametrize("fn", [walsh.relu_prime, walsh.step])
def test_activation_derivatives_refuse_strings(fn):
    """z = '3' gave numpy's UFuncTypeError (no loop for 'greater' on a str dtype)."""
    _refused(fn, "z", z="3")
    _refused(fn, "z", z=["1", "x"])
    assert fn(np.array([-1, 0, 2])).tolist() == [0, 0, 1]


def test_cntk_features_needs_at_least_one_bias():
    """biases = () gave numpy's "need at least one array to stack"."""
    _refused(nls.cntk_features, "biases", **{**LOCAL_SIGNAL["cntk_features"], "biases": ()})


@pytest.mark.parametrize("scaling", [np.array([]), np.array(["printed"])])
def test_memorising_margin_refuses_a_scaling_that_is_not_a_name(scaling):
    """An array compared elementwise with "printed": "The truth value of an empty array is ambiguous"."""
    _refused(tm.memorising_margin, "scaling", p=5, scaling=scaling)
    _refused(tm.memorising_margin_ratio, "scaling", p=5, scaling=scaling)


def test_check_bool_takes_only_bools():
    assert limits.check_bool(True, "f") is True and limits.check_bool(np.bool_(False), "f") is False
    for value in (1, 0, 1.0, float("nan"), "3", "True", None, [], np.int64(1)):
        _refused(limits.check_bool, "f", value=value, name="f")


@pytest.mark.parametrize(
    ("fn", "base", "param"),
    [
        (nls.tail_sample, LOCAL_SIGNAL["tail_sample"], "importance"),
        (certificates.certify, CERTIFICATES["certify"], "sdp"),
        (certificates.unit_neurons, CERTIFICATES["unit_neurons"], "normalize"),
        (certificates.margin_features, CERTIFICATES["margin_features"], "normalize"),
        (ndl.population_gd_w, NUM_DECISION_LISTS["population_gd_w"], "keep_iterates"),
        (modular.ModularTask, MODULAR["ModularTask"], "allow_even"),
        (walsh.fwht, WALSH["fwht"], "inplace"),
        (walsh.fourier_gap_from_gradient, WALSH["fourier_gap_from_gradient"], "relaxed"),
        (tsv.lemma_a19, {"T": 4, "support": [1, 3]}, "thesis_wv"),
    ],
)
@pytest.mark.parametrize("value", [float("nan"), "3", 1])
def test_flags_take_only_bools(fn, base, param, value):
    """A flag took any truthy value as True (importance=nan, sdp='3', thesis_wv=nan) and echoed it into the result."""
    _refused(fn, param, **{**base, param: value})


_LAM = [[2, 0], [0, 1]]
THEORY_FLAGS = [
    ("exact", lambda v: tlp.gram([[1, 0], [0, 1], [1, 1]], exact=v)),
    ("w_in_eigenbasis", lambda v: tlsa.noisy_eval_loss(_LAM, 4, 1, 3, 0, [1, 0], w_in_eigenbasis=v)),
    ("corrected", lambda v: tpa.lemB5_width(2, "1/10", corrected=v)),
    ("printed", lambda v: tint.c6_index_set(4, printed=v)),
    ("as_printed", lambda v: tpn.lemma_b9_upper_bound([6.51] * 3, [[1] * 8] * 3, as_printed=v)),
    ("as_printed", lambda v: tpn.lemma_b9_lower_bound([2.01] * 3, [[1] * 8] * 3, as_printed=v)),
]


@pytest.mark.parametrize(("name", "call"), THEORY_FLAGS)
def test_theory_flags_are_bools(name, call):
    """A mistyped flag ("yes", 1) was taken as True (or, for ``exact``/``w_in_eigenbasis``, refused while a numpy
    bool was refused too); now a bool or numpy bool is required (theory._checks.check_bool), the numpy one giving the
    same result as the Python one."""
    for bad in ("yes", 1):
        with pytest.raises(InputError) as err:
            call(bad)
        assert err.value.param == name
    assert call(np.bool_(True)) == call(True)
