"""The ``tvk`` command.

    tvk report  [--scale quick|full] [--only PATTERN] [--device auto|cpu|cuda] [--out DIR] [--json]
    tvk derive  modular --p P --k K [--json]
    tvk derive  parity --k K [--n N] [--json]
    tvk derive  group --name NAME [--json]          (NAME like S4, D6, A5, Z2^3, S3xZ2)
    tvk derive  lsa --lambda 4,3,2,1 --N 20 --rank R [--json]
    tvk derive  majority --n N --k K [--json]
    tvk derive  signal --k K [--json]
    tvk certify modular --p P --k K | parity --n N --k K | group --name NAME  [--starts S] [--seed S] [--json]
    tvk list    [--scale quick|full] [--only PATTERN] [--json]
    tvk sweep   status [--out DIR] [--json] | merge OUT SRC... [--json]

``tvk report`` also takes the sweep options ``--executor local|processes|ray``, ``--ray-address``, ``--workers``,
``--gpus-per-cell``, ``--shard I/N`` and ``--confirm-cost`` (docs/running_at_scale.md).

With ``--json`` a command prints exactly one JSON object on stdout; progress and logs go to stderr.
Errors print one line ``tvk: error: ...`` on stderr (and ``{"error": ...}`` on stdout with ``--json``)
and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Sequence

import sympy

from numerics import groups as ng
from numerics import modular as nm
from numerics import parity as npar
from numerics.margins import evaluate
from theory import boolean as tb
from theory import finite_groups as fg
from theory import groups as tg
from theory import local_signal as tls
from theory import lsa as tl
from theory import modular as tm
from theory import parity as tp

from .sweep import cli as sweep_cli

__all__ = ["main"]

# Above this many multiply-adds, `derive` does not evaluate the construction on every input by default.
EVALUATE_LIMIT = 3e9


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _emit(obj: dict, as_json: bool, text: str) -> None:
    if as_json:
        from .claims import to_jsonable  # deferred: the claim registry imports torch

        print(json.dumps(to_jsonable(obj)))
    else:
        print(text)


def _cmd_report(args: argparse.Namespace) -> int:
    from .report import run_report  # deferred: imports torch

    records, meta = run_report(
        args.out,
        scale=args.scale,
        only=args.only,
        device=args.device,
        progress=not args.no_progress,
        dtype=args.dtype,
        ignore_memory_check=args.ignore_memory_check,
        **sweep_cli.report_kwargs(args),
    )
    counts: dict[str, int] = {}
    for r in records:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    obj = {
        "out": str(args.out),
        "files": ["results.json", "report.md", "report.html", "figures/"],
        "summary": counts,
        "claims": [{"id": r["id"], "verdict": r["verdict"]} for r in records],
        "runtime_s": round(meta["runtime_s"], 2),
    }
    text = "\n".join(f"{r['verdict']:>12}  {r['id']}" for r in records)
    text += f"\nwrote {args.out}/results.json, report.md, report.html, figures/  ({', '.join(f'{k}: {v}' for k, v in counts.items())})"
    _emit(obj, args.json, text)
    if args.shard is not None:  # a shard's grids are incomplete until the stores are merged: not a failure
        incomplete = sum(not r["metadata"].get("sweep", {}).get("complete", True) for r in records)
        counts["inconclusive"] = counts.get("inconclusive", 0) - incomplete
    return 0 if counts.get("fail", 0) == 0 and counts.get("inconclusive", 0) == 0 else 1


def _cmd_list(args: argparse.Namespace) -> int:
    from .claims import select  # deferred: the claim registry imports torch

    claims = select(args.only, args.scale)
    obj = {"scale": args.scale, "claims": [{"id": c.id, "kind": c.kind, "source": c.source} for c in claims]}
    _emit(obj, args.json, "\n".join(f"{c.id:40s} {c.kind:9s} {c.source}" for c in claims))
    return 0


def _cmd_derive_modular(args: argparse.Namespace) -> int:
    p, k = args.p, args.k
    gamma = tm.max_margin(p, k)
    width = tm.min_width(p, k)
    obj: dict[str, Any] = {
        "task": "modular",
        "p": p,
        "k": k,
        "source": "Shi thesis Thm 4.9 / C.22 (Edelman Thm 7.7 for k = 2)",
        "gamma_star": {"exact": str(gamma), "float": float(gamma)},
        "min_width": width,
        "optimal_amplitude": {"exact": str(tm.optimal_amplitude(p, k)), "float": float(tm.optimal_amplitude(p, k))},
        "frequencies": len(tm.frequencies(p)),
        "single_frequency_conclusion_holds": k >= 2,
    }
    cost = width * p**k * (k + p)
    if args.evaluate == "always" or (args.evaluate == "auto" and cost <= EVALUATE_LIMIT):
        t0 = time.perf_counter()
        rep = evaluate(nm.construction_network(p, k), nm.ModularTask(p, k))
        obj["construction"] = {
            "normalized_margin": rep.normalized_margin,
            "ratio_to_gamma_star": rep.normalized_margin / float(gamma),
            "wrong_logit_spread": rep.wrong_logit_spread,
            "accuracy": rep.accuracy,
            "points": rep.n_points,
            "seconds": round(time.perf_counter() - t0, 3),
        }
    else:
        obj["construction"] = {
            "skipped": f"evaluating {width} neurons on {p}^{k} inputs costs ~{cost:.1e} operations; "
            "pass --evaluate always to force it"
        }
    c = obj["construction"]
    text = (
        f"modular addition, p = {p}, k = {k}  ({obj['source']})\n"
        f"  gamma*            = {gamma} ≈ {float(gamma):.12e}\n"
        f"  width bound       = 2^(2k-2)(p-1) = {width}\n"
        f"  optimal amplitude = {tm.optimal_amplitude(p, k)} ≈ {float(tm.optimal_amplitude(p, k)):.10f}\n"
        + (
            f"  construction      = normalized margin {c['normalized_margin']:.12e} (ratio {c['ratio_to_gamma_star']:.15f}) "
            f"on all {c['points']} inputs, wrong-logit spread {c['wrong_logit_spread']:.1e}"
            if "normalized_margin" in c
            else f"  construction      = {c['skipped']}"
        )
        + ("" if k >= 2 else "\n  note: for k = 1 the value is exact but optimal neurons need not be single-frequency")
    )
    _emit(obj, args.json, text)
    return 0


def _num(x: Any) -> dict:
    return {"exact": str(x), "float": float(x)}


def _cmd_derive_group(args: argparse.Namespace) -> int:
    G = fg.group(args.name)
    table = fg.character_table(G)
    obj: dict[str, Any] = {
        "task": "group",
        "name": args.name,
        "order": G.order,
        "source": "Edelman thesis Thm 7.9 (App. D.8-D.9)",
        "irreps": list(table.names),
        "dims": [int(d) for d in table.dims],
        "frobenius_schur": [int(i) for i in table.indicators],
        "all_irreps_real": fg.is_totally_real(G),
    }
    if not obj["all_irreps_real"]:
        obj["closed_form"] = "not applicable: not every irrep is real (Frobenius-Schur indicator != +1)"
        if args.name.upper().startswith("Z") and "X" not in args.name.upper() and "^" not in args.name:
            obj["closed_form"] += "; for Z_p use `tvk derive modular --p P --k 2`"
        _emit(obj, args.json, f"{args.name} (|G| = {G.order}): {obj['closed_form']}")
        return 0
    cond = tg.condition_values(G)
    obj["condition_values"] = [_num(v) for v in cond[1:]]
    obj["condition_holds"] = tg.condition_holds(G)
    lp = ng.character_lp(G)
    obj["character_lp"] = {
        "value": lp.value,
        "dual_value": lp.dual_value,
        "used_irreps": [table.names[i] for i in lp.used_irreps],
    }
    if obj["condition_holds"]:
        gamma = tg.max_margin(G)
        obj["gamma_star"] = _num(gamma)
        obj["min_width"] = tg.min_width(G)
        obj["tau"] = [_num(t) for t in tg.tau(G)[1:]]
        net = ng.construction_network(G)
        rep = evaluate(net, ng.GroupTask(G))
        obj["construction"] = {
            "width": net.width,
            "normalized_margin": rep.normalized_margin,
            "ratio_to_gamma_star": rep.normalized_margin / float(gamma),
            "wrong_logit_spread": rep.wrong_logit_spread,
        }
        text = (
            f"{args.name} (|G| = {G.order}), Edelman Thm 7.9: condition holds\n"
            f"  gamma*       = {gamma} ≈ {float(gamma):.12e}  (character LP: {lp.value:.12e})\n"
            f"  width bound  = 2 sum d_R^3 = {obj['min_width']}\n"
            f"  tau_C        = {', '.join(f'{float(t):.6g}' for t in tg.tau(G)[1:])}\n"
            f"  construction = normalized margin {rep.normalized_margin:.12e} (ratio {rep.normalized_margin / float(gamma):.12f})"
        )
    else:
        bad = [table.class_labels[i + 1] for i, v in enumerate(cond[1:]) if not float(v) < 0]
        obj["closed_form"] = f"not applicable: the condition fails at classes {bad}; gamma* is the character-LP value"
        obj["gamma_star"] = {"float": lp.value, "method": "character-level LP (Edelman App. D.9.2)"}
        text = (
            f"{args.name} (|G| = {G.order}): Thm 7.9's condition fails at classes {bad}\n"
            f"  gamma* (character LP) = {lp.value:.12e}, dual bound {lp.dual_value:.12e}"
        )
    _emit(obj, args.json, text)
    return 0


def _cmd_derive_parity(args: argparse.Namespace) -> int:
    k = args.k
    n = args.n if args.n is not None else k
    tp.check_nk(n, k)
    gamma = tp.max_margin(k)
    support = tuple(range(k))
    net = npar.construction_network(n, support)
    rep = evaluate(net, npar.SparseParityTask(n, support))
    obj = {
        "task": "parity",
        "n": n,
        "k": k,
        "source": "Edelman thesis Thm 7.8 (App. D.7)",
        "gamma_star": _num(gamma),
        "min_width": tp.min_width(k),
        "independent_of_n": True,
        "construction": {
            "normalized_margin": rep.normalized_margin,
            "ratio_to_gamma_star": rep.normalized_margin / float(gamma),
            "points": rep.n_points,
        },
    }
    text = (
        f"({n},{k})-sparse parity (Edelman Thm 7.8)\n  gamma*      = {gamma} ≈ {float(gamma):.12e} (independent of n)\n"
        f"  width bound = 2^(k-1) = {tp.min_width(k)}\n"
        f"  construction normalized margin on all 2^{n} inputs: {rep.normalized_margin:.12e} "
        f"(ratio {rep.normalized_margin / float(gamma):.12f})"
    )
    _emit(obj, args.json, text)
    return 0


def _cmd_derive_lsa(args: argparse.Namespace) -> int:
    try:
        eig = [sympy.Rational(v.strip()) for v in args.lambda_.split(",") if v.strip()]
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"--lambda must be comma-separated numbers (the eigenvalues of Lambda), got {args.lambda_!r}"
        ) from exc
    Lam = sympy.diag(*eig)
    opt = tl.optimal_rank_r(Lam, args.N, args.rank)
    exact = all(isinstance(v, sympy.Basic) and v.is_Rational for v in opt.lam)
    method = "exact (rational eigenvalues, sympy)" if exact else "float64 fallback (mpmath, 30 digits)"
    obj = {
        "task": "lsa",
        "source": "Shi thesis Thm 5.4.1 (App. D)",
        "lambda": [str(v) for v in eig],
        "N": args.N,
        "rank": args.rank,
        "method": method,
        "T": [_num(t) for t in opt.T],
        "v_star": [_num(v) for v in opt.v],
        "U_star": [[str(x) for x in row] for row in opt.U.tolist()],
        "reduced_loss": _num(opt.reduced_loss),
        "L_r": _num(opt.loss),
        "unique": bool(opt.unique),
    }
    text = (
        f"optimal rank-{args.rank} linear self-attention (Shi Thm 5.4.1), Lambda = diag({', '.join(map(str, eig))}), N = {args.N}\n"
        f"  method  = {method}\n"
        f"  T_i     = {', '.join(str(t) for t in opt.T)}\n"
        f"  v*      = {', '.join(str(v) for v in opt.v)}\n"
        f"  U*      = Q diag(v*) Q^T = {opt.U.tolist()}\n"
        f"  L_r     = {opt.loss} ≈ {float(opt.loss):.12g}"
        + (
            ""
            if opt.unique
            else "\n  note: tied eigenvalues at the cut; any r-dim subspace of the tied eigenspace is optimal"
        )
    )
    _emit(obj, args.json, text)
    return 0


def _cmd_derive_majority(args: argparse.Namespace) -> int:
    n, k = args.n, args.k
    coef = tb.majority_coefficient(n, k)
    weight = tb.majority_level_weight(n, k)
    gap = tb.majority_gap(n, k) if k >= 2 else None
    obj = {
        "task": "majority",
        "n": n,
        "k": k,
        "source": "Edelman thesis Lemma B.1 / Definition 5.4 / Lemma B.2",
        "coefficient": {"exact": str(coef), "float": float(coef)},
        "level_weight": {"exact": str(weight), "float": float(weight)},
        "fourier_gap": None if gap is None else {"exact": str(gap), "float": float(gap)},
    }
    text = (
        f"Majority_{n}, level k = {k} (Edelman Lemma B.1)\n"
        f"  coefficient Maj_n(S), |S| = k = {coef} ≈ {float(coef):.12g}\n"
        f"  level weight W^k[Maj_n]        = {weight} ≈ {float(weight):.12g}"
    )
    if gap is not None:
        text += f"\n  Fourier gap (Definition 5.4)   = {gap} ≈ {float(gap):.12g}" + ("  (0 for odd k)" if k % 2 else "")
    _emit(obj, args.json, text)
    return 0


def _certificate_output(task: dict[str, Any], title: str, gamma: Any, cert: Any) -> tuple[dict[str, Any], str]:
    """The JSON object and the text of `tvk certify`: gamma* from theory, the bracket, which end is rigorous."""
    verdict, why = cert.verdict(gamma)
    obj = {
        **task,
        "gamma_star": {"exact": str(gamma), "float": float(gamma)},
        "certificate": cert.summary(),
        "verdict": verdict,
        "reason": why,
    }
    text = f"{title}: gamma* = {gamma} ≈ {float(gamma):.12e} (theory)\n{cert.text()}\n  verdict: {verdict} ({why})"
    return obj, text


def _cmd_derive_signal(args: argparse.Namespace) -> int:
    summary = tls.derive_signal(args.k)
    _emit(summary, args.json, tls.format_signal(summary))
    return 0


def _cmd_certify_modular(args: argparse.Namespace) -> int:
    from numerics.certificates import certify_modular  # deferred: imports cvxpy

    p, k = args.p, args.k
    gamma = tm.max_margin(p, k)  # checks p and k before any solver runs
    _log(f"certifying modular addition p = {p}, k = {k} (forward pass, {args.starts} starts, SOS relaxation) ...")
    cert = certify_modular(p, k, n_starts=args.starts, seed=args.seed)
    obj, text = _certificate_output(
        {"task": "modular", "p": p, "k": k}, f"modular addition, p = {p}, k = {k}", gamma, cert
    )
    _emit(obj, args.json, text)
    return 0


def _cmd_certify_parity(args: argparse.Namespace) -> int:
    from numerics.certificates import certify_parity  # deferred: imports cvxpy

    n, k = args.n, args.k
    if not 1 <= k <= n:
        raise ValueError(f"--k must satisfy 1 <= k <= n (--n), got k = {k}, n = {n}")
    gamma = tp.max_margin(k)
    _log(f"certifying ({n}, {k})-sparse parity (forward pass, {args.starts} starts, SOS relaxation) ...")
    cert = certify_parity(n, k, n_starts=args.starts, seed=args.seed)
    obj, text = _certificate_output({"task": "parity", "n": n, "k": k}, f"({n}, {k})-sparse parity", gamma, cert)
    _emit(obj, args.json, text)
    return 0


def _cmd_certify_group(args: argparse.Namespace) -> int:
    from numerics.certificates import certify_group  # deferred: imports cvxpy

    gamma = tg.max_margin(args.name)
    _log(f"certifying the group {args.name} (forward pass, {args.starts} starts, SOS relaxation) ...")
    cert = certify_group(args.name, n_starts=args.starts, seed=args.seed)
    obj, text = _certificate_output({"task": "group", "name": args.name}, f"group {args.name}", gamma, cert)
    _emit(obj, args.json, text)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tvk", description="Theory verification toolkit")
    sub = parser.add_subparsers(dest="command", required=True)

    rep = sub.add_parser("report", help="run the claims and write results.json, report.md, report.html and figures/")
    rep.add_argument(
        "--scale",
        choices=["quick", "full"],
        default="quick",
        help="quick: a 2-core CPU in minutes (default); full: the papers' settings, meant for a GPU",
    )
    rep.add_argument("--only", default=None, help="shell pattern(s) on claim ids, comma-separated (e.g. 'shi-*')")
    rep.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    rep.add_argument("--out", default="tvk-report", help="output directory (default: tvk-report)")
    rep.add_argument("--no-progress", action="store_true", help="no progress bars")
    rep.add_argument("--json", action="store_true")
    rep.add_argument(
        "--dtype",
        choices=["float64", "float32", "tf32"],
        default=None,
        help="training dtype of the polynomial networks (default: float64 on CPU, float32 on CUDA; tf32: CUDA "
        "only); every judged quantity is evaluated in float64",
    )
    rep.add_argument(
        "--ignore-memory-check",
        action="store_true",
        help="start runs whose estimated peak memory exceeds the device's free memory",
    )
    sweep_cli.add_report_options(rep)
    rep.set_defaults(func=_cmd_report)

    lst = sub.add_parser("list", help="list the registered claims")
    lst.add_argument("--scale", choices=["quick", "full"], default="quick")
    lst.add_argument("--only", default=None)
    lst.add_argument("--json", action="store_true")
    lst.set_defaults(func=_cmd_list)

    sweep_cli.add_sweep_commands(sub)

    for name, helptext in (("derive", "exact derivations"), ("certify", "convex certificates")):
        cmd = sub.add_parser(name, help=helptext)
        tasks = cmd.add_subparsers(dest="task", required=True)
        mod = tasks.add_parser("modular", help="modular addition with k inputs (Shi Ch. 4; Edelman Ch. 7 for k = 2)")
        mod.add_argument("--p", type=int, required=True, help="odd modulus p >= 3")
        mod.add_argument("--k", type=int, required=True, help="number of inputs k >= 1")
        mod.add_argument("--json", action="store_true")
        if name == "derive":
            mod.add_argument(
                "--evaluate",
                choices=["auto", "always", "never"],
                default="auto",
                help="evaluate the construction on all p^k inputs (auto: when cheap)",
            )
            mod.set_defaults(func=_cmd_derive_modular)
            par = tasks.add_parser("parity", help="(n, k)-sparse parity (Edelman Thm 7.8)")
            par.add_argument("--k", type=int, required=True, help="parity degree k >= 1")
            par.add_argument(
                "--n", type=int, default=None, help="input bits n >= k for the construction check (default k)"
            )
            par.add_argument("--json", action="store_true")
            par.set_defaults(func=_cmd_derive_parity)
            grp = tasks.add_parser("group", help="finite group composition (Edelman Thm 7.9)")
            grp.add_argument("--name", required=True, help="S3..S6, A4, A5, Dn, Zn, Z2^k, Q8, products like S3xZ2")
            grp.add_argument("--json", action="store_true")
            grp.set_defaults(func=_cmd_derive_group)
            lsa = tasks.add_parser(
                "lsa", help="optimal rank-r linear self-attention for in-context regression (Shi Thm 5.4.1)"
            )
            lsa.add_argument("--lambda", dest="lambda_", required=True, help="eigenvalues of Lambda, e.g. 4,3,2,1")
            lsa.add_argument("--N", type=int, required=True, help="prompt length N >= 1")
            lsa.add_argument("--rank", type=int, required=True, help="rank r, 0 <= r <= d")
            lsa.add_argument("--json", action="store_true")
            lsa.set_defaults(func=_cmd_derive_lsa)
            maj = tasks.add_parser(
                "majority", help="Majority_n Fourier coefficient, level weight and Fourier gap (Edelman App. B)"
            )
            maj.add_argument("--n", type=int, required=True, help="number of bits n >= 1")
            maj.add_argument("--k", type=int, required=True, help="level 0 <= k <= n")
            maj.add_argument("--json", action="store_true")
            maj.set_defaults(func=_cmd_derive_majority)
            sig = tasks.add_parser(
                "signal", help="local signal adaptivity: sigma, linear classifier error, tau*, err(tau*) (Karp Ch. 3)"
            )
            sig.add_argument("--k", type=int, required=True, help="number of patches k >= 2")
            sig.add_argument("--json", action="store_true")
            sig.set_defaults(func=_cmd_derive_signal)
        else:
            par = tasks.add_parser("parity", help="(n, k)-sparse parity (Edelman Thm 7.8)")
            par.add_argument("--n", type=int, required=True, help="input bits n >= k")
            par.add_argument("--k", type=int, required=True, help="parity degree k >= 1")
            par.add_argument("--json", action="store_true")
            grp = tasks.add_parser("group", help="finite group composition (Edelman Thm 7.9)")
            grp.add_argument("--name", required=True, help="a small group: S3, D4, D5, Z2^3, ...")
            grp.add_argument("--json", action="store_true")
            for cmd_parser, func in (
                (mod, _cmd_certify_modular),
                (par, _cmd_certify_parity),
                (grp, _cmd_certify_group),
            ):
                cmd_parser.add_argument(
                    "--starts", type=int, default=8, help="multi-start count of the heuristic single-neuron maximum"
                )
                cmd_parser.add_argument("--seed", type=int, default=0, help="seed of the multi-start points")
                cmd_parser.set_defaults(func=func)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``tvk``; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:  # e.g. `tvk ... | head`: the reader left; say nothing more
        sys.stdout = open(os.devnull, "w")
        return 1
    except (ValueError, OSError, RuntimeError) as exc:
        msg = f"{type(exc).__name__}: {exc}" if not isinstance(exc, ValueError) else str(exc)
        if getattr(args, "json", False):
            print(json.dumps({"error": msg}))
        print(f"tvk: error: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
