"""The attention module (verify/train/attention.py): shapes, causality, seed batching, relative scores, SDPA path."""

from __future__ import annotations

import math

import pytest
import torch

import verify.runtime.memory
import verify.train.attention as va
from verify.runtime.memory import PROBE_STEPS, InsufficientMemoryError
from verify.runtime.options import RunOptions
from verify.train.attention import AttentionConfig, AttentionEnsemble, FitSchedule, fit, init_params, relative_scores
from verify.train.markov import TransformerConfig, train_transformer


def _model(seeds=(0, 1, 2), **kw) -> AttentionEnsemble:
    cfg = AttentionConfig(**{"vocab": 3, "max_len": 12, "d": 8, "layers": 2, "heads": 2, **kw})
    return AttentionEnsemble.init(cfg, seeds, dtype=torch.float64)


@pytest.mark.parametrize("positions", ["relative", "absolute", "none"])
@pytest.mark.parametrize("mlp", [0, 16])
def test_shapes_and_maps(positions: str, mlp: int) -> None:
    m = _model(positions=positions, mlp=mlp)
    x = torch.randint(0, 3, (3, 5, 12))
    logits, maps = m(x, return_attention=True)
    assert logits.shape == (3, 5, 12, 3)
    assert len(maps) == 2 and all(a.shape == (3, 5, 2, 12, 12) for a in maps)
    for a in maps:
        torch.testing.assert_close(a.sum(-1), torch.ones(3, 5, 2, 12, dtype=torch.float64))
        assert float(a.detach().triu(1).abs().max()) == 0.0


@pytest.mark.parametrize("positions", ["relative", "absolute"])
def test_causal(positions: str) -> None:
    """The output at p does not depend on the tokens after p."""
    m = _model(positions=positions, mlp=8)
    x = torch.randint(0, 3, (3, 4, 12))
    y = x.clone()
    y[..., 7:] = (y[..., 7:] + 1) % 3
    torch.testing.assert_close(m(x)[..., :7, :], m(y)[..., :7, :])
    assert not torch.allclose(m(x)[..., 7:, :], m(y)[..., 7:, :])


def test_batched_seeds_equal_separate_models() -> None:
    seeds = (3, 5, 8)
    m = _model(seeds)
    x = torch.randint(0, 3, (3, 4, 12))
    together = m(x)
    for i, s in enumerate(seeds):
        alone = _model((s,))
        torch.testing.assert_close(alone(x[i : i + 1]), together[i : i + 1])


def test_batched_training_equals_separate_runs() -> None:
    seeds = (0, 1)
    data = torch.randint(0, 3, (20, 2, 4, 13))

    def run(ids: tuple[int, ...], cols: list[int]) -> dict[str, torch.Tensor]:
        m = _model(ids)
        fit(m, lambda t: (data[t][cols, :, :12], data[t][cols, :, 1:]), FitSchedule(20, lr=1e-2), seeds=ids)
        return m.state()

    both = run(seeds, [0, 1])
    for i, s in enumerate(seeds):
        alone = run((s,), [i])
        for name, value in alone.items():
            torch.testing.assert_close(value[0], both[name][i], rtol=1e-9, atol=1e-12)


