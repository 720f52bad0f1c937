"""Claims written outside the package (verify/claims/external.py): a temporary module file or dotted module that
registers one claim is loaded, runs and can fail; missing modules, import errors, id collisions and modules that
register nothing give one clear error and leave the registry unchanged; ``tvk.claims`` entry points are loaded."""

from __future__ import annotations

import itertools
import re
import sys
import tomllib
from pathlib import Path

import pytest

from verify.claims import RunContext, base, external, registry, run_claim
from verify.runtime.options import RunOptions

_counter = itertools.count()

CLAIM_MODULE = """
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from verify.claims import Claim, Observation, register
from verify.claims.judges import ExactlyEqual


@dataclass(frozen=True)
class RowConfig:
    n: int


def central(cfg: RowConfig) -> list[int]:
    return [comb(2 * k, k) for k in range(cfg.n)]


def observe(cfg: RowConfig, ctx) -> Observation:
    rows = [[1]]
    for _ in range(2 * cfg.n):
        rows.append([a + b for a, b in zip([0] + rows[-1], rows[-1] + [0])])
    return Observation([rows[2 * k][k] for k in range(cfg.n)])


register(Claim(
    id="{cid}",
    source="Pascal's triangle",
    statement="The middle entry of row 2k is C(2k, k).",
    kind="symbolic",
    configs={{"quick": RowConfig(6), "full": RowConfig(12)}},
    predict={predict},
    observe=observe,
    judge=ExactlyEqual(),
))
"""


def _unique(prefix: str) -> str:
    return f"{prefix}_{next(_counter)}_{id(_counter) % 100000}"


@pytest.fixture
def isolated(monkeypatch):
    """A copy of the registry and an empty loader cache, so a test's claims vanish after it."""
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    monkeypatch.setattr(external, "_LOADED", {})
    names = set(sys.modules)
    yield
    for name in set(sys.modules) - names:
        if name.startswith(("tvk_ext_", "my_claims", "my_paper")):
            del sys.modules[name]


def _write_module(tmp_path: Path, cid: str, predict: str = "central", name: str | None = None) -> Path:
    name = name or _unique("tvk_ext_mod")
    path = tmp_path / f"{name}.py"
    path.write_text(CLAIM_MODULE.format(cid=cid, predict=predict))
    return path


def test_a_module_file_registers_its_claim_and_the_claim_runs(tmp_path, isolated):
    before = set(registry())
    path = _write_module(tmp_path, "ext-pascal-central")
    assert external.load_claim_modules([str(path)]) == ["ext-pascal-central"]
    assert set(registry()) - before == {"ext-pascal-central"}
    claim = registry()["ext-pascal-central"]
    assert external.claim_module(claim) == path.stem
    rec = run_claim(claim, RunContext(options=RunOptions(progress=False)))
    assert rec.verdict == "pass", rec.reason
    # Loading it again is a no-op that returns the same ids.
    assert external.load_claim_modules([str(path)]) == ["ext-pascal-central"]


def test_a_wrong_prediction_fails(tmp_path, isolated):
    path = _write_module(tmp_path, "ext-pascal-wrong", predict="lambda cfg: [c + 1 for c in central(cfg)]")
    external.load_claim_modules([str(path)])
    rec = run_claim(registry()["ext-pascal-wrong"], RunContext(options=RunOptions(progress=False)))
    assert rec.verdict == "fail"


def test_a_dotted_module_name_is_imported_from_sys_path_or_the_current_directory(tmp_path, isolated, monkeypatch):
    name = _unique("tvk_ext_dotted")
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "claims.py").write_text(CLAIM_MODULE.format(cid="ext-dotted", predict="central"))
    monkeypatch.chdir(tmp_path)  # not on sys.path: found like `python -m` finds it
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    assert external.load_claim_modules([f"{name}.claims"]) == ["ext-dotted"]
    assert "ext-dotted" in registry()


def test_a_built_in_module_by_name_returns_its_claims(isolated):
    ids = external.load_claim_modules(["verify.claims.parity"])
    assert ids and all(external.claim_module(registry()[cid]) == "verify.claims.parity" for cid in ids)


def test_missing_module_and_missing_file(tmp_path, isolated):
    before = registry()
    with pytest.raises(external.ClaimLoadError, match=r"no module named 'tvk_ext_nowhere_\w+'"):
        external.load_claim_modules([_unique("tvk_ext_nowhere")])
    with pytest.raises(external.ClaimLoadError, match="no such file"):
        external.load_claim_modules([str(tmp_path / "absent.py")])
    assert registry() == before


@pytest.mark.parametrize(
    ("body", "pattern"),
    [
        ("import tvk_ext_not_installed_xyz\n", r"ModuleNotFoundError: No module named 'tvk_ext_not_installed_xyz'"),
        ("x = 1 +\n", r"SyntaxError"),
        ("raise RuntimeError('boom at import')\n", r"RuntimeError: boom at import"),
    ],
)
def test_an_import_error_carries_its_message_and_registers_nothing(tmp_path, isolated, body, pattern):
    # A claim is registered before the failure: it is rolled back with the module.
    path = _write_module(tmp_path, "ext-half-loaded")
    path.write_text(path.read_text() + body)
    before = registry()
    with pytest.raises(external.ClaimLoadError, match=pattern) as err:
        external.load_claim_modules([str(path)])
    assert str(path) in str(err.value)
    assert registry() == before
    assert path.stem not in sys.modules


