"""Random argument vectors for `tvk derive` and `tvk certify` (issue 11): every run ends with exit 0 and valid
output, or exit 2 and a one-line message; never a traceback, another status or a hang.

The vectors are drawn by hypothesis from each subcommand's options (also the other subcommands' options, repeated
and missing ones) and from values that probe the edges: small and negative integers, limits and one past them,
huge integers (up to Python's 4300-digit parsing limit), floats, empty and non-numeric strings, injection strings.
`main` runs in-process under a per-example hang guard (tests/robustness/_watchdog.py: 60 s, far above any answer;
not a timing assertion, issue 28).

Two choices keep the test within ~30 s, stated here so that they are not mistaken for coverage:

* valid inputs whose *work* is long by design are not drawn: `--evaluate always` (it forces evaluations that are
  skipped for cost), integers 13..25 for `--n`/`--k` (construction checks of 10^8-10^9 operations);
* in `certify`, the convex solve (:func:`numerics.certificates.certify`, seconds per call) is replaced by a stub
  that keeps its input checks (:func:`numerics.certificates.check_certify_settings`) and the forward-pass lower
  bound; the task, the construction and every size check before it are the real ones. The solver's own
  behaviour is tested in tests/numerics/test_certificates.py.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from numerics import certificates
from numerics.margins import evaluate
from tests.robustness._watchdog import watchdog
from verify import cli

OPTIONS = {
    ("derive", "modular"): ["--p", "--k", "--evaluate"],
    ("derive", "parity"): ["--k", "--n", "--evaluate"],
    ("derive", "group"): ["--name"],
    ("derive", "lsa"): ["--lambda", "--N", "--rank"],
    ("derive", "majority"): ["--n", "--k"],
    ("derive", "signal"): ["--k"],
    ("certify", "modular"): ["--p", "--k", "--starts", "--seed"],
    ("certify", "parity"): ["--n", "--k", "--starts", "--seed"],
    ("certify", "group"): ["--name", "--starts", "--seed"],
}
ALL_OPTIONS = sorted({o for opts in OPTIONS.values() for o in opts} | {"--json", "--bogus", "-k", "--P"})

SMALL = st.integers(-3, 12)
EDGES = st.sampled_from(
    [26, 27, 64, 65, 720, 1400, 1401, 1463, 1464, 10_000, 10_001, 50_000, 50_001, 10**6, 10**6 + 1, 10**7]
)
HUGE = st.one_of(
    st.integers(10**3, 10**40),
    st.sampled_from([2**31, 2**63 - 1, 2**63, 2**64 + 1, 10**100 + 1, 10**4299]),
    st.integers(-(10**30), -4),
)
INTS = st.one_of(SMALL, SMALL, SMALL, SMALL, EDGES, HUGE).map(str)  # mostly small: many runs get to the work
JUNK = st.sampled_from(
    [
        "",
        " ",
        "x",
        "-",
        "--",
        "1.5",
        "1e3",
        "0x10",
        " 7",
        "٣",  # an Arabic-Indic digit: int() accepts it
        "nan",
        "inf",
        "1/0",
        "None",
        "__import__('os')._exit(9)",
        "$(true)",
        "1" * 5000,
        "\x00",
    ]
)
GROUPS = st.sampled_from(
    [
        "S3",
        "S4",
        "S5",
        "A4",
        "A5",
        "D4",
        "D5",
        "D6",
        "Z2^3",
        "S3xZ2",
        "Q8",
        "D4xZ2^2",
        "Z7",
        "Z60",
        "S3xS3",
        "",
        "X9",
        "S3x",
        "Z",
        "Z0",
        "Z1",
        "Z-1",
        "D1",
        "D2",
        "S0",
        "S1",
        "Z2^",
        "Z2^0",
        "S7",
        "A9",
        "D500",
        "Z2^12",
        "Z1000000",
        "S3xS3xS3xS3",
        "Z2^100000xS3",
        "s3",
        "Q16",
        "D10**9",
        "S3 x Z2",
        "GL(2,3)",
    ]
)
NUMBER_TEXT = st.one_of(
    st.integers(-5, 20).map(str),
    st.fractions(min_value=-3, max_value=10, max_denominator=50).map(str),
    st.floats(-10, 1e6, allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["0", "1e-300", "1e300", "1e199", "1/3", "-0", "1e400"]),
    JUNK,
)
LAMBDAS = st.one_of(st.lists(NUMBER_TEXT, min_size=0, max_size=6).map(",".join), JUNK)


def values_for(option: str) -> st.SearchStrategy[str]:
    if option == "--name":
        return st.one_of(GROUPS, GROUPS, GROUPS, JUNK)
    if option == "--lambda":
        return LAMBDAS
    if option == "--evaluate":
        return st.sampled_from(["auto", "never", "sometimes", ""])  # not "always": see the module doc
    if option in ("--n", "--k"):
        return st.one_of(INTS, INTS, INTS, JUNK).filter(
            lambda v: not (v.isdigit() and len(v) <= 2 and 13 <= int(v) <= 25)
        )
    return st.one_of(INTS, INTS, INTS, JUNK)


PLAUSIBLE = {
    "--p": st.sampled_from(["3", "5", "7"]),
    "--k": st.integers(1, 4).map(str),
    "--n": st.integers(1, 12).map(str),
    "--N": st.integers(1, 50).map(str),
    "--rank": st.integers(0, 4).map(str),
    "--lambda": st.lists(st.fractions(0, 5, max_denominator=9).map(str), min_size=1, max_size=4).map(",".join),
    "--starts": st.integers(1, 6).map(str),
    "--seed": st.integers(0, 10**6).map(str),
    "--name": st.sampled_from(["S3", "S4", "A4", "A5", "D4", "D5", "Q8", "Z2^2", "Z2^3", "S3xZ2", "Z5"]),
    "--evaluate": st.sampled_from(["auto", "never"]),
}


@st.composite
def argument_vectors(draw) -> list[str]:
    """Half of the vectors start from plausible values (most of them valid) with at most one value replaced by
    a hostile one; the other half draw every value from the hostile pools."""
    command = draw(st.sampled_from(sorted(OPTIONS)))
    if draw(st.booleans()):
        argv = list(command)
        values = {o: draw(PLAUSIBLE[o]) for o in OPTIONS[command]}
        if draw(st.booleans()):
            victim = draw(st.sampled_from(sorted(values)))
            values[victim] = draw(values_for(victim))
        for option, value in values.items():
            argv += [option, value]
        if draw(st.booleans()):
            argv.append("--json")
        return argv
    argv = list(command)
    options = list(OPTIONS[command])
    # usually every option once; sometimes one missing, one repeated or one from another command
    chosen = draw(st.lists(st.sampled_from(options), min_size=len(options), max_size=len(options), unique=True))
    if draw(st.integers(0, 4)) == 0 and chosen:
        chosen.pop(draw(st.integers(0, len(chosen) - 1)))
    if draw(st.integers(0, 5)) == 0:
        chosen.append(draw(st.sampled_from(ALL_OPTIONS + options)))
    for option in chosen:
        if option == "--json":
            continue
        argv.append(option)
        if draw(st.integers(0, 30)) > 0:  # rarely, a missing value
            argv.append(draw(values_for(option)))
    if draw(st.booleans()):
        argv.insert(draw(st.integers(2, len(argv))), "--json")
    return argv


def stub_certify(task, degree, lower_network, Q=None, grading=None, *, tol=1e-6, n_starts=20, seed=0, **kw):
    """The certificate without the convex solve: the input checks and the forward-pass lower bound are real."""
    certificates.check_certify_settings(tol=tol, n_starts=n_starts, seed=seed, maxiter=kw.get("maxiter", 1))
    lower = evaluate(lower_network, task).normalized_margin
    return certificates.Certificate(
        lower=lower,
        upper_heuristic=lower,
        upper_rigorous=None,
        tol=tol,
        lower_source="fuzz stub",
        weighting="uniform q and tau",
        heuristic={},
        sdp=None,
        sdp_note="not computed (fuzz stub)",
    )


def check_run(argv: list[str], capsys) -> None:
    with watchdog(f"tvk {' '.join(argv)[:200]}"):
        code = cli.main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out, (argv, err)
    as_json = "--json" in argv
    if code == 0:
        if as_json:
            obj = json.loads(out)  # exactly one JSON object
            assert isinstance(obj, dict) and "error" not in obj, (argv, out[:500])
        else:
            assert out.strip(), argv
    elif code == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        assert lines and lines[-1].startswith("tvk") and ": error: " in lines[-1], (argv, err)
        assert all(line.startswith(("tvk", "certifying")) for line in lines), (argv, err)  # one error line
        if as_json:
            obj = json.loads(out)
            assert set(obj) <= {"error", "usage"} and obj["error"], (argv, out)
        else:
            assert out == "", (argv, out)
    else:
        pytest.fail(f"exit {code} for {argv}: {err[-500:]}")


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(argv=argument_vectors())
def test_random_argument_vectors(argv, capsys, monkeypatch):
    monkeypatch.setattr(certificates, "certify", stub_certify)
    check_run(argv, capsys)


@pytest.mark.parametrize(
    "argv",
    [
        ["derive", "modular", "--p", "5", "--k", "400", "--json"],
        ["derive", "majority", "--n", "50000", "--k", "25000", "--json"],
        ["derive", "lsa", "--lambda", "1e199,1e-199,3", "--N", str(10**40), "--rank", "2", "--json"],
        ["derive", "parity", "--k", "1400", "--n", "1400"],
        ["derive", "signal", "--k", str(10**4299)],
        ["certify", "modular", "--p", str(10**4299), "--k", "2"],
        ["derive", "group", "--name", "Z2^100000xS3", "--json"],
    ],
)
def test_edge_vectors(argv, capsys, monkeypatch):
    """Vectors the fuzz may not draw: the largest accepted sizes and the longest accepted integers."""
    monkeypatch.setattr(certificates, "certify", stub_certify)
    check_run(argv, capsys)