def test_relative_scores_against_naive_loop() -> None:
    g = torch.Generator().manual_seed(0)
    q = torch.randn(2, 3, 2, 7, 4, generator=g, dtype=torch.float64)
    rel = torch.randn(2, 2, 9, 4, generator=g, dtype=torch.float64)
    got = relative_scores(q, rel)
    want = torch.zeros_like(got)
    for i in range(7):
        for j in range(i + 1):
            want[..., i, j] = (q[..., i, :] * rel[:, None, :, i - j, :]).sum(-1)
    torch.testing.assert_close(got, want)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_attention_layer_equals_the_textbook_order_to_the_bit(dtype: torch.dtype) -> None:
    """The layer (in-place scaling and masking, no zeros above the diagonal before the mask) gives the maps, output
    and gradients of softmax(mask((Q K^T + relative_scores) / sqrt(d_h))) V exactly, not only to round-off."""
    m = AttentionEnsemble.init(AttentionConfig(vocab=3, max_len=12, d=8, heads=2), (0, 1), dtype=dtype)
    z = torch.randn(2, 3, 12, 8, generator=torch.Generator().manual_seed(1), dtype=dtype)

    def textbook() -> tuple[torch.Tensor, torch.Tensor]:
        q, k, v = (torch.einsum("sbtd,shde->sbhte", z, m.p(f"l0.{w}")) for w in "qkv")
        scores = (q @ k.transpose(-1, -2) + relative_scores(q, m.p("l0.rel"))) / math.sqrt(m.cfg.head_dim)
        maps = torch.softmax(scores.masked_fill(~torch.ones(12, 12, dtype=torch.bool).tril(), -math.inf), dim=-1)
        return torch.einsum("sbhte,shed->sbtd", maps @ v, m.p("l0.o")), maps

    results = []
    for layer in (textbook, lambda: m.attention(0, z, need_maps=True)):
        m.zero_grad(set_to_none=True)
        out, maps = layer()
        (out.square().sum() + maps.square().sum()).backward()
        results.append(
            (out.detach(), maps.detach(), {n: p.grad for n, p in m.named_parameters() if p.grad is not None})
        )
    (out0, maps0, g0), (out1, maps1, g1) = results
    assert torch.equal(out0, out1) and torch.equal(maps0, maps1)
    assert len(g0) == 5 and g0.keys() == g1.keys() and all(torch.equal(g0[n], g1[n]) for n in g0)  # q, k, v, o, rel


def test_explicit_scores_follow_the_formula() -> None:
    """A_ij = (z_i W_Q)(z_j W_K + r_{i-j})^T / sqrt(d_h) for one layer, one head, one seed."""
    m = _model((0,), heads=1, layers=1)
    x = torch.randint(0, 3, (1, 1, 12))
    _, (a,) = m(x, return_attention=True)
    z = m.p("embed")[0][x[0, 0]]
    Q, K, R = m.p("l0.q")[0, 0], m.p("l0.k")[0, 0], m.p("l0.rel")[0, 0]
    A = torch.full((12, 12), -math.inf, dtype=torch.float64)
    for i in range(12):
        for j in range(i + 1):
            A[i, j] = (z[i] @ Q) @ (z[j] @ K + R[i - j]) / math.sqrt(8)
    torch.testing.assert_close(a[0, 0, 0], torch.softmax(A, dim=-1))


@pytest.mark.parametrize("positions", ["absolute", "none"])
def test_sdpa_path_equals_explicit_path(positions: str) -> None:
    m = _model(positions=positions, mlp=8)
    x = torch.randint(0, 3, (3, 4, 12))
    torch.testing.assert_close(m(x), m(x, use_sdpa=False))


def test_init_is_per_seed_and_bad_input() -> None:
    cfg = AttentionConfig(vocab=3, max_len=12, d=8)
    torch.testing.assert_close(init_params(cfg, 4)["embed"], init_params(cfg, 4)["embed"])
    with pytest.raises(ValueError, match="multiple of heads"):
        AttentionConfig(vocab=3, max_len=12, d=8, heads=3)
    with pytest.raises(ValueError, match="positions"):
        AttentionConfig(vocab=3, max_len=12, positions="rotary")
    m = _model()
    with pytest.raises(ValueError, match="max_len"):
        m(torch.zeros(3, 1, 13, dtype=torch.int64))


# ------------------------------------------------------------------------------------------ memory and time plan


def _saved_bytes(model: AttentionEnsemble, tokens: torch.Tensor) -> int:
    """Bytes of every tensor autograd saves for the backward pass of one step (measured with saved-tensor hooks)."""
    total = 0

    def pack(t: torch.Tensor) -> torch.Tensor:
        nonlocal total
        total += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(tokens).sum().backward()
    return total


