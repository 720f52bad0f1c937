"""The static claim index (verify/claim_index.py): the committed file matches the registry, `list_claims` gives
what `verify.claims.select` gives without importing torch or cvxpy, and a stale or damaged index is not used."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import astuple

import pytest

from verify import claim_index
from verify.claims import select

PATTERNS = [(None, "quick"), (None, "full"), ("edelman-thm7.8-*,shi-*", "quick"), ("*-as-printed", "full")]


def _shown(claims) -> list[tuple[str, str, str]]:
    return [(c.id, c.kind, c.source) for c in claims]


def test_the_committed_index_is_fresh():
    stored = claim_index.load_index(check_fresh=False)
    built = [claim_index.IndexEntry(**{**e, "scales": tuple(e["scales"])}) for e in claim_index.build_index()["claims"]]
    assert stored == built, "verify/claim_index.json is stale: run python -m verify.claim_index --write"
    assert claim_index.load_index() == built, "claim sources changed: run python -m verify.claim_index --write"
    assert len({e.id for e in built}) == len(built)


@pytest.mark.parametrize(("pattern", "scale"), PATTERNS)
def test_the_index_selects_what_the_registry_selects(pattern, scale):
    entries = claim_index.load_index()
    assert entries is not None
    assert _shown(claim_index.select_indexed(entries, pattern, scale)) == _shown(select(pattern, scale))


def test_list_claims_does_not_import_torch_or_cvxpy():
    code = (
        "import json, sys\n"
        "from verify.claim_index import list_claims, _has_entry_points\n"
        f"out = {{repr(p): [[c.id, c.kind, c.source] for c in list_claims(*p)] for p in {PATTERNS!r}}}\n"
        "heavy = [m for m in ('torch', 'cvxpy', 'verify.claims') if m in sys.modules]\n"
        "print(json.dumps({'claims': out, 'heavy': heavy, 'entry_points': _has_entry_points()}))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    data = json.loads(res.stdout)
    if data["entry_points"]:
        pytest.skip("a tvk.claims entry point is installed: list_claims imports the registry by design")
    assert data["heavy"] == []
    for pattern, scale in PATTERNS:
        assert [tuple(c) for c in data["claims"][repr((pattern, scale))]] == _shown(select(pattern, scale))


def test_a_stale_or_damaged_index_is_not_used(tmp_path):
    good = json.loads(claim_index.INDEX_PATH.read_text())
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps({**good, "sources_sha256": "0" * 64}))
    assert claim_index.load_index(stale) is None
    assert claim_index.load_index(stale, check_fresh=False) is not None
    for text in ("", "[]", json.dumps({**good, "schema_version": 99}), json.dumps({**good, "claims": [{"id": "x"}]})):
        bad = tmp_path / "bad.json"
        bad.write_text(text)
        assert claim_index.load_index(bad) is None
    assert claim_index.load_index(tmp_path / "absent.json") is None


def test_the_digest_follows_every_claim_source(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "a.py").write_text("A = 1\n")
    (tmp_path / "pkg" / "b.py").write_text("B = 1\n")
    d0 = claim_index.sources_digest(tmp_path)
    (tmp_path / "pkg" / "b.py").write_text("B = 2\n")
    d1 = claim_index.sources_digest(tmp_path)
    (tmp_path / "pkg" / "b.py").rename(tmp_path / "pkg" / "c.py")
    d2 = claim_index.sources_digest(tmp_path)
    (tmp_path / "notes.txt").write_text("not a source")
    assert len({d0, d1, d2}) == 3 and claim_index.sources_digest(tmp_path) == d2


def test_check_reports_a_stale_file(tmp_path, capsys):
    path = tmp_path / "index.json"
    assert claim_index.main(["--write", "--path", str(path)]) == 0
    assert claim_index.main(["--check", "--path", str(path)]) == 0
    data = json.loads(path.read_text())
    data["claims"][0]["kind"] = "training" if data["claims"][0]["kind"] != "training" else "numeric"
    path.write_text(json.dumps(data))
    assert claim_index.main(["--check", "--path", str(path)]) == 1
    assert "stale" in capsys.readouterr().err


def test_list_claims_with_modules_uses_the_registry(monkeypatch, tmp_path):
    from verify.claims import base, external

    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    monkeypatch.setattr(external, "_LOADED", {})
    path = tmp_path / "tvk_index_ext_mod.py"
    path.write_text(
        "from verify.claims import Claim, Observation, register\n"
        "from verify.claims.judges import ExactlyEqual\n"
        "register(Claim(id='ext-index-one', source='test', statement='1 = 1', kind='symbolic',\n"
        "    configs={'quick': 1}, predict=lambda c: 1, observe=lambda c, ctx: Observation(1),\n"
        "    judge=ExactlyEqual()))\n"
    )
    try:
        got = claim_index.list_claims("ext-index-*", "quick", modules=[str(path)])
    finally:
        sys.modules.pop("tvk_index_ext_mod", None)
    assert [c.id for c in got] == ["ext-index-one"]
    assert astuple(claim_index.IndexEntry("a", "b", "c", (), False))[:3] == ("a", "b", "c")
    with pytest.raises(ValueError, match="scale"):
        claim_index.list_claims(None, "medium")
