"""Edelman Fig. 7.4a (Ch. 7, modular addition on Z_71): the maximum normalized Fourier power of a neuron at
initialisation, "randomly distributed", against its exact law (docs/modular.md, "Fig. 7.4a").

Prediction: :func:`theory.modular.init_purity_cdf` (the largest coordinate of ``Dirichlet(1/2, 1, ..., 1)``);
observation: the toolkit's own initialisation of the networks of Ch. 7 (:func:`verify.train.homogeneous.init_weights`,
i.i.d. ``N(0, 1/p)``), its input blocks u and v, and :func:`numerics.spectra.purity`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from numerics import spectra
from theory import modular as tmod
from verify.train.homogeneous import init_weights

from ..base import Claim, Observation, Resolution, RunContext, register
from ..judges import MC_Z, ZScore
from .common import EDELMAN

#: Fig. 7.4 (App. D.2): Z_71, width 500.
P, WIDTH = 71, 500


@dataclass(frozen=True)
class InitPurityConfig:
    """Seeds of the width-500 networks (each gives 2 x 500 input vectors u, v) and the thresholds x of the CDF."""

    seeds: tuple[int, ...]
    xs: tuple[Fraction, ...] = (Fraction(1, 10), Fraction(3, 25), Fraction(3, 20))


def _predict(cfg: InitPurityConfig) -> list[float]:
    return [float(tmod.init_purity_cdf(P, x).evalf(30)) for x in cfg.xs]


def _observe(cfg: InitPurityConfig, ctx: RunContext) -> Observation:
    vectors = np.concatenate([init_weights(s, WIDTH, 2, P, P)[0].numpy().reshape(-1, P) for s in cfg.seeds])
    pur = spectra.purity(vectors)
    n = pur.size
    cdf = np.array([(pur <= float(x)).mean() for x in cfg.xs])
    se = np.sqrt(np.maximum(cdf * (1 - cdf), 1.0 / n) / n)
    return Observation(
        cdf.tolist(),
        details={
            "stderr": se.tolist(),
            "vectors": int(n),
            "xs": [str(x) for x in cfg.xs],
            "median_purity": float(np.median(pur)),
            "largest_purity": float(pur.max()),
            "fraction_above_half": float((pur > 0.5).mean()),
        },
        seeds=cfg.seeds,
    )


register(
    Claim(
        id="edelman-ch7-fig7.4a-init-purity",
        resolution=Resolution(
            rel=0.07,
            why="Monte Carlo over 20,000 initial vectors: 4 binomial standard errors are 1.1 % to 4.2 % of the "
            "CDF values, so an error below about 5 % of the smallest one is not detected",
        ),
        source=f"{EDELMAN}, Fig. 7.4a (Ch. 7; Z_71, width 500, App. D.2)",
        statement="At initialisation the maximum normalized one-sided Fourier power of a neuron's input vector "
        "(Z_71) is 'randomly distributed': for i.i.d. Gaussian weights it is the largest coordinate of "
        "Dirichlet(1/2, 1, ..., 1) (35 ones), P(purity <= 0.10) = 0.3144, P(<= 0.12) = 0.6170, P(<= 0.15) = 0.8734 "
        "(median about 0.11; nothing near the value 1 of the trained quadratic network, Fig. 7.4c).",
        kind="numeric",
        configs={"quick": InitPurityConfig(tuple(range(20))), "full": InitPurityConfig(tuple(range(200)))},
        predict=_predict,
        observe=_observe,
        judge=ZScore(MC_Z),
        note="The thesis does not state its initialisation; the law holds for any spherically symmetric one (the "
        "toolkit's is i.i.d. N(0, 1/p)).",
    )
)
