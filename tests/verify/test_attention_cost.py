"""The attention trainer's cost model, loss and configuration checks (verify/train/attention.py): the multiply-adds of a
step against torch's own flop counter, the memory estimate against a hand count of its docstring, and the
architecture's validation at its boundaries."""

from __future__ import annotations

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

import verify.train.attention as va
from verify.runtime.options import RunOptions
from verify.train.attention import AttentionConfig, AttentionEnsemble, FitSchedule, fit


@pytest.mark.parametrize(
    "layers, heads, head_width, mlp, out", [(2, 2, None, 12, 3), (1, 3, 5, 0, None), (3, 1, None, 7, 2)]
)
def test_step_multiply_adds_equal_the_products_torch_counts(layers, heads, head_width, mlp, out) -> None:
    """The step's count is the multiply-adds torch's flop counter sees in one forward and backward pass (no
    positions, explicit scores: every product the docstring counts, and nothing else)."""
    cfg = AttentionConfig(
        vocab=5, max_len=6, d=6, layers=layers, heads=heads, head_width=head_width, positions="none", mlp=mlp, out=out
    )
    S, B, T = 2, 3, 6
    model = AttentionEnsemble.init(cfg, tuple(range(S)), dtype=torch.float64)
    tokens = torch.randint(0, 5, (S, B, T), generator=torch.Generator().manual_seed(0))
    with FlopCounterMode(display=False) as counter:
        model(tokens, use_sdpa=False).sum().backward()
    assert va.step_multiply_adds(cfg, S, B, T) == counter.get_total_flops() / 2  # a multiply-add is two flops


def test_memory_estimate_is_the_stated_count() -> None:
    """Hand count of the docstring for vocab 3, T = 4, d = 4, two heads of width 2, relative positions, MLP 8."""
    cfg = AttentionConfig(vocab=3, max_len=4, d=4, layers=1, heads=2, positions="relative", mlp=8)
    # embed 3*4, q k v 3*(2*4*2), o 2*2*4, rel 2*4*2, mlp_in 4*8 + 8, mlp_out 8*4 + 4, readout 4*3 + 3
    n_params = 12 + 48 + 16 + 16 + 40 + 36 + 15
    # per layer: six (T, d), four (T, H d_h), five (H, T, T), three (T, mlp)
    per_layer = 6 * 4 * 4 + 4 * 4 * 4 + 5 * 2 * 4 * 4 + 3 * 4 * 8
    # (layers + 1) layers' activations, the logits and their gradient (T, out) twice, one (T, d)
    per_sequence = 2 * per_layer + 4 * 4 * 3 + 4 * 4
    S, B, itemsize = 2, 3, 8
    want = 4 * S * n_params * itemsize + S * B * per_sequence * itemsize
    assert va.memory_estimate(cfg, S, B, 4, itemsize=itemsize) == want
    # without relative positions: no table, three score-sized buffers
    plain = AttentionConfig(vocab=3, max_len=4, d=4, layers=1, heads=2, positions="none", mlp=8)
    per_layer_plain = per_layer - 2 * 2 * 4 * 4
    want_plain = 4 * S * (n_params - 16) * itemsize + S * B * (2 * per_layer_plain + 4 * 4 * 3 + 4 * 4) * itemsize
    assert va.memory_estimate(plain, S, B, 4, itemsize=itemsize) == want_plain


def test_memory_check_counts_the_bytes_of_the_model_dtype(monkeypatch) -> None:
    """The memory check sizes a float64 model's estimate with 8-byte floats."""
    cfg = AttentionConfig(vocab=3, max_len=4, d=4, layers=1)
    seen = []
    monkeypatch.setattr(va, "check_free_memory", lambda need, *args: seen.append(need))
    tokens = torch.zeros(2, 3, 4, dtype=torch.int64)
    for dtype, itemsize in ((torch.float64, 8), (torch.float32, 4)):
        model = AttentionEnsemble.init(cfg, (0, 1), dtype=dtype)
        assert va.check_memory(model, tokens, ignore=False) == va.memory_estimate(cfg, 2, 3, 4, itemsize)
    assert seen[0] == 2 * seen[1]