@pytest.mark.parametrize(
    "positions, mlp, layers, heads, T",
    [("relative", 0, 2, 1, 24), ("absolute", 16, 1, 2, 16), ("relative", 8, 3, 4, 40), ("none", 0, 2, 2, 8)],
)
def test_memory_estimate_bounds_what_autograd_saves(positions, mlp, layers, heads, T) -> None:
    """The estimate covers the parameters (with gradients and Adam's two slots) plus every tensor saved for the
    backward pass, and is not a gross overestimate (within 4x)."""
    cfg = AttentionConfig(vocab=5, max_len=T, d=16, layers=layers, heads=heads, positions=positions, mlp=mlp)
    S, B = 3, 4
    model = AttentionEnsemble.init(cfg, tuple(range(S)))
    tokens = torch.randint(0, 5, (S, B, T))
    params = 4 * sum(p.numel() * p.element_size() for p in model.parameters())
    measured = params + _saved_bytes(model, tokens)
    estimate = va.memory_estimate(cfg, S, B, T, itemsize=4)
    assert measured <= estimate <= 4 * measured, (measured, estimate)


def test_fit_refuses_when_memory_is_short_unless_overridden(monkeypatch) -> None:
    cfg = AttentionConfig(vocab=3, max_len=8, d=8, layers=1)
    model = AttentionEnsemble.init(cfg, (0, 1))
    data = torch.randint(0, 3, (2, 4, 8))
    monkeypatch.setattr(verify.runtime.memory, "free_memory", lambda device: 1000)
    with pytest.raises(InsufficientMemoryError, match="ignore_memory_check"):
        fit(model, lambda t: (data, data), FitSchedule(3, lr=1e-2), seeds=(0, 1))
    with pytest.raises(InsufficientMemoryError, match="attention training"):
        va.check_memory(model, data, False)
    assert va.check_memory(model, data, True) == va.memory_estimate(cfg, 2, 4, 8, itemsize=4)
    end = fit(
        model, lambda t: (data, data), FitSchedule(3, lr=1e-2), RunOptions(ignore_memory_check=True), seeds=(0, 1)
    )
    assert end.step == 3


def test_run_wide_override_reaches_the_attention_memory_check(monkeypatch) -> None:
    """`tvk --ignore-memory-check` (RunOptions(ignore_memory_check=True), handed to a trainer) lets an attention run
    start whose estimate exceeds the free memory, as it does for the polynomial trainer: the trainer (here the
    Markov transformer) passes its options on to fit's memory check. Its batch makes a training step (about 0.5 MB)
    larger than an evaluation (about 60 kB, checked first: verify.train.markov.evaluation_memory), and the free
    memory lies between them."""
    model = AttentionConfig(vocab=2, max_len=8, d=8, layers=1)
    cfg = TransformerConfig(k=2, t=8, model=model, steps=2, batch=64, eval_every=1, eval_n=16, num_threads=1)
    monkeypatch.setattr(verify.runtime.memory, "free_memory", lambda device: 200_000)
    run = train_transformer(cfg, RunOptions(device="cpu", ignore_memory_check=True))
    assert [rec["step"] for rec in run.history] == [0, 1, 2]
    with pytest.raises(InsufficientMemoryError, match="attention training"):
        train_transformer(cfg, RunOptions(device="cpu"))


def test_fit_prints_its_estimate_before_a_long_run(monkeypatch) -> None:
    cfg = AttentionConfig(vocab=3, max_len=8, d=8, layers=1)
    model = AttentionEnsemble.init(cfg, (0,))
    data = torch.randint(0, 3, (1, 4, 8))
    lines: list[str] = []
    monkeypatch.setattr(verify.runtime.memory, "PRINT_ESTIMATE_S", 0.0)
    fit(
        model, lambda t: (data, data), FitSchedule(PROBE_STEPS + 3, lr=1e-2, desc="probe"), seeds=(0,), log=lines.append
    )
    assert (
        len(lines) == 1 and lines[0].startswith("probe: 1 seed(s), about") and "ms per step, 3 steps left" in lines[0]
    )
    quiet: list[str] = []
    monkeypatch.setattr(verify.runtime.memory, "PRINT_ESTIMATE_S", 1e9)
    fit(model, lambda t: (data, data), FitSchedule(PROBE_STEPS + 3, lr=1e-2), seeds=(0,), log=quiet.append)
    assert quiet == []
