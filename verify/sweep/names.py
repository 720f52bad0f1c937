"""Names shared by the sweep engine and its command line, in a module that imports nothing (so that parsing
`tvk` arguments does not import the store, the executors or multiprocessing; issue 31, item 7)."""

from __future__ import annotations

__all__ = ["EXECUTORS", "STORE_NAME"]

#: The executors of ``tvk report --executor`` (verify/sweep/executors.py).
EXECUTORS = ("local", "processes", "ray")
#: The file name of a results store in a report directory (verify/sweep/store.py).
STORE_NAME = "sweep.sqlite"