def test_an_id_collision_names_the_existing_claim_and_rolls_back(tmp_path, isolated):
    existing = "edelman-thm7.8-margin"
    assert existing in registry()
    path = _write_module(tmp_path, existing)
    before = registry()
    with pytest.raises(external.ClaimLoadError, match=rf"'{existing}' is already registered \(defined in verify"):
        external.load_claim_modules([str(path)])
    assert registry() == before

    first = _write_module(tmp_path, "ext-twice")
    second = _write_module(tmp_path, "ext-twice")
    external.load_claim_modules([str(first)])
    with pytest.raises(
        external.ClaimLoadError, match=rf"'ext-twice' is already registered \(defined in {first.stem}\)"
    ):
        external.load_claim_modules([str(second)])


def test_a_module_without_claims_is_an_error(tmp_path, isolated):
    path = tmp_path / f"{_unique('tvk_ext_empty')}.py"
    path.write_text("X = 1\n")
    with pytest.raises(external.ClaimLoadError, match="registered no claims"):
        external.load_claim_modules([str(path)])
    assert path.stem not in sys.modules  # fixed and loaded again, it is imported afresh


def test_a_file_whose_name_shadows_an_imported_module_is_refused(tmp_path, isolated):
    path = _write_module(tmp_path, "ext-json", name="json")
    with pytest.raises(external.ClaimLoadError, match="a module named 'json' is already imported"):
        external.load_claim_modules([str(path)])


def test_bad_arguments(isolated):
    with pytest.raises(TypeError):
        external.load_claim_modules("verify.claims.parity")
    with pytest.raises(external.ClaimLoadError, match="empty name"):
        external.load_claim_modules([" "])
    with pytest.raises(external.ClaimLoadError, match="not a dotted module name"):
        external.load_claim_modules(["not a module"])


def _install_entry_points(site: Path, dist: str, group: str, lines: list[str]) -> None:
    """A minimal installed distribution (a .dist-info folder on ``site``) declaring ``lines`` in ``group``."""
    info = site / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n" + "\n".join(lines) + "\n")


def test_entry_points_of_the_group_are_loaded(tmp_path, isolated, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    mod, inner, fn_mod = _unique("tvk_ext_ep"), _unique("tvk_ext_inner"), _unique("tvk_ext_epfn")
    _write_module(site, "ext-ep-module", name=mod)
    _write_module(site, "ext-ep-callable", name=inner)
    (site / f"{fn_mod}.py").write_text(
        f"import importlib\n\n\ndef register_all():\n    importlib.import_module({inner!r})\n"
    )
    group = _unique("tvk.claims.test")
    _install_entry_points(site, _unique("tvk_ext_dist"), group, [f"b = {fn_mod}:register_all", f"a = {mod}"])
    monkeypatch.syspath_prepend(str(site))
    assert external.load_entry_points(group) == ["ext-ep-module", "ext-ep-callable"]  # in entry-point name order
    assert external.load_entry_points(group) == ["ext-ep-module", "ext-ep-callable"]  # loading twice is a no-op
    assert external.load_entry_points(_unique("tvk.claims.none")) == []


def test_a_broken_entry_point_names_its_distribution(tmp_path, isolated, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    dist, group = _unique("tvk_ext_brokendist"), _unique("tvk.claims.test")
    _install_entry_points(site, dist, group, ["broken = tvk_ext_absent_module_xyz"])
    monkeypatch.syspath_prepend(str(site))
    before = registry()
    with pytest.raises(external.ClaimLoadError, match=rf"entry point broken .*from {dist} 0.1.*ModuleNotFoundError"):
        external.load_entry_points(group)
    assert registry() == before


DOC = Path(__file__).resolve().parents[2] / "docs" / "adding-a-claim.md"


def _doc_blocks(lang: str) -> list[tuple[str, str]]:
    """The ``lang`` code blocks of docs/adding-a-claim.md, as (info string after the language, code)."""
    return re.findall(rf"```{lang}([^\n]*)\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_walk_through_claim_loads_from_a_file_passes_and_can_fail(tmp_path, isolated):
    (code,) = [code for info, code in _doc_blocks("python") if info.strip() == "file=my_claims.py"]
    path = tmp_path / "my_claims.py"
    path.write_text(code)
    (cid,) = external.load_claim_modules([str(path)])
    claim = registry()[cid]
    rec = run_claim(claim, RunContext(options=RunOptions(progress=False)))
    assert rec.verdict == "pass", rec.reason
    config = claim.configs["quick"]
    obs = claim.observe(config, RunContext(options=RunOptions(progress=False)))
    assert claim.judge(claim.judge.perturb(claim.predict(config), obs), obs, config)[0] == "fail"
    assert f"{cid:40s} {claim.kind:9s} {claim.source}" in DOC.read_text()  # the `tvk list` line shown


def test_the_walk_through_entry_point_loads_the_package_module(tmp_path, isolated, monkeypatch):
    (code,) = [code for info, code in _doc_blocks("python") if info.strip() == "file=my_claims.py"]
    (toml,) = [code for _, code in _doc_blocks("toml")]
    project = tomllib.loads(toml)["project"]
    site = tmp_path / "site"
    (site / "my_paper").mkdir(parents=True)
    (site / "my_paper" / "__init__.py").write_text("")
    (site / "my_paper" / "claims.py").write_text(code)
    eps = project["entry-points"][external.ENTRY_POINT_GROUP]
    assert eps == {"my_paper": "my_paper.claims"}
    group = _unique("tvk.claims.doc")  # the doc's entry points, under a group no installed package uses
    _install_entry_points(site, project["name"].replace("-", "_"), group, [f"{k} = {v}" for k, v in eps.items()])
    monkeypatch.syspath_prepend(str(site))
    assert external.load_entry_points(group) == ["mypaper-lem1-dyck-paths"]
