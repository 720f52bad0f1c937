"""The command line under bad input (issue 11, CLI half): every error one line naming the option as typed, exit 2;
argparse errors as one JSON object under --json; a full stdout, a broken pipe and Ctrl-C end cleanly with their
documented exit status; --version; the size checks of `derive`/`certify` before any work."""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

from numerics import certificates
from numerics.modular import ModularTask, construction_network
from theory import boolean as tb
from theory import local_signal as tls
from theory import lsa as tl
from theory._checks import InputError, LimitError
from verify import cli

ROOT = Path(__file__).resolve().parents[2]
TVK = shutil.which("tvk")


def run_main(argv: list[str], capsys) -> tuple[int, str, str]:
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def error_line(err: str) -> str:
    """The last stderr line (a progress line such as 'certifying ...' may come before it); no traceback."""
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines, "an error must say something on stderr"
    return lines[-1]


# (argv, the option the message must start with, a fragment that must stay in it)
NAMED = [
    (["derive", "modular", "--p", "4", "--k", "2"], "--p", "odd integer >= 3"),
    (["derive", "modular", "--p", "7", "--k", "0"], "--k", "must be an integer >= 1"),
    (["derive", "modular", "--p", "5", "--k", "1000000"], "--k", "accept k <="),
    (["derive", "parity", "--k", "0"], "--k", "must be an integer >= 1"),  # --n defaults to --k
    (["derive", "parity", "--k", "30", "--evaluate", "always"], "--k", "closed forms of Thm 7.8"),
    (["derive", "parity", "--k", "3", "--n", "30", "--evaluate", "always"], "--n", "at most n = 26"),
    (["derive", "parity", "--k", "5", "--n", "3"], "--k", "k <= n"),
    (["derive", "group", "--name", "D500"], "--name", "|G| <= 720"),
    (["derive", "group", "--name", "Z1000000"], "--name", "|G| <= 720"),
    (["derive", "group", "--name", "Z2^0"], "--name", "exponent must be >= 1"),  # no param: the grammar
    (["certify", "group", "--name", "Q8"], "--name", "indicator -1"),
    (["certify", "modular", "--p", "3", "--k", str(10**400)], "--k", "too large"),  # beyond float range: a limit
    (["derive", "majority", "--n", "10000001", "--k", "3"], "--n", "majority_asymptotic"),
    (["derive", "majority", "--n", "5", "--k", "7"], "--k", "0 <= k <= n"),
    (["derive", "lsa", "--lambda", "1,2", "--N", "0", "--rank", "1"], "--N", "must be an integer >= 1"),
    (["derive", "lsa", "--lambda", "1,2", "--N", "3", "--rank", "5"], "--rank", "0 <= r <= d = 2"),
    (["derive", "lsa", "--lambda", "-1,1", "--N", "3", "--rank", "1"], "--lambda", "positive semi-definite"),
    (["derive", "signal", "--k", "1"], "--k", "must be an integer >= 2"),
    (["derive", "signal", "--k", "1000000000"], "--k", "linear_classifier_error"),
    (["certify", "modular", "--p", "3", "--k", "8"], "--k", "min_width"),
    (["certify", "modular", "--p", "3", "--k", "2", "--starts", "0"], "--starts", "integer >= 1"),
    (["certify", "modular", "--p", "3", "--k", "2", "--starts", "100000000"], "--starts", "limit --starts <= 10,000"),
    (["certify", "modular", "--p", "3", "--k", "2", "--seed", "-1"], "--seed", "integer >= 0"),
    (["certify", "parity", "--n", "3", "--k", "5"], "--k", "k <= n"),
    (["derive", "parity", "--k", "3", "--n", "2"], "--k", "--k 3 > --n 2:"),  # both options, as typed
    (["derive", "group", "--name", ""], "--name", "--name: the group name must be a non-empty string"),
    (["certify", "parity", "--n", "40", "--k", "3"], "--n", "at most n = 26"),
    (["certify", "group", "--name", "D500"], "--name", "|G| <= 720"),
    (["certify", "group", "--name", "S3", "--starts", "-5"], "--starts", "integer >= 1"),
]


