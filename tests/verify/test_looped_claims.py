"""verify/looped.py (torch looped transformer) and the quick Shi Ch. 8 claims."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import verify.claims.shi_ch8  # noqa: F401  (registers the claims)
from numerics import looped as nl
from theory import looped as tl
from verify import looped as vl
from verify.claims.base import RunContext, registry, run_claim

CH8 = [
    "shi-lem8.13-attention",
    "shi-thm8.14-loops-equal-gd",
    "shi-thm8.16-error-bound",
    "shi-thm8.25-rate",
    "shi-lem8.20-smooth-strongly-convex",
    "shi-fig8.1-kappa",
    "shi-fig8.1-error-decay",
]


def test_forward_equals_numpy_gd_batched():
    rng = np.random.default_rng(0)
    pr = nl.sample_prompts(rng, 6, 9, 3)
    L = nl.gram_extremes(pr.X)[0]
    etas = rng.uniform(0.05, 1.95, (6, 15)) / L[:, None]
    q0 = rng.standard_normal((6, 3))
    alpha = np.array([-1.7, 0.3, 5.0, -1.7, 0.3, 5.0])
    out = vl.tf_outputs(pr.X, pr.y, alpha, etas, q0, device="cpu", keep=True)
    gd = nl.gd_trajectory(pr.X, pr.y, etas, -q0 / alpha[:, None])
    np.testing.assert_allclose(out["tf"], alpha[:, None, None] * gd, rtol=1e-10, atol=1e-12)
    assert np.array_equal(out["ZT"][:, :-1], out["Z0"][:, :-1]) and np.array_equal(out["ZT"][:, -1, -1], alpha)


def test_attention_matches_exact_lemma():
    rng = np.random.default_rng(1)
    X, y, q0 = rng.standard_normal((5, 3)), rng.standard_normal(5), rng.standard_normal(3)
    Q, P = vl.construction_weights(3)

    def t(v):
        return torch.as_tensor(v[None], dtype=torch.float64)

    got = vl.attention(vl.embed(t(X), t(y), 0.3, t(q0)), Q, P)[0].numpy()
    want = np.array([[float(v) for v in r] for r in tl.lemma_8_13_attention(X, y, 0.3, q0)])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: vl.embed(torch.ones(2, 4, 3), torch.ones(2, 5), 1.0), r"y \(B, n\)"),
        (lambda: vl.embed(torch.ones(2, 4, 3), torch.ones(2, 4), 0.0), "alpha must be non-zero"),
        (lambda: vl.embed(torch.ones(2, 4, 3), torch.ones(2, 4), 1.0, torch.ones(2, 2)), r"q0 must be \(B, d\)"),
        (
            lambda: vl.looped_forward(torch.ones(1, 5, 4), torch.ones(2), torch.eye(3), torch.eye(3)),
            r"Q and P must be \(4, 4\)",
        ),
        (lambda: vl.looped_forward(torch.ones(2, 5, 4), torch.ones(3, 2), torch.eye(4), torch.eye(4)), "etas must be"),
        (lambda: vl.looped_forward(torch.ones(1, 5, 4), -torch.ones(2), torch.eye(4), torch.eye(4)), "> 0"),
    ],
)
def test_bad_inputs_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_claim_ids_registered():
    reg = registry()
    assert all(c in reg for c in CH8)


@pytest.mark.parametrize("cid", CH8)
def test_quick_claims_pass(cid):
    rec = run_claim(registry()[cid], RunContext(scale="quick", device="cpu", progress=False))
    assert rec.verdict == "pass", rec.reason
    assert rec.metadata["runtime_s"] < 10


def test_error_decay_artifacts_for_the_figure():
    rec = run_claim(registry()["shi-fig8.1-error-decay"], RunContext(scale="quick", device="cpu", progress=False))
    art = rec.artifacts["looped_error"]
    assert len(art["T"]) == len(art["error"]) == len(art["bound"])
    assert all(e <= b + 1e-15 for e, b in zip(art["error"], art["bound"]))
    assert set(rec.artifacts["looped_error_by_n"]) == {"16", "32"}


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_equivalence_claim_on_gpu():
    rec = run_claim(registry()["shi-thm8.14-loops-equal-gd"], RunContext(scale="quick", device="cuda", progress=False))
    assert rec.verdict == "pass" and rec.metadata["device"].startswith("cuda")
