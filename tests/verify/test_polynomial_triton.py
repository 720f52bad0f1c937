"""The fused Triton chunk kernel of verify.train.polynomial_triton against the eager reference
(verify.train.polynomial_step._eager_chunk), run without a GPU in Triton's interpreter (TRITON_INTERPRET=1: the
kernel's programs executed one by one with numpy), plus a ``gpu`` test of the compiled kernel on CUDA.

Tolerance: every output (CE sums, dtab, dW) must agree with the float32 eager chunk within 1e-5 x the largest
entry of the reference (max norm), the float32 tolerance the other kernel tests use (test_train_step_grid.py).
Both kernels compute in float32 (eps 1.2e-7) but sum in different orders (tiles of the width, atomic additions of
blocks of points), so they differ by round-off: measured 1-3 eps of the largest entry against a float64 reference,
for either kernel. 1e-5 is about 80 eps, well above that and far below what a wrong term would give (an O(1)
relative change of some entries).
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import verify.train.polynomial_step as ts
from verify.train import polynomial_triton as pt
from verify.train.polynomial_step import (
    ChunkSchedule,
    StepRequest,
    _chunk_inputs,
    _eager_chunk,
    ensemble_gradient,
    plan_step,
)


def _import_kernel_interpreted() -> str:
    """Import Triton and the kernel module with ``TRITON_INTERPRET=1`` (``triton.jit`` reads it when the kernel is
    decorated; the interpreter reads it again while it runs, see ``_interpret``), then restore the variable so that
    other modules' tests (torch.compile on CUDA) compile their kernels.
    Returns why the tests must skip ('' when they can run). The CUDA test's subprocess sets TVK_TRITON_COMPILED=1
    to import the compiled kernel instead."""
    before = os.environ.get("TRITON_INTERPRET")
    if os.environ.get("TVK_TRITON_COMPILED") != "1":
        os.environ["TRITON_INTERPRET"] = "1"
    try:
        interpreted = pt.interpreted()
    except ImportError as exc:  # the optional `gpu` extra
        return f"Triton is not installed (the optional `gpu` extra): {exc}"
    finally:
        if before is None:
            os.environ.pop("TRITON_INTERPRET", None)
        else:
            os.environ["TRITON_INTERPRET"] = before
    if not interpreted and os.environ.get("TVK_TRITON_COMPILED") != "1":
        return "the Triton kernel was imported compiled earlier in this session; run this module on its own"
    return ""


WHY = _import_kernel_interpreted()


@pytest.fixture(autouse=True)
def _interpret(monkeypatch: pytest.MonkeyPatch) -> None:
    """``TRITON_INTERPRET=1`` during each test of this module (Triton's interpreter checks it at run time too)."""
    if os.environ.get("TVK_TRITON_COMPILED") != "1":
        monkeypatch.setenv("TRITON_INTERPRET", "1")


needs_triton = pytest.mark.skipif(bool(WHY), reason=WHY)
ROOT = Path(__file__).resolve().parents[2]
RTOL_MAX = 1e-5  # x the largest entry of the reference (module doc)

Outputs = tuple[torch.Tensor, torch.Tensor, torch.Tensor]


def _problem(
    seed: int, g: int, k: int, p: int, m: int, c: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(table (k p, g m), W (g, m, p), xc (c, k) with block offsets, yc (c,)) in float32, drawn like the trainer's
    initialisation (U ~ N(0, 1/p), here W ~ N(0, 1/m) so that the logits are O(1))."""
    gen = torch.Generator().manual_seed(seed)
    U = torch.randn(g, m, k, p, generator=gen) / p**0.5
    W = torch.randn(g, m, p, generator=gen) / m**0.5
    x = torch.randint(0, p, (c, k), generator=gen)
    y = torch.randint(0, p, (c,), generator=gen)
    table = U.permute(2, 3, 0, 1).reshape(k * p, g * m).contiguous()
    return table, W, _chunk_inputs(x, 0, c, p, False), y


def _run(
    fn, table: torch.Tensor, W: torch.Tensor, degree: int, xc: torch.Tensor, yc: torch.Tensor, start: Outputs, **kw
) -> Outputs:
    """(ce, dtab, dW) after one call of ``fn`` (``_eager_chunk`` on one-hot inputs, or ``triton_chunk``, which takes
    no ``dense`` flag) on copies of ``start``."""
    ce, dtab, dW = (t.clone() for t in start)
    if fn is _eager_chunk:
        fn(table, W, degree, xc, yc, False, dtab, dW, ce, **kw)
    else:
        fn(table, W, degree, xc, yc, dtab, dW, ce, **kw)
    return ce, dtab, dW


def _zeros(table: torch.Tensor, W: torch.Tensor) -> Outputs:
    return torch.zeros(W.shape[0]), torch.zeros_like(table), torch.zeros_like(W)


def _assert_close(got: Outputs, want: Outputs) -> None:
    for name, a, b in zip(("ce", "dtab", "dW"), got, want):
        err = float((a.double() - b.double()).abs().max())
        scale = float(b.double().abs().max())
        assert err <= RTOL_MAX * scale, f"{name}: max error {err:.3g} > {RTOL_MAX} x {scale:.3g}"


@needs_triton
def test_the_kernel_runs_interpreted() -> None:
    assert pt.interpreted()


@needs_triton
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(
    ("g", "k", "degree", "p", "m", "c"),
    [
        (1, 2, 2, 5, 8, 16),  # C = 5 padded to 16 classes, m = 8 < one tile
        (2, 2, 2, 7, 16, 40),  # a partial block of points
        (2, 2, 3, 11, 32, 64),
        (2, 3, 3, 11, 32, 64),  # Shi's k = degree = 3
        (1, 3, 2, 5, 20, 33),  # m = 20: a partial width tile
        (2, 3, 2, 7, 24, 48),
    ],
)
def test_triton_chunk_matches_the_eager_chunk(seed: int, g: int, k: int, degree: int, p: int, m: int, c: int) -> None:
    """CE sums, table and output gradients of one chunk agree with ``_eager_chunk`` to float32 round-off; the
    chunk's inputs repeat table rows (c > p), so the atomic scatter adds several points into one row."""
    table, W, xc, yc = _problem(seed, g, k, p, m, c)
    want = _run(_eager_chunk, table, W, degree, xc, yc, _zeros(table, W))
    _assert_close(_run(pt.triton_chunk, table, W, degree, xc, yc, _zeros(table, W)), want)


@needs_triton
def test_triton_chunk_accumulates_and_tiles_alike() -> None:
    """Like ``_eager_chunk``, the kernel adds into non-zero accumulators; the result does not depend on the tile
    sizes (16 or 32 points and units per tile) beyond round-off."""
    table, W, xc, yc = _problem(3, 2, 2, 7, 40, 50)
    gen = torch.Generator().manual_seed(4)
    start = (
        torch.randn(2, generator=gen),
        torch.randn(table.shape, generator=gen),
        torch.randn(W.shape, generator=gen),
    )
    want = _run(_eager_chunk, table, W, 2, xc, yc, start)
    for bp, bw in [(16, 16), (32, 32), (16, 64)]:
        _assert_close(_run(pt.triton_chunk, table, W, 2, xc, yc, start, block_points=bp, block_width=bw), want)


@needs_triton
@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    g=st.integers(1, 2),
    k=st.integers(1, 3),
    degree=st.integers(1, 3),
    p=st.integers(2, 11),
    m=st.integers(1, 40),
    c=st.integers(1, 70),
)
def test_triton_chunk_matches_on_random_shapes(seed: int, g: int, k: int, degree: int, p: int, m: int, c: int) -> None:
    """Random small shapes, degree 1 included: padded classes, points and units are masked out."""
    table, W, xc, yc = _problem(seed, g, k, p, m, c)
    want = _run(_eager_chunk, table, W, degree, xc, yc, _zeros(table, W))
    _assert_close(_run(pt.triton_chunk, table, W, degree, xc, yc, _zeros(table, W), block_points=16), want)


@needs_triton
def test_triton_chunk_refuses_what_it_does_not_compute() -> None:
    table, W, xc, yc = _problem(0, 1, 2, 5, 8, 16)
    ce, dtab, dW = _zeros(table, W)
    with pytest.raises(ValueError, match="float32"):
        pt.triton_chunk(table.double(), W.double(), 2, xc, yc, dtab.double(), dW.double(), ce.double())
    with pytest.raises(ValueError, match="power of two"):
        pt.triton_chunk(table, W, 2, xc, yc, dtab, dW, ce, block_width=24)
    with pytest.raises(ValueError, match="precision"):
        pt.triton_chunk(table, W, 2, xc, yc, dtab, dW, ce, precision="bf16")


def test_triton_chunk_says_when_triton_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without Triton (the kernel module cannot be imported) the wrapper raises an ImportError naming the extra."""
    monkeypatch.setitem(sys.modules, "verify.train._polynomial_triton_kernels", None)
    table, W, xc, yc = _problem(0, 1, 2, 5, 8, 16)
    ce, dtab, dW = _zeros(table, W)
    with pytest.raises(ImportError, match=r"needs Triton.*\[gpu\]"):
        pt.triton_chunk(table, W, 2, xc, yc, dtab, dW, ce)


@needs_triton
@pytest.mark.parametrize(("strategy", "group"), [("batched", 3), ("loop", 1)])
def test_ensemble_gradient_with_the_triton_scatter_matches_index_add(strategy: str, group: int) -> None:
    """``ChunkSchedule(scatter='triton')`` runs every chunk (a shorter last one included) through the kernel: the
    mean CE and the gradients of the whole ensemble agree with the eager ``index_add_`` scatter."""
    gen = torch.Generator().manual_seed(5)
    S, m, k, p, n = 3, 24, 3, 7, 90
    U = torch.randn(S, m, k, p, generator=gen) / p**0.5
    W = torch.randn(S, m, p, generator=gen) / m**0.5
    x, y = torch.randint(0, p, (n, k), generator=gen), torch.randint(0, p, (n,), generator=gen)
    want = ensemble_gradient(U, W, 3, x, y, ChunkSchedule(group, 32, strategy))
    got = ensemble_gradient(U, W, 3, x, y, ChunkSchedule(group, 32, strategy, scatter="triton"))
    _assert_close(got, want)


def test_the_planner_never_takes_the_triton_kernel_on_the_cpu() -> None:
    """On the CPU the automatic plan keeps to the eager kernels, and ``kernel='triton'`` is refused with a reason."""
    gen = torch.Generator().manual_seed(6)
    U, W = torch.randn(2, 64, 2, 11, generator=gen), torch.randn(2, 64, 11, generator=gen)
    x, y = torch.randint(0, 11, (2000, 2), generator=gen), torch.randint(0, 11, (2000,), generator=gen)
    request = StepRequest(dataset_points=2000, optimizer_slots=2, steps=1000, probe=False, dry_run=True)
    assert plan_step(U, W, 2, x, y, request).plan.kernel == "general"
    with pytest.raises(ValueError, match=r"kernel='triton'.*CUDA"):
        plan_step(U, W, 2, x, y, dataclasses.replace(request, kernel="triton"))


@needs_triton
def test_the_planners_self_check_accepts_the_kernel_and_rejects_a_wrong_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the CUDA probe times the kernel, ``_triton_agrees`` compares it with the eager chunk on a small chunk
    of the request's k, degree and C (here in the interpreter, on the CPU); a kernel that disagrees or fails is
    left out with a warning."""
    monkeypatch.setattr(ts, "_TRITON_CHECKED", {})
    cpu = torch.device("cpu")
    assert ts._triton_agrees(cpu, 3, 3, 7)

    def off_by_one(table, W, degree, xc, yc, dtab, dW, ce):
        pt.triton_chunk(table, W, degree, xc, yc, dtab, dW, ce)
        ce += 1.0

    def broken(*args, **kwargs):
        raise RuntimeError("no driver")

    for wrong, says in [(off_by_one, "disagrees"), (broken, "failed")]:
        monkeypatch.setattr(ts, "_TRITON_CHECKED", {})
        monkeypatch.setattr(ts, "triton_chunk", wrong)
        with pytest.warns(UserWarning, match=says):
            assert not ts._triton_agrees(cpu, 2, 2, 5)


# Ahead-of-time compilation for an H200 (sm_90) without a GPU: Triton's own ptxas builds the cubin.
_AOT_CHECK = """
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from verify.train._polynomial_triton_kernels import INTERPRETED, chunk_kernel
assert not INTERPRETED
ptrs = {name: "*fp32" for name in ("tab_ptr", "w_ptr", "dtab_ptr", "dw_ptr", "ce_ptr")}
ints = {name: "i32" for name in ("n_points", "width", "n_classes", "row_stride")}
consts = {"K": 4, "DEGREE": 4, "BLOCK_N": 32, "BLOCK_M": 32, "BLOCK_C": 64}
for precision, mma in (("ieee", False), ("tf32", True)):
    sig = {**ptrs, "x_ptr": "*i64", "y_ptr": "*i64", **ints, **dict.fromkeys([*consts, "PRECISION"], "constexpr")}
    src = ASTSource(fn=chunk_kernel, signature=sig, constexprs={**consts, "PRECISION": precision})
    kernel = triton.compile(src, target=GPUTarget("cuda", 90, 32))
    assert kernel.asm["cubin"] and ("mma" in kernel.asm["ptx"]) == mma, precision
print("ok")
"""


@pytest.mark.slow  # about 8 s on the 2-core CPU: a fresh interpreter, Triton's import and two compilations
@needs_triton
def test_the_kernel_compiles_for_an_h200_without_a_gpu(tmp_path: Path) -> None:
    """Triton compiles the kernel down to an sm_90 cubin on the CPU (its bundled ptxas): the compiled path, which
    the interpreter does not exercise, at least builds; 'ieee' products stay float32 FMAs, 'tf32' uses tensor cores."""
    env = {key: v for key, v in os.environ.items() if key != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env["TRITON_DEFAULT_FP_FUSION"] = "1"
    env["TRITON_CACHE_DIR"] = str(tmp_path)  # compile afresh, and leave no cache behind
    run = subprocess.run([sys.executable, "-c", _AOT_CHECK], cwd=ROOT, env=env, capture_output=True, text=True)
    assert run.returncode == 0 and "ok" in run.stdout, run.stdout + run.stderr


# The compiled kernel on CUDA, in a fresh interpreter (this module imported Triton in interpreter mode).
_GPU_CHECK = """
import torch
from tests.verify.test_polynomial_triton import _assert_close, _problem, _run, _zeros
from verify.train import polynomial_triton as pt
from verify.train.polynomial_step import _eager_chunk
assert not pt.interpreted()
for seed, g, k, degree, p, m, c in [(1, 2, 2, 2, 31, 96, 961), (2, 1, 3, 3, 23, 512, 4096), (3, 4, 4, 4, 11, 200, 3000)]:
    table, W, xc, yc = (t.cuda() for t in _problem(seed, g, k, p, m, c))
    want = _run(_eager_chunk, table, W, degree, xc, yc, tuple(t.cuda() for t in _zeros(table, W)))
    got = _run(pt.triton_chunk, table, W, degree, xc, yc, tuple(t.cuda() for t in _zeros(table, W)))
    assert all(t.is_cuda for t in got)
    _assert_close(got, want)
# the automatic CUDA plan probes the fused kernel next to the others (Shi k = 3 at p = 23, 4 seeds, float32)
from verify.train.polynomial_step import StepRequest, plan_step
gen = torch.Generator().manual_seed(7)
U = (torch.randn(4, 512, 3, 23, generator=gen) / 23**0.5).cuda()
W = (torch.randn(4, 512, 23, generator=gen) / 512**0.5).cuda()
x, y = torch.randint(0, 23, (23**3, 3), generator=gen).cuda(), torch.randint(0, 23, (23**3,), generator=gen).cuda()
plan = plan_step(U, W, 3, x, y, StepRequest(dataset_points=23**3, optimizer_slots=2, steps=1000, compile=False)).plan
assert "triton-batched" in plan.reason, plan.reason
print(plan.reason)
print("ok")
"""


@pytest.mark.gpu
@needs_triton
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_compiled_triton_chunk_matches_the_eager_chunk_on_cuda() -> None:
    """The compiled kernel (float32 products, precision='ieee') agrees with the eager chunk on CUDA at sizes up
    to k = 4, m = 512, 4096 points, and the automatic CUDA plan probes it."""
    env = {key: v for key, v in os.environ.items() if key != "TRITON_INTERPRET"}
    env["TVK_TRITON_COMPILED"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    run = subprocess.run([sys.executable, "-c", _GPU_CHECK], cwd=ROOT, env=env, capture_output=True, text=True)
    assert run.returncode == 0 and "ok" in run.stdout, run.stdout + run.stderr
