"""Torch models and training, learned-vs-predicted comparison, claims and the ``tvk`` report."""
