"""Test-suite configuration: on CI (CI set in the environment) hypothesis runs derandomized, so a CI
failure reproduces exactly; locally it explores new examples on every run."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
