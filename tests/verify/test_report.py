"""Claims registry, report files (atomic, complete), and the tvk command line."""

import json
from pathlib import Path

import pytest

from theory import modular as tm
from verify import cli
from verify.claims import Claim, Observation, RunContext, registry, run_claim, select
from verify.claims.judges import MaxRel, RefutedIfDiffers
from verify.report import render
from verify.report import run as report
from verify.report.directory import ReportDirectoryError
from verify.runtime.files import write_text_atomic
from verify.runtime.options import RunOptions

FAST = "shi-lemC.18-output-as-printed,shi-thm4.9-beta-sign,edelman-thm7.7-margin,shi-lemC.14-fourier-identity"
RECORD_FIELDS = {"id", "source", "statement", "kind", "predicted", "observed", "tolerance", "verdict", "metadata"}


TIGHT = MaxRel(1e-9)


def _claim(observe, judge=TIGHT, **kw):
    base = dict(
        id="test-claim",
        source="test",
        statement="s",
        kind="numeric",
        configs={"quick": None},
        predict=lambda cfg: tm.max_margin(5, 2),
        observe=observe,
        judge=judge,
    )
    base.update(kw)
    return Claim(**base)


def test_claim_ids_name_their_source_and_have_known_kinds():
    claims = registry()
    assert len(claims) >= 10
    for cid, c in claims.items():
        assert cid.split("-")[0] in {"shi", "edelman", "karp"}, f"{cid}: ids start with their source's author"
        assert c.kind in {"symbolic", "convex", "numeric", "training"}
        if c.refutes:
            assert c.corrected_by in claims, f"{cid} must point to its corrected claim"


def test_select_patterns_and_scales():
    ids = [c.id for c in select("shi-lemC.18*,edelman-thm7.7-margin", "quick")]
    assert ids == ["shi-lemC.18-output-as-printed", "edelman-thm7.7-margin"]
    assert select("no-such-claim*", "quick") == []


def test_run_claim_pass_fail_and_crash_is_inconclusive():
    g = float(tm.max_margin(5, 2))
    ctx = RunContext()
    assert run_claim(_claim(lambda cfg, ctx: Observation(g)), ctx).verdict == "pass"
    assert run_claim(_claim(lambda cfg, ctx: Observation(0.9 * g)), ctx).verdict == "fail"

    def boom(cfg, ctx):
        raise RuntimeError("solver exploded")

    rec = run_claim(_claim(boom), ctx)
    assert rec.verdict == "inconclusive" and "solver exploded" in rec.reason
    assert set(rec.to_json()) >= RECORD_FIELDS


def test_refuted_claim_carries_counterexample():
    rec = run_claim(registry()["shi-lemC.18-output-as-printed"], RunContext())
    assert rec.verdict == "refuted"
    assert rec.counterexample["printed"]["float"] == float(tm.construction_logit_as_printed(5, [0, 0], 1))
    assert rec.counterexample["observed"] == pytest.approx(float(tm.construction(5, 2).logit([0, 0], 1)), abs=1e-12)
    assert rec.corrected_by == "shi-lem4.11-construction"
    # the same judge passes a statement that holds
    obs = Observation(float(tm.max_margin(5, 2)))
    assert RefutedIfDiffers(1e-9)(tm.max_margin(5, 2), obs, None)[0] == "pass"


def test_claim_validation():
    with pytest.raises(ValueError, match="kind"):
        _claim(lambda c, x: Observation(0), kind="vibes")
    with pytest.raises(ValueError, match="scale"):
        _claim(lambda c, x: Observation(0), configs={})
    with pytest.raises(ValueError, match="quick"):
        run_claim(_claim(lambda c, x: Observation(0), configs={"full": None}), RunContext(scale="quick"))


def test_report_writes_all_outputs(tmp_path):
    records, _meta = report.run_report(
        tmp_path / "rep", only=FAST, options=RunOptions(progress=False), log=lambda s: None
    )
    out = tmp_path / "rep"
    for name in ("results.json", "report.md", "report.html"):
        assert (out / name).is_file()
    assert (out / "figures").is_dir()
    data = json.loads((out / "results.json").read_text())
    assert set(data) == {"header", "claims"} and [r["id"] for r in data["claims"]] == [r["id"] for r in records]
    for r in data["claims"]:
        assert set(r) >= RECORD_FIELDS
        assert r["verdict"] in {"pass", "refuted"}
        assert {"seeds", "device", "versions", "git_revision", "runtime_s"} <= set(r["metadata"])
    md = (out / "report.md").read_text()
    assert "REFUTED" in md and "counterexample" in md
    assert not list(out.glob(".*.tmp")) and not list(out.glob(".results*"))


