"""Audit of the shared pieces of the sparse-parity claims' verdicts (verify/claims/sparse_parity/common.py): the
summary row's convergence count and divergence over every cell of a setting, the seeds a stored result ran, the
JSON form of t_c, and SeedPopulation's count of successes. Oracles: hand-built cell results and units whose counts
are known by construction, numerics.stats' Clopper-Pearson bounds."""

from __future__ import annotations

import numpy as np
import pytest

from numerics.stats import clopper_pearson
from verify.claims.judges import Population
from verify.claims.sparse_parity.common import (
    Fig51Model,
    SeedPopulation,
    diverged_at,
    parity_cell,
    ran_seeds,
    summary_row,
    tc_list,
    xavier_relu_mlp,
)
from verify.sweep import CellResult


def _result(cell_seeds: tuple[int, ...], tc: list[float], diverged: list[float] | None = None, **extra) -> CellResult:
    cfg = xavier_relu_mlp(Fig51Model(), 10, 2, 8, cell_seeds, 10)
    value = {"t_c": np.array(tc, dtype=float), **extra}
    if diverged is not None:
        value["diverged_at"] = np.array(diverged, dtype=float)
    return CellResult(parity_cell("c", cfg), value, 1.0)


def test_summary_row_counts_converged_seeds_and_reads_divergence_over_every_cell() -> None:
    """Of 4 seeds over two cells, 2 converged; every seed diverged only when both cells say so: the first cell
    alone (all diverged) is not 'every seed diverged' when the second cell's seeds did not."""
    a = _result((0, 1), [100.0, np.inf], diverged=[50.0, 60.0])
    b = _result((2, 3), [np.inf, 300.0], diverged=[np.inf, np.inf])
    tc = np.array([100.0, np.inf, np.inf, 300.0])
    row = summary_row(tc, [a, b], 10)
    assert row["converged"] == 2 and row["t_c"] == [100.0, None, None, 300.0]
    assert row["median"] == float(np.median(tc)) and row["divergence"] is None
    assert diverged_at([a, b]).tolist() == [50.0, 60.0, np.inf, np.inf]
    blown = _result((2, 3), [np.inf, np.inf], diverged=[70.0, 80.0])
    assert "all 4 seeds" in summary_row(tc, [a, blown], 10)["divergence"]


def test_a_result_stored_without_divergence_never_diverged() -> None:
    """A cell stored before the field existed counts as never diverged (inf per seed)."""
    assert diverged_at([_result((0, 1), [1.0, 2.0])]).tolist() == [np.inf, np.inf]


def test_ran_seeds_are_the_stored_ones_when_recorded() -> None:
    """The seeds a result ran: the stored 'seeds' (shifted by a seed offset), else the cell's own."""
    assert ran_seeds(_result((0, 1), [1.0, 2.0], seeds=[1000, 1001])) == [1000, 1001]
    assert ran_seeds(_result((0, 1), [1.0, 2.0])) == [0, 1]


def test_tc_list_maps_every_non_finite_time_to_none() -> None:
    """inf (and NaN) mean 'did not converge': None; large finite times stay numbers."""
    assert tc_list(np.array([1e308, np.inf, np.nan, 5.0])) == [1e308, None, None, 5.0]


class _Units(SeedPopulation):
    def units(self, predicted, obs, config):
        return obs

    def __call__(self, predicted, obs, config=None):
        return self.tally(self.units(predicted, obs, config), "units")

    def describe(self) -> str:
        return "test units"


@pytest.mark.parametrize("fails", [0, 1, 3])
def test_population_counts_units_without_problems(fails: int) -> None:
    """successes = units with no problem, n = all units, the bounds Clopper-Pearson's (a unit with a problem is
    never a success, the first unit included)."""
    units = [{"label": f"u{i}", "problems": ["x"] if i < fails else []} for i in range(6)]
    judge = _Units(rule=Population(p0=0.5, p_alt=0.9))
    pop = judge.population({}, units)
    lo, hi = clopper_pearson(6 - fails, 6)
    assert (pop["successes"], pop["n"]) == (6 - fails, 6)
    assert pop["lower"] == pytest.approx(lo) and pop["upper"] == pytest.approx(hi)
    verdict, text = judge.tally(units, "units")
    assert text.startswith(f"{6 - fails} of 6 units") and verdict == pop["verdict"]