@pytest.mark.parametrize("argv,option,fragment", NAMED, ids=[" ".join(a[:2] + a[2:][-2:]) for a, _, _ in NAMED])
def test_errors_name_the_option_typed(argv, option, fragment, capsys):
    t0 = time.perf_counter()
    code, out, err = run_main([*argv, "--json"], capsys)
    assert time.perf_counter() - t0 < 5, "a refusal comes before the work"
    assert code == cli.EXIT_BAD_INPUT
    line = error_line(err)
    assert line.startswith(f"tvk: error: {option} ") or line.startswith(f"tvk: error: {option}: "), line
    assert fragment in line, line
    payload = json.loads(out)  # exactly one object
    assert list(payload) == ["error"] and payload["error"] == line.removeprefix("tvk: error: ")


def test_option_message_maps_params_and_keeps_other_errors():
    """The mapping itself: InputError.param or a plain ValueError's first word; unknown names stay as they are."""
    parity = cli.build_parser().parse_args(["derive", "parity", "--k", "3", "--n", "5"])
    err = InputError("n = 30 is too large: the cube has 2^n = 1,073,741,824 points", param="n")
    assert cli.option_message(err, parity) == "--n 30 is too large: the cube has 2^n = 1,073,741,824 points"
    default_n = cli.build_parser().parse_args(["derive", "parity", "--k", "3"])
    assert cli.option_message(err, default_n).startswith("--k 30 is too large")  # n defaults to k
    certify = cli.build_parser().parse_args(["certify", "modular", "--p", "3", "--k", "2"])
    assert cli.option_message(ValueError("n_starts must be an integer >= 1, got 0"), certify) == (
        "--starts must be an integer >= 1, got 0"
    )
    assert cli.option_message(ValueError("something else\nbroke"), certify) == "something else broke"
    group = cli.build_parser().parse_args(["derive", "group", "--name", "D2"])
    assert cli.option_message(InputError("n must be >= 3", param="n"), group) == "--name: n must be >= 3"


# ------------------------------------------------------------------------------------------------------------
# --lambda: numbers only, parsed by as_number (fractions.Fraction), never sympify


@pytest.mark.parametrize(
    "value,fragment",
    [
        ("1/0,2", "entry 1 must be a finite number"),
        ("1,,2", "entry 2 is empty"),
        ("", "at least one eigenvalue"),
        ("__import__('os').system('true'),1", "entry 1 must be a number"),
        ("nan,1", "entry 1 must be a number"),
        ("1,2,x", "entry 3 must be a number"),
        ("1" * 300, "is too long: 300 characters, above the limit 200"),  # docs/cli.md: at most 200 characters
    ],
)
def test_bad_lambda_is_one_clear_line(value, fragment, capsys):
    code, out, err = run_main(["derive", "lsa", "--lambda", value, "--N", "3", "--rank", "1", "--json"], capsys)
    assert code == 2
    line = error_line(err)
    assert line.startswith("tvk: error: --lambda") and fragment in line, line
    assert len(err.splitlines()) == 1 and "error" in json.loads(out)


def test_lambda_is_never_evaluated(monkeypatch, capsys):
    monkeypatch.setattr(sympy, "sympify", lambda *a, **k: pytest.fail("sympify called on --lambda"))
    code, _, err = run_main(
        ["derive", "lsa", "--lambda", "__import__('os')._exit(7)", "--N", "3", "--rank", "1"], capsys
    )
    assert code == 2 and "must be a number" in err


def test_zero_lambda_has_an_answer(capsys):
    """Lambda = 0: x = 0 almost surely, so y = 0 and every U has loss 0; U* = 0 and the optimum is not unique."""
    code, out, _ = run_main(["derive", "lsa", "--lambda", "0,0,0", "--N", "4", "--rank", "1", "--json"], capsys)
    assert code == 0
    obj = json.loads(out)
    assert obj["L_r"]["exact"] == "0" and obj["unique"] is False
    assert obj["U_star"] == [["0"] * 3] * 3


