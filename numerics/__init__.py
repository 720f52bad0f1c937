"""Float64 evaluation, optimisation, convex certificates and transforms (numpy, scipy, cvxpy)."""