def test_head_width_sets_the_head_size() -> None:
    """An explicit head_width (heads need not divide d) gives heads of that width."""
    cfg = AttentionConfig(vocab=3, max_len=5, d=8, heads=3, head_width=3, layers=1)
    assert cfg.head_dim == 3
    shapes = va.init_params_shapes(cfg)
    assert shapes["l0.q"] == (3, 8, 3) and shapes["l0.o"] == (3, 3, 8) and shapes["l0.rel"] == (3, 5, 3)


@pytest.mark.parametrize("name", ["vocab", "max_len", "d", "layers", "heads"])
def test_sizes_below_one_are_refused(name) -> None:
    """Every size of the architecture is at least 1; 0 is refused naming the field."""
    kwargs = {"vocab": 3, "max_len": 4, "d": 4, "layers": 1, "heads": 1, name: 0}
    with pytest.raises(ValueError, match=f"{name} must be >= 1"):
        AttentionConfig(**kwargs)


@pytest.mark.parametrize("dropout", [1.0, -0.1])
def test_dropout_must_lie_in_the_half_open_unit_interval(dropout) -> None:
    """Dropout probability 1 (everything dropped) or negative is refused; 0 is allowed."""
    with pytest.raises(ValueError, match="dropout"):
        AttentionConfig(vocab=3, max_len=4, dropout=dropout)
    assert AttentionConfig(vocab=3, max_len=4, dropout=0.0).dropout == 0.0


def test_per_seed_cross_entropy_is_the_mean_over_batch_and_positions() -> None:
    """Each seed's loss is the mean next-token cross-entropy over its B x T positions (not their sum)."""
    S, B, T, C = 2, 3, 4, 5
    g = torch.Generator().manual_seed(1)
    logits = torch.randn(S, B, T, C, generator=g, dtype=torch.float64)
    targets = torch.randint(0, C, (S, B, T), generator=g)
    for s in range(S):
        terms = [-torch.log_softmax(logits[s, b, t], 0)[targets[s, b, t]] for b in range(B) for t in range(T)]
        assert float(va.per_seed_cross_entropy(logits, targets)[s]) == pytest.approx(float(sum(terms)) / (B * T))


@pytest.mark.parametrize("optimizer", ["sgd", "adam", "adamw"])
def test_first_update_of_each_optimizer_follows_its_formula(optimizer) -> None:
    """One fit step from w with gradient g, lr 0.01, weight decay 0.5: SGD w - lr (g + wd w); Adam's first step
    w - lr g'/(|g'| + eps) with the L2 gradient g' = g + wd w; AdamW's decoupled w (1 - lr wd) - lr g/(|g| + eps)."""
    cfg = AttentionConfig(vocab=3, max_len=5, d=4, layers=1)
    tokens = torch.randint(0, 3, (2, 4, 5), generator=torch.Generator().manual_seed(0))
    model = AttentionEnsemble.init(cfg, (0, 1), dtype=torch.float64)
    w0 = {n: p.detach().clone() for n, p in model.named_parameters()}
    va.per_seed_cross_entropy(model(tokens), tokens).sum().backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad(set_to_none=True)
    lr, wd, eps = 1e-2, 0.5, 1e-8
    fit(model, lambda t: (tokens, tokens), FitSchedule(1, lr, optimizer, wd), RunOptions(device="cpu"), seeds=(0, 1))
    for name, p in model.named_parameters():
        w, g = w0[name], grads[name]
        if optimizer == "sgd":
            want = w - lr * (g + wd * w)
        elif optimizer == "adam":
            want = w - lr * (g + wd * w) / ((g + wd * w).abs() + eps)
        else:
            want = w * (1 - lr * wd) - lr * g / (g.abs() + eps)
        torch.testing.assert_close(p.detach(), want, rtol=1e-9, atol=1e-12, msg=name)


@pytest.mark.parametrize("head_width", [0, -1])
def test_head_width_below_one_is_refused(head_width) -> None:
    """A head width is a size: 0 (which fell back to d // heads even when heads does not divide d) and negative
    widths (which failed later in torch) are refused naming the field."""
    with pytest.raises(ValueError, match="head_width"):
        AttentionConfig(vocab=3, max_len=4, d=10, heads=3, head_width=head_width)