def test_lambda_values_parse_exactly(capsys):
    code, out, _ = run_main(["derive", "lsa", "--lambda", "1/2, 0.25,3", "--N", "5", "--rank", "2", "--json"], capsys)
    assert code == 0
    obj = json.loads(out)
    assert obj["lambda"] == ["1/2", "1/4", "3"]
    # the same problem through the API with Fractions (an independent parse)
    opt = tl.optimal_rank_r(sympy.diag(Fraction(1, 2), Fraction(1, 4), 3), 5, 2)
    assert obj["L_r"]["exact"] == str(opt.loss)


def test_negative_lambda_after_the_option_is_a_value_not_an_option(capsys):
    """`--lambda -1,1` reads as the value -1,1 (refused: Lambda is a covariance), not as an unknown option."""
    code, _, err = run_main(["derive", "lsa", "--lambda", "-1,1", "--N", "3", "--rank", "1"], capsys)
    assert code == 2 and "positive semi-definite" in err and "expected one argument" not in err


# ------------------------------------------------------------------------------------------------------------
# argparse errors, --help, --version


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["derive", "modular", "--p", "5", "--k", "x"], "invalid int value: 'x'"),
        (["derive", "modular", "--p", "5"], "the following arguments are required: --k"),
        (["derive", "modular", "--p", "5", "--k", "2", "--bogus", "1"], "unrecognized arguments: --bogus 1"),
        (["derive", "bogus"], "invalid choice: 'bogus'"),
        (["certify", "parity", "--n", "3", "--k"], "expected one argument"),
        (["report", "--scale", "huge"], "invalid choice: 'huge'"),
        ([], "the following arguments are required: {report,list,diff,status,sweep,derive,certify}"),
        (["derive"], "required: {modular,parity,group,lsa,majority,signal,markov}"),  # not the dest 'task'
        (["list", "--bogus"], "unrecognized arguments: --bogus; `tvk list --help` lists"),  # the subcommand's help
        (["derive", "majority", "--k", "2", "--n", "9" * 5000], "'9999999999999999999999999999999999999999...' (5,000"),
    ],
)
def test_usage_errors_are_one_json_object_under_json(argv, fragment, capsys):
    code, out, err = run_main([*argv, "--json"], capsys)
    assert code == 2
    obj = json.loads(out)  # one object, nothing else on stdout
    assert fragment in obj["error"] and "usage" not in err.lower().split(":")[0]
    assert len(err.splitlines()) == 1 and fragment in err and ": error: " in err
    code, out, err = run_main(argv, capsys)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and fragment in err


def test_help_lists_the_exit_codes_and_version_is_the_package_version(capsys):
    with_help = run_main(["--help"], capsys)
    assert with_help[0] == 0
    for code in (cli.EXIT_OK, cli.EXIT_FAILED, cli.EXIT_BAD_INPUT, cli.EXIT_INTERRUPTED, cli.EXIT_OUTPUT):
        assert f"\n  {code} " in with_help[1]
    code, out, _ = run_main(["--version"], capsys)
    from importlib import metadata

    assert code == 0 and out.strip() == f"tvk {metadata.version('theory-verification-kit')}"


def test_docs_page_lists_every_exit_code_and_command():
    text = (ROOT / "docs" / "cli.md").read_text()
    for code in (0, 1, 2, 3, 74, 130, 141):
        assert f"| {code} |" in text
    for command in ("tvk report", "tvk derive modular", "tvk derive lsa", "tvk certify", "tvk list", "tvk sweep"):
        assert command in text


# ------------------------------------------------------------------------------------------------------------
# stdout full or gone, Ctrl-C