def test_report_interrupted_leaves_previous_files(tmp_path, monkeypatch):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "report.md").write_text("previous")

    def broken(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "render_html", broken)
    with pytest.raises(KeyboardInterrupt):
        report.run_report(out, only="shi-lemC.18*", options=RunOptions(progress=False), log=lambda s: None)
    assert (out / "report.md").read_text() == "previous"
    assert not (out / "report.html").exists() and not (out / "results.json").exists()
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".") and p.is_file()) == []


def test_atomic_write_failure_keeps_target(tmp_path):
    target = tmp_path / "x.txt"
    target.write_text("old")

    with pytest.raises(TypeError):
        write_text_atomic(target, 123)  # type: ignore[arg-type]
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.txt"]


def test_unwritable_report_directory_is_a_clear_error(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(ReportDirectoryError, match="cannot write the report directory"):
        report.run_report(blocker / "sub", only=FAST, options=RunOptions(progress=False), log=lambda s: None)
    assert cli.main(["report", "--only", FAST, "--out", str(blocker / "sub"), "--json"]) == 2
    captured = capsys.readouterr()
    assert "cannot write the report directory" in json.loads(captured.out)["error"]
    assert "tvk: error" in captured.err


def test_report_with_no_matching_claim(tmp_path):
    with pytest.raises(report.ReportError, match="no claim matches"):
        report.run_report(tmp_path, only="nothing-*", options=RunOptions(progress=False), log=lambda s: None)


def test_cli_report_json_is_one_object(tmp_path, capsys):
    assert cli.main(["report", "--only", FAST, "--out", str(tmp_path / "r"), "--json", "--no-progress"]) == 0
    out = capsys.readouterr().out
    obj = json.loads(out)
    assert obj["summary"].get("fail", 0) == 0 and len(obj["claims"]) == 4


def test_cli_derive_modular_json(capsys):
    assert cli.main(["derive", "modular", "--p", "7", "--k", "3", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["gamma_star"]["float"] == float(tm.max_margin(7, 3))
    assert obj["gamma_star"]["exact"] == str(tm.max_margin(7, 3))
    assert obj["min_width"] == tm.min_width(7, 3)
    assert obj["construction"]["ratio_to_gamma_star"] == pytest.approx(1.0, rel=1e-12)


def test_cli_derive_skips_huge_evaluation(capsys):
    assert cli.main(["derive", "modular", "--p", "47", "--k", "4", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert "skipped" in obj["construction"]


@pytest.mark.parametrize(
    "argv,match",
    [
        (["derive", "modular", "--p", "8", "--k", "2"], "odd"),
        (["derive", "modular", "--p", "1", "--k", "2"], "odd integer >= 3"),
        (["derive", "modular", "--p", "7", "--k", "0"], "k must be an integer >= 1"),
        (["certify", "modular", "--p", "8", "--k", "2"], "odd"),
        (["certify", "parity", "--n", "3", "--k", "5"], "1 <= k <= n"),
    ],
)
def test_cli_bad_input_exit_2_with_message(argv, match, capsys):
    assert cli.main([*argv, "--json"]) == 2
    captured = capsys.readouterr()
    assert match in json.loads(captured.out)["error"]
    assert match in captured.err


def test_cli_list(capsys):
    assert cli.main(["list", "--json"]) == 0
    ids = [c["id"] for c in json.loads(capsys.readouterr().out)["claims"]]
    assert "shi-thm4.9-margin" in ids


def test_cli_list_names_claims_of_the_other_scale_and_refuses_no_match(capsys, tmp_path):
    from verify.claims import registry

    full_only = next(cid for cid, c in registry().items() if "quick" not in c.configs and "full" in c.configs)
    assert cli.main(["list", "--only", full_only, "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["claims"] == [] and [c["id"] for c in obj["not_at_this_scale"]] == [full_only]
    assert cli.main(["list", "--only", full_only]) == 0
    assert "not run at this scale" in capsys.readouterr().out
    # no match anywhere: exit 2 with the message of `tvk report`
    assert cli.main(["list", "--only", "no-such-claim*"]) == 2
    listed = capsys.readouterr().err.strip()
    assert cli.main(["report", "--only", "no-such-claim*", "--out", str(tmp_path / "r"), "--no-progress"]) == 2
    assert (
        capsys.readouterr().err.strip()
        == listed
        == ("tvk: error: no claim matches 'no-such-claim*' at scale 'quick'; `tvk list` shows the claim ids")
    )
    assert not (tmp_path / "r").exists()


def test_tvk_entry_point_is_installed():
    import shutil

    assert shutil.which("tvk") is not None, "pip install -e . must install the tvk console script"
    assert Path(cli.__file__).name == "cli.py"


def test_cuda_request_without_cuda_fails_before_running(tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    assert cli.main(["report", "--device", "cuda", "--only", FAST, "--out", str(tmp_path / "r"), "--json"]) == 2
    assert "CUDA" in json.loads(capsys.readouterr().out)["error"]
    assert not (tmp_path / "r").exists()


def test_cli_derive_group_closed_form(capsys):
    from theory import groups as tg

    assert cli.main(["derive", "group", "--name", "S4", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["condition_holds"] is True
    assert obj["gamma_star"]["float"] == pytest.approx(float(tg.max_margin("S4")), rel=1e-15)
    assert obj["min_width"] == tg.min_width("S4")
    assert obj["construction"]["ratio_to_gamma_star"] == pytest.approx(1.0, rel=1e-10)
    assert obj["character_lp"]["value"] == pytest.approx(float(tg.max_margin("S4")), rel=1e-8)


def test_cli_derive_group_outside_the_theorem(capsys):
    assert cli.main(["derive", "group", "--name", "A5", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["condition_holds"] is False and "condition fails" in obj["closed_form"]
    assert cli.main(["derive", "group", "--name", "Q8", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["all_irreps_real"] is False and "not applicable" in obj["closed_form"]
    assert cli.main(["derive", "group", "--name", "X9", "--json"]) == 2
    assert "unknown group name" in json.loads(capsys.readouterr().out)["error"]


def test_cli_derive_parity(capsys):
    from theory import parity as tp

    assert cli.main(["derive", "parity", "--k", "4", "--n", "10", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["gamma_star"]["float"] == float(tp.max_margin(4))
    assert obj["min_width"] == tp.min_width(4)
    assert obj["construction"]["ratio_to_gamma_star"] == pytest.approx(1.0, rel=1e-12)
    assert cli.main(["derive", "parity", "--k", "5", "--n", "3", "--json"]) == 2
    assert "k" in json.loads(capsys.readouterr().out)["error"]


def test_figures_render_from_record_artifacts_only(tmp_path):
    from verify.report.figures import render_figures

    rec = {
        "id": "x",
        "metadata": {"seeds": [3, 4]},
        "artifacts": {
            "history": [{"step": 0, "ratio": [-1.0, -0.5]}, {"step": 10, "ratio": [0.9, 0.95]}],
            "p": 5,
            "k": 2,
            "coverage": [[2, 3], [3, 2]],
            "lsa_spectrum": {"rank": [1, 2], "learned": [[0.5, 0.0], [0.5, 0.3]], "optimal": [[0.5, 0.0], [0.5, 0.31]]},
            "lsa_noise_curve": {"sigma": [0.0, 1.0], "loss_by_rank": {"1": [1.0, 1.5], "2": [0.8, 2.0]}},
            "looped_error": {"T": [1, 2], "error": [1.0, 0.5], "bound": [1.2, 0.7]},
        },
    }
    made = render_figures([rec, {"id": "no-artifacts", "artifacts": {}}], tmp_path)
    assert sorted(made["x"]) == sorted(
        ["x-margin.png", "x-frequencies.png", "x-spectrum.png", "x-noise.png", "x-error.png"]
    )
    assert "no-artifacts" not in made
    for name in made["x"]:
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_derive_lsa(capsys):
    import sympy

    from theory import lsa as tl

    assert cli.main(["derive", "lsa", "--lambda", "4,3,2,1", "--N", "20", "--rank", "2", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    opt = tl.optimal_rank_r(sympy.diag(4, 3, 2, 1), 20, 2)
    assert obj["L_r"]["exact"] == str(opt.loss) and [v["exact"] for v in obj["v_star"]] == [str(v) for v in opt.v]
    assert obj["method"].startswith("exact") and obj["unique"] is True
    for argv, match in (
        (["--lambda", "4,3", "--N", "20", "--rank", "3"], "rank"),
        (["--lambda", "4,-1", "--N", "20", "--rank", "1"], "semi-definite"),
        (["--lambda", "4,3", "--N", "0", "--rank", "1"], "N"),
        (["--lambda", "4,x", "--N", "5", "--rank", "1"], "comma-separated"),
    ):
        assert cli.main(["derive", "lsa", *argv, "--json"]) == 2
        assert match in json.loads(capsys.readouterr().out)["error"]


def test_report_files_are_readable_and_long_values_elided(tmp_path):
    import stat

    report.run_report(
        tmp_path / "r", only="shi-lemC.14*,shi-thm4.9-beta-sign", options=RunOptions(progress=False), log=lambda s: None
    )
    reference = tmp_path / "plain.txt"
    reference.write_text("x")  # what open() gives under the current umask
    for name in ("results.json", "report.md", "report.html"):
        mode = stat.S_IMODE((tmp_path / "r" / name).stat().st_mode)
        assert mode == stat.S_IMODE(reference.stat().st_mode), f"{name} should have the permissions of any written file"
    assert render.headline(list(range(100))) == "100 values in [0, 99]"
    assert len(render.headline({"a": list(range(10**4)), "b": "x" * 10**4})) <= render.HEADLINE_LIMIT


def test_cli_derive_majority(capsys):
    from theory import boolean as tb

    assert cli.main(["derive", "majority", "--n", "9", "--k", "4", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["coefficient"]["exact"] == str(tb.majority_coefficient(9, 4))
    assert obj["level_weight"]["exact"] == str(tb.majority_level_weight(9, 4))
    assert obj["fourier_gap"]["exact"] == str(tb.majority_gap(9, 4))
    assert cli.main(["derive", "majority", "--n", "5", "--k", "7", "--json"]) == 2
    assert "k <= n" in json.loads(capsys.readouterr().out)["error"]


def test_cli_derive_majority_above_the_level_weight_limit(capsys):
    """Between MAX_LEVEL_WEIGHT_N and MAX_EXACT_N the coefficient and the gap stay exact; the weight is left out."""
    from theory import boolean as tb

    n = tb.MAX_LEVEL_WEIGHT_N + 1
    assert cli.main(["derive", "majority", "--n", str(n), "--k", "3", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["level_weight"] is None and str(tb.MAX_LEVEL_WEIGHT_N) in obj["level_weight_note"]
    assert obj["coefficient"]["exact"] == str(tb.majority_coefficient(n, 3))
    assert cli.main(["derive", "majority", "--n", str(tb.MAX_EXACT_N + 1), "--k", "3", "--json"]) == 2


def test_generic_plot_specs_render_each_kind(tmp_path):
    from verify.report.figures import render_figures

    plots = [
        {
            "name": "curve",
            "kind": "lines",
            "xlabel": "n",
            "ylabel": "t_c",
            "yscale": "log",
            "series": [
                {"label": "k=3", "x": [10, 20, 30], "y": [100, 300, 900], "lo": [80, 200, 700], "hi": [120, 400, 1100]}
            ],
            "hlines": [{"y": 50, "label": "reference"}],
        },
        {
            "name": "grid",
            "kind": "heatmap",
            "x": [10, 100],
            "y": [300, 600, 1000],
            "zlabel": "success",
            "panels": [
                {"title": "dense", "z": [[0, 0.5], [1, 1], [1, 1]]},
                {"title": "sparse", "z": [[0, 1], [1, 1], [1, 1]]},
            ],
        },
        {"name": "hist", "kind": "hist", "series": [{"label": "t_c", "values": [1, 2, 2, 3]}], "vlines": [{"x": 2}]},
    ]
    made = render_figures([{"id": "demo", "artifacts": {"plots": plots}}], tmp_path)
    assert made == {"demo": ["demo-curve.png", "demo-grid.png", "demo-hist.png"]}
    for name in made["demo"]:
        assert (tmp_path / name).stat().st_size > 1000


def test_generic_plot_spec_rejects_unknown_kind(tmp_path):
    from verify.report.figures import render_plot_spec

    with pytest.raises(ValueError, match="plot kind"):
        render_plot_spec("demo", {"name": "x", "kind": "pie"}, tmp_path)


def test_heatmap_with_several_rows_keeps_its_y_label():
    """Regression: an inner loop over the cells once shadowed the panel index, so every heat map with more
    than one row lost the y label of its first panel."""
    import matplotlib.pyplot as plt

    from verify.report.figures import plot_spec_figure

    spec = {
        "name": "grid",
        "kind": "heatmap",
        "x": [1, 2],
        "y": [1, 2, 3],
        "xlabel": "width",
        "ylabel": "samples",
        "panels": [{"title": "a", "z": [[0, 1], [1, 0], [0.5, 0.5]]}, {"title": "b", "z": [[1, 1], [0, 0], [1, 0]]}],
    }
    fig = plot_spec_figure("demo", spec)
    try:
        assert fig.axes[0].get_ylabel() == "samples"
        assert fig.axes[1].get_ylabel() == "samples"  # every panel is labelled (issue 12)
        assert all(ax.get_xlabel() == "width" for ax in fig.axes[:2])
    finally:
        plt.close(fig)


def test_cli_report_dtype_reaches_the_trainer_and_the_report(tmp_path, capsys, monkeypatch):
    """``--dtype float32`` replaces the training dtype of every polynomial-network run and the report says so."""
    import verify.train.polynomial as vt

    seen: list[str | None] = []
    original = vt._PolynomialRun.__init__

    def spy(self, task, degree, width, config, *args):  # the configuration a run trains (after the run options)
        seen.append(config.dtype)
        original(self, task, degree, width, config, *args)

    monkeypatch.setattr(vt._PolynomialRun, "__init__", spy)
    out = tmp_path / "r"
    argv = ["report", "--only", "shi-thm4.9-training-k2", "--out", str(out), "--json", "--no-progress"]
    assert cli.main([*argv, "--dtype", "float32"]) == 0
    assert seen and set(seen) == {"float32"}
    dtype_line = next(line for line in (out / "report.md").read_text().splitlines() if "training dtype" in line)
    assert "float32" in dtype_line


def test_cli_report_tf32_on_cpu_is_refused_before_running(tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    argv = ["report", "--only", FAST, "--out", str(tmp_path / "r"), "--json", "--dtype", "tf32", "--device", "cpu"]
    assert cli.main(argv) == 2
    assert "tf32" in json.loads(capsys.readouterr().out)["error"]
    assert not (tmp_path / "r").exists()


def test_cli_derive_markov(capsys):
    """`tvk derive markov`: exact KLs for k = 2 obey uniform = ln 2 - E_pi[H(row)] (a different route than the
    printed closed form) and the ordering uniform > unigram > bigram; bad k is exit 2 naming --k."""
    import math

    assert cli.main(["derive", "markov", "--k", "2", "--t", "5", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    kl = obj["strategy_kl"]
    assert kl["uniform"]["method"] == "exact"
    assert kl["uniform"]["value"] == pytest.approx(math.log(2) - float(obj["expected_row_entropy"]["float"]), rel=1e-12)
    assert kl["uniform"]["value"] > kl["unigram"]["value"] > kl["bigram"]["value"] > 0
    assert cli.main(["derive", "markov", "--k", "1", "--t", "5"]) == 2
    assert "--k" in capsys.readouterr().err


UNDERPOWERED_MODULE = """
from dataclasses import dataclass

from verify.claims import Claim, Observation, register
from verify.claims.judges import Judge


@dataclass(frozen=True)
class Cfg:
    runs: int


@dataclass(frozen=True)
class Undecided(Judge):
    def __call__(self, predicted, obs, config=None):
        return "inconclusive", "too few runs to decide"

    def describe(self):
        return "always undecided (test judge)"


for cid, declared in (("{a}", True), ("{b}", False)):
    register(Claim(
        id=cid,
        source="test",
        statement="a test statement",
        kind="numeric",
        configs={{"quick": Cfg(3)}},
        predict=lambda cfg: 1.0,
        observe=lambda cfg, ctx: Observation(1.0),
        judge=Undecided(),
        underpowered={{"quick": "three runs give power 0.02 against the effect"}} if declared else None,
    ))
"""


def test_declared_underpowered_inconclusive_does_not_fail_the_report(tmp_path, capsys, monkeypatch):
    """Exit 0 when the only inconclusive verdict was declared in advance (Claim.underpowered), 1 otherwise."""
    from verify.claims import base, external

    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))  # the temporary claims vanish after the test
    monkeypatch.setattr(external, "_LOADED", {})
    a, b = f"test-underpowered-{tmp_path.name}", f"test-undeclared-{tmp_path.name}"
    path = tmp_path / f"underpowered_{abs(hash(tmp_path.name))}.py"
    path.write_text(UNDERPOWERED_MODULE.format(a=a, b=b))
    argv = ["report", "--claims", str(path), "--out", str(tmp_path / "r"), "--json", "--no-progress"]
    assert cli.main([*argv, "--only", a]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["summary"] == {"inconclusive": 1} and obj["unexpected"] == {}
    assert cli.main([*argv, "--only", b]) == 1
    assert json.loads(capsys.readouterr().out)["unexpected"] == {"inconclusive": 1}


@pytest.mark.parametrize(
    "line, expected", [("tvk rep", {"report"}), ("tvk derive m", {"modular", "majority", "markov"})]
)
def test_shell_completion(tmp_path, line, expected):
    """`tvk` answers argcomplete's completion protocol (what `register-python-argcomplete tvk` asks the shell to
    run): the candidates for the word being typed."""
    import os
    import shutil
    import subprocess

    pytest.importorskip("argcomplete")
    tvk = shutil.which("tvk")
    if tvk is None:
        pytest.skip("the tvk console script is not installed")
    out = tmp_path / "candidates"
    env = dict(os.environ, _ARGCOMPLETE="1", COMP_LINE=line, COMP_POINT=str(len(line)))
    env.update(_ARGCOMPLETE_STDOUT_FILENAME=str(out), _ARGCOMPLETE_IFS="\n")
    done = subprocess.run([tvk], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert {c.strip() for c in out.read_text().split("\n") if c.strip()} == expected


def test_cli_version_on_stdout(capsys):
    import tomllib

    version = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]["version"]
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"tvk {version}"


def _plot_claim(cid: str, *plots: dict) -> Claim:
    """A passing claim whose record asks for ``plots``."""
    return _claim(lambda cfg, ctx: Observation(tm.max_margin(5, 2), artifacts={"plots": list(plots)}), id=cid)


def _spec(name: str, **kw) -> dict:
    return {"name": name, "kind": "lines", "xlabel": "x", "ylabel": "y", "series": [{"x": [0, 1], "y": [0, 1]}]} | kw


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_figure_that_cannot_be_drawn_does_not_stop_the_report(tmp_path, monkeypatch, jobs):
    """Bad mathtext in one claim's label stopped the whole report after every claim had run (``tvk: error: \\frac{a}
    ^ ParseSyntaxException``, no claim named), a plot name with a "/" likewise, and two claims' figures asking for one
    file name (qa-a + b-c, qa-a-b + c) shared one file. Now the report is written: each figure skipped is named in
    the log and in its claim's section, and the two figures have two files (with -j 2 the figures are drawn on the
    background thread)."""
    claims = [
        _plot_claim("qa-math", _spec("m", xlabel=r"cost $\frac{a}$ x"), _spec("ok")),
        _plot_claim("qa-slash", _spec("a/b")),
        _plot_claim("qa-a", _spec("b-c", title="qa-a's")),
        _plot_claim("qa-a-b", _spec("c", title="qa-a-b's")),
    ]
    monkeypatch.setattr(report, "select", lambda only, scale: claims)
    lines: list[str] = []
    report.run_report(tmp_path / "r", options=RunOptions(progress=False), log=lines.append, jobs=jobs)
    figures = tmp_path / "r" / "figures"
    assert sorted(p.name for p in figures.iterdir()) == ["qa-a-b-c-2.png", "qa-a-b-c.png", "qa-math-ok.png"]
    assert (figures / "qa-a-b-c.png").read_bytes() != (figures / "qa-a-b-c-2.png").read_bytes()
    skipped = [line for line in lines if "skipped" in line]
    assert len(skipped) == 2 and "claim qa-math: figure 'm'" in skipped[0] and "ParseSyntaxException" in skipped[0]
    assert "claim qa-slash: figure 'a/b'" in skipped[1] and "not a safe file-name part" in skipped[1]
    md, html = ((tmp_path / "r" / name).read_text() for name in ("report.md", "report.html"))
    assert "Figure `m` was not drawn: ValueError" in md and "Figure `a/b` was not drawn" in md
    assert "Figure <code>m</code> was not drawn" in html and "figures/qa-a-b-c-2.png" in html
