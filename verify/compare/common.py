"""What every comparison reports of a network's margins, whatever the task."""

from __future__ import annotations

from numerics.margins import MarginReport

__all__ = ["margin_fields"]


def margin_fields(rep: MarginReport, gamma: float) -> dict[str, float]:
    """The margin fields of a comparison, from a forward pass over the whole task.

    Parameters
    ----------
    rep : numerics.margins.MarginReport
        :func:`numerics.margins.evaluate` of the trained network.
    gamma : float
        The predicted maximum normalized margin gamma*.

    Returns
    -------
    dict of str to float
        ``normalized_margin``; ``margin_ratio`` = normalized margin / gamma (1 at the optimum); ``accuracy``;
        ``wrong_logit_spread``: the largest spread of the incorrect logits divided by ``|min margin|`` (floored at
        1e-300), 0 at the constructions, where every incorrect logit is equal.
    """
    return {
        "normalized_margin": rep.normalized_margin,
        "margin_ratio": rep.normalized_margin / gamma,
        "accuracy": rep.accuracy,
        "wrong_logit_spread": rep.wrong_logit_spread / max(abs(rep.min_margin), 1e-300),
    }