def _tvk(*argv: str) -> list[str]:
    """The installed console script, run by this interpreter (not through a shell shim, so that a signal reaches
    Python itself); its argv[0] is still .../tvk."""
    script = Path(sys.executable).with_name("tvk")
    if script.is_file():
        return [sys.executable, str(script), *argv]
    assert TVK is not None, "pip install -e . installs the tvk console script"
    return [TVK, *argv]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_full_stdout_and_broken_pipe_exit_cleanly():
    """`> /dev/full` (with and without --json) and a reader that left (a closed pipe): one stderr line or none,
    the documented exit status, no traceback and no 'Exception ignored'. The three processes run at once."""
    argv = ["derive", "modular", "--p", "5", "--k", "2"]
    with open("/dev/full", "w") as full:
        procs = [
            subprocess.Popen(_tvk(*argv, *extra), stdout=full, stderr=subprocess.PIPE, text=True)
            for extra in ([], ["--json"])
        ]
    piped = subprocess.Popen(_tvk(*argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    piped.stdout.close()  # the reader leaves before tvk writes
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == cli.EXIT_OUTPUT
        assert err.strip() == "tvk: error: cannot write the output to stdout: No space left on device"
    err = piped.stderr.read()
    assert piped.wait(timeout=60) == cli.EXIT_BROKEN_PIPE and err == "", err


def test_keyboard_interrupt_in_process(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_cmd_derive_modular", interrupted)
    code, out, err = run_main(["derive", "modular", "--p", "5", "--k", "2", "--json"], capsys)
    assert code == 130 and err == "tvk: interrupted\n"
    assert json.loads(out) == {"error": "interrupted", "exit_code": 130}
    code, out, err = run_main(["derive", "modular", "--p", "5", "--k", "2"], capsys)
    assert code == 130 and out == "" and err == "tvk: interrupted\n"


def _loaded(pid: int, library: str) -> bool:
    try:
        return library in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
def test_sigint_during_certify():
    """SIGINT while the modules load (numpy's C extension is mapped: `tvk` is importing numerics/, before main) and
    while the certificate runs (after its progress line); the two processes run at once."""
    argv = ["certify", "modular", "--p", "3", "--k", "6"]
    early = subprocess.Popen(_tvk(*argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    running = subprocess.Popen(_tvk(*argv, "--json"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not _loaded(early.pid, "_multiarray_umath") and time.monotonic() < deadline:
        time.sleep(0.01)
    early.send_signal(signal.SIGINT)
    assert running.stderr.readline().startswith("certifying")  # the work has started
    time.sleep(0.3)
    running.send_signal(signal.SIGINT)
    for proc, as_json in ((early, False), (running, True)):
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, (out, err)
        assert err.strip().splitlines()[-1] == "tvk: interrupted" and "Traceback" not in err
        if as_json:
            assert json.loads(out) == {"error": "interrupted", "exit_code": 130}
        else:
            assert out == ""


# ------------------------------------------------------------------------------------------------------------
# sizes: estimates in log space, valid edges accepted


def test_derive_modular_k400_does_not_overflow_and_k_million_is_refused_at_once(capsys):
    code, out, _ = run_main(["derive", "modular", "--p", "5", "--k", "400", "--json"], capsys)
    assert code == 0
    obj = json.loads(out)
    assert "skipped" in obj["construction"] and "10^523" in obj["construction"]["skipped"]
    # 5^400 x width 2^798 x 4 x 405 operations: log10 from exact integers
    assert math.isclose(float(obj["construction"]["skipped"].split("~10^")[2].split(" ")[0]), 523.0, abs_tol=0.1)
    assert obj["frequencies"] == 2 and obj["min_width"] == 2**798 * 4
    t0 = time.perf_counter()
    code, _, err = run_main(["derive", "modular", "--p", "5", "--k", str(10**6)], capsys)
    assert code == 2 and time.perf_counter() - t0 < 2 and "accept k <=" in err


@pytest.mark.parametrize(
    ("argv", "key"),
    [
        (["derive", "parity", "--k", "400"], "gamma_star"),
        (["derive", "modular", "--p", "5", "--k", "1400"], "gamma_star"),
        (["derive", "lsa", "--lambda", "1e400,1", "--N", "3", "--rank", "1"], "L_r"),
        (["derive", "modular", "--p", str(10**400 + 1), "--k", "1"], "gamma_star"),  # below the float range
        (["derive", "lsa", "--lambda", "1e-400,1e-400", "--N", "5", "--rank", "1"], "L_r"),
    ],
)
def test_derive_values_beyond_the_float_range_are_digits_not_inf(argv, key, capsys):
    """A finite exact value above 1.8e308 printed as 'inf', a non-zero one below 2.2e-308 as 0. The JSON float is
    null and "approx" holds its leading digits, which equal sympy's evaluation of the exact value; the text shows the
    same digits, never 'inf' (nor 0 for a non-zero value)."""
    code, out, _ = run_main([*argv, "--json"], capsys)
    value = json.loads(out)[key]
    assert code == 0 and value["float"] is None
    mantissa, exponent = value["approx"].split("e")
    reference = sympy.N(sympy.sympify(value["exact"]), 30)
    assert int(exponent) == int(sympy.floor(sympy.log(abs(reference), 10)))
    assert abs(float(mantissa) - float(reference / sympy.Integer(10) ** int(exponent))) < 1e-15
    code, text, _ = run_main(argv, capsys)
    assert code == 0 and "inf" not in text.replace("information", "") and value["approx"].lstrip("-")[:8] in text


def test_derive_parity_accepts_exactly_the_k_its_refusal_names(capsys):
    """The refusal said "k <= 1400" while k up to 1463 was accepted: the k it names is the boundary."""
    code, _, err = run_main(["derive", "parity", "--k", "100000"], capsys)
    largest = int(err.split("accept k <= ")[1].split(";")[0])
    assert code == 2 and run_main(["derive", "parity", "--k", str(largest), "--json"], capsys)[0] == 0
    assert run_main(["derive", "parity", "--k", str(largest + 1)], capsys)[0] == 2


def test_derive_modular_refuses_a_too_large_dataset_before_building_the_network(capsys, monkeypatch):
    """--evaluate always at p = 101, k = 5 built the construction (seconds) before the dataset's size check."""
    import numerics.modular as nm

    monkeypatch.setattr(nm, "construction_network", lambda *a: pytest.fail("built the network of a refused task"))
    code, _, err = run_main(["derive", "modular", "--p", "101", "--k", "5", "--evaluate", "always"], capsys)
    assert code == 2 and "--k 5 is too large" in err


def test_derive_modular_evaluate_always_names_the_option_that_makes_it_too_large(capsys):
    """The forward pass's refusal began "task = 104,060,401 is too large" ("task" is no option of the CLI)."""
    code, _, err = run_main(["derive", "modular", "--p", "101", "--k", "4", "--evaluate", "always"], capsys)
    assert code == 2 and error_line(err).startswith("tvk: error: --evaluate always at p = 101, k = 4 is too large")


@pytest.mark.parametrize("task", [["parity", "--k", "3", "--n", "8"], ["modular", "--p", "5", "--k", "2"]])
def test_a_forced_evaluation_above_the_auto_limit_says_so_before_it_starts(task, capsys, monkeypatch):
    """--evaluate always above the limit of auto runs for minutes (parity k = 3, n = 26: over 100 s): it says its
    size on stderr first; within the limit, or under auto, nothing is added."""
    code, _, err = run_main(["derive", *task, "--evaluate", "always"], capsys)
    assert code == 0 and err == ""
    monkeypatch.setattr(cli, "EVALUATE_LIMIT", 10.0)
    code, out, err = run_main(["derive", *task, "--evaluate", "always"], capsys)
    assert code == 0 and err.startswith("evaluating ") and "above the limit 1e+01 of --evaluate auto" in err
    assert "normalized margin" in out
    code, out, err = run_main(["derive", *task], capsys)
    assert code == 0 and err == "" and "pass --evaluate always to force it" in out


def test_certify_shows_its_search_on_stderr_and_its_result_alone_on_stdout(capsys):
    """A bar over the multi-start search (the part that grows with --starts), then a line when the SOS relaxation
    starts; --no-progress drops the bar, not the lines; stdout is the result either way."""
    argv = ["certify", "modular", "--p", "3", "--k", "2", "--starts", "3", "--json"]
    code, out, err = run_main(argv, capsys)
    lines = err.replace("\r", "\n").splitlines()
    assert code == 0 and lines[0].startswith("certifying modular addition p = 3, k = 2 (forward pass, 3 starts")
    assert "multi-start search:" in err and lines[-1].startswith("  multi-start search done (")
    assert lines[-1].endswith("s); solving the SOS relaxation ...") and json.loads(out)["verdict"] == "pass"
    code, out, err = run_main([*argv, "--no-progress"], capsys)
    assert code == 0 and "multi-start search:" not in err and len(err.splitlines()) == 2
    assert json.loads(out)["verdict"] == "pass"


@pytest.mark.parametrize(
    ("task", "option"),
    [(["parity", "--k", "3", "--n", "27"], "--n 27"), (["modular", "--p", "3", "--k", "12"], "--k 12")],
)
def test_a_forced_evaluation_that_is_refused_is_not_announced_first(task, option, capsys):
    """`--evaluate always` announced a minutes-long evaluation, then refused it (n above 26, a construction above its
    limit): the refusal now comes alone, as every size check comes before the announcement."""
    code, _, err = run_main(["derive", *task, "--evaluate", "always"], capsys)
    assert code == 2 and err.startswith(f"tvk: error: {option} is too large") and len(err.splitlines()) == 1


def test_certify_group_without_a_closed_form_compares_with_the_character_lp(capsys):
    """certify group A5 was refused ("the closed form is invalid there ... use the character LP"), though the
    certificate itself needs no closed form: gamma* is then the character LP's value, as in derive group, and says
    so; a group the theorem does not cover (Q8: an irrep of indicator -1) is still refused."""
    from numerics import groups as ng

    code, out, _ = run_main(["certify", "group", "--name", "A5", "--starts", "2", "--json", "--no-progress"], capsys)
    obj = json.loads(out)
    assert code == 0 and obj["gamma_star"]["float"] == ng.character_lp("A5").value
    assert "character LP" in obj["gamma_star"]["origin"] and obj["verdict"] in ("pass", "inconclusive")
    code, _, err = run_main(["certify", "group", "--name", "Q8"], capsys)
    assert code == 2 and "indicator -1" in err


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["--p", "5", "--k", "1464"], "for this p the exact closed forms accept k <= 1463"),
        (
            ["--p", "3", "--k", "12", "--evaluate", "always"],
            "tvk derive modular prints gamma* and the width in closed form",
        ),
    ],
)
def test_derive_modular_refusals_end_with_what_to_do_on_the_command_line(argv, hint, capsys):
    """The hints were the Python API's ("pass sympy symbols for the symbolic formula", "max_margin(p, k) and
    min_width(p, k) give the closed forms"), which a command-line user cannot follow."""
    code, _, err = run_main(["derive", "modular", *argv], capsys)
    assert code == 2 and err.rstrip().endswith(hint) and "sympy" not in err and "max_margin(" not in err


def test_derive_lsa_above_the_diagonal_limit_names_that_limit(capsys):
    """65 eigenvalues (a diagonal Lambda) were refused as "a non-diagonal Lambda ... above the limit 24"."""
    code, _, err = run_main(
        ["derive", "lsa", "--lambda", ",".join(map(str, range(1, 66))), "--N", "5", "--rank", "1"], capsys
    )
    assert code == 2 and "above the limit 64" in err and "non-diagonal" not in err.split(";")[0]


def test_derive_modular_huge_p(capsys):
    p = 10**22 + 1  # odd
    code, out, _ = run_main(["derive", "modular", "--p", str(p), "--k", "2", "--json"], capsys)
    assert code == 0 and json.loads(out)["frequencies"] == (p - 1) // 2


def test_derive_parity_skips_an_expensive_evaluation(capsys):
    """k = 30 used to build 2^29 symbolic neurons; now the closed form answers and the check is skipped."""
    for argv in (["--k", "10", "--n", "26"], ["--k", "30"], ["--k", "3", "--n", "30"]):
        t0 = time.perf_counter()
        code, out, _ = run_main(["derive", "parity", *argv, "--json"], capsys)
        assert code == 0 and time.perf_counter() - t0 < 5
        obj = json.loads(out)
        assert "skipped" in obj["construction"] and obj["min_width"] == 2 ** (obj["k"] - 1)
    code, out, _ = run_main(["derive", "parity", "--k", "3", "--n", "6", "--json"], capsys)
    assert code == 0 and json.loads(out)["construction"]["points"] == 2**6


@pytest.mark.parametrize("n", [1, 2, 5, 6])
def test_majority_k_equal_n_is_valid(n, capsys):
    code, out, _ = run_main(["derive", "majority", "--n", str(n), "--k", str(n), "--json"], capsys)
    assert code == 0
    obj = json.loads(out)
    assert Fraction(obj["coefficient"]["exact"]) == tb.majority_coefficient_bruteforce(n, n)
    assert obj["fourier_gap"] is None  # the gap needs level k + 1 <= n


def test_majority_gap_for_every_k_in_range(capsys):
    n = 7
    for k in range(1, n):
        code, out, _ = run_main(["derive", "majority", "--n", str(n), "--k", str(k), "--json"], capsys)
        assert code == 0
        gap = Fraction(json.loads(out)["fourier_gap"]["exact"])
        brute = abs(tb.majority_coefficient_bruteforce(n, k - 1)) - abs(tb.majority_coefficient_bruteforce(n, k + 1))
        assert gap == brute


def test_derive_signal_limit_is_the_boundary():
    with pytest.raises(LimitError) as info:
        tls.derive_signal(tls.MAX_DERIVE_K + 1)
    assert info.value.param == "k" and "linear_classifier_error" in str(info.value)
    assert tls.derive_signal(1000)["k"] == 1000


# ------------------------------------------------------------------------------------------------------------
# numerics.certificates: bad settings are errors before any work


@pytest.mark.parametrize(
    "kwargs,param",
    [
        ({"tol": -1e-9}, "tol"),
        ({"tol": float("nan")}, "tol"),
        ({"tol": float("inf")}, "tol"),
        ({"tol": "1e-6"}, "tol"),
        ({"maxiter": 0}, "maxiter"),
        ({"maxiter": 2.5}, "maxiter"),
        ({"n_starts": 0}, "n_starts"),
        ({"n_starts": True}, "n_starts"),
        ({"n_starts": 10**8}, "n_starts"),
        ({"seed": -1}, "seed"),
    ],
)
def test_certify_settings_are_checked(kwargs, param):
    task, net = ModularTask(3, 2), construction_network(3, 2)
    with pytest.raises(InputError) as info:
        certificates.certify(task, 2, net, **kwargs)
    assert info.value.param == param and str(info.value).startswith(param)
    if "maxiter" not in kwargs:
        with pytest.raises(InputError):
            certificates.certify_modular(3, 2, **kwargs)


def test_certify_edge_settings_are_accepted():
    cert = certificates.certify(
        ModularTask(3, 1), 1, construction_network(3, 1), tol=0, maxiter=1, n_starts=1, sdp=False
    )
    assert cert.lower > 0 and math.isfinite(cert.upper_heuristic)


def test_module_doc_and_epilog_agree():
    """The exit codes of the module doc and of --help are the constants main() returns."""
    assert "130 interrupted" in cli.__doc__ and "74 stdout" in cli.__doc__
    assert f"{cli.EXIT_BROKEN_PIPE}  the reader of stdout left" in cli.EPILOG
    assert sys.modules["verify.cli"] is cli


# the QA pass of the CLI's contract: exit 2 with one line naming the option or file, before anything runs

FAST_CLAIM = "shi-thm4.9-margin"


def test_version_under_json_is_one_json_object(capsys):
    from importlib import metadata

    for argv in (["--version", "--json"], ["--json", "--version"], ["--version", "--json=yes"]):
        code, out, _ = run_main(argv, capsys)
        assert code == 0 and json.loads(out) == {"version": metadata.version("theory-verification-kit")}
    assert run_main(["--version", "--json=no"], capsys)[1].startswith("tvk ")


def test_claims_that_name_a_directory_say_so(tmp_path, capsys):
    for command in (["list"], ["report", "--plan"]):
        code, out, err = run_main([*command, "--claims", str(tmp_path), "--json"], capsys)
        assert code == 2 and "is a directory" in json.loads(out)["error"] and str(tmp_path) in error_line(err)


@pytest.fixture
def no_claim_runs(monkeypatch):
    """Any claim that starts running fails the test: the refusals below come before the first claim."""
    from verify.report import run as report

    def no_claim(*a, **k):
        raise AssertionError("a claim ran")

    monkeypatch.setattr(report, "run_claim", no_claim)


@pytest.mark.parametrize(
    "option,fragment",
    [
        ("--gpus-per-cell=-1", "--gpus-per-cell must be"),
        ("--gpus-per-cell=nan", "--gpus-per-cell must be"),
        ("--gpus-per-cell=0", "--gpus-per-cell must be"),
        ("--workers=0", "--workers must be >= 1"),
        ("--workers=-1", "--workers must be >= 1"),
        ("--figure-formats=", "--figure-formats must be"),
        ("--figure-formats=,", "--figure-formats must be"),
        ("--figure-formats=png,", "--figure-formats must be"),
        ("--archive=/proc/x", "--archive"),
        ("--archive=FILE", "--archive"),
    ],
)
def test_bad_report_options_are_refused_before_any_claim_runs(tmp_path, capsys, no_claim_runs, option, fragment):
    existing = tmp_path / "a-file"
    existing.write_text("x")
    out = tmp_path / "out"
    argv = [
        "report",
        "--only",
        FAST_CLAIM,
        "--out",
        str(out),
        "--no-progress",
        "--json",
        option.replace("FILE", str(existing)),
    ]
    code, stdout, err = run_main(argv, capsys)
    assert code == 2 and json.loads(stdout)["error"].startswith(fragment) and fragment in error_line(err)
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_a_missing_archive_is_checked_without_being_left_behind(tmp_path):
    from verify.report.archive import check_archive_target

    check_archive_target(tmp_path / "new" / "archive")
    assert list(tmp_path.iterdir()) == []


def test_the_projects_own_errors_have_no_class_prefix(capsys, monkeypatch):
    import torch

    from verify.report.directory import ReportDirectoryError

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    code, out, err = run_main(["report", "--only", FAST_CLAIM, "--device", "cuda", "--json"], capsys)
    assert code == 2 and json.loads(out)["error"].startswith("device 'cuda' requested") and "RuntimeError" not in err
    assert cli._environment_message(ReportDirectoryError("cannot write 'x'")) == "cannot write 'x'"
    assert cli._environment_message(FileNotFoundError(2, "No such file or directory", "/proc/x")) == (
        "'/proc/x': No such file or directory"
    )
    assert cli._environment_message(RuntimeError("a library's own")) == "RuntimeError: a library's own"


def test_from_archive_of_a_report_directory_says_what_it_is(tmp_path, capsys):
    report_dir = tmp_path / "rep"
    report_dir.mkdir()
    (report_dir / "results.json").write_text(json.dumps({"header": {}, "claims": []}))
    code, out, _ = run_main(
        ["report", "--from-archive", str(report_dir), "--out", str(tmp_path / "o"), "--json"], capsys
    )
    assert code == 2 and "looks like a report directory" in json.loads(out)["error"]
    assert not (tmp_path / "o").exists()
