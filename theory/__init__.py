"""Exact symbolic results (sympy, exact rationals). Imports only the standard library and sympy."""
