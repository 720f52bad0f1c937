"""Finite groups with real representations (Edelman thesis, Ch. 7, Sec. 7.6: Theorem 7.9; App. D.8-D.9).

The quadratic network on the full group-composition dataset of a finite group G all of whose irreps are real has
maximum normalized L_{2,3} margin gamma*(G) = 2 / (3 sqrt(3|G|) sum_{R != 1} d_R^2.5) when sum_{R != 1} d_R^1.5
chi_R(C) < 0 for every nontrivial class C; otherwise (A_5, S_6) gamma* is the value of the character-level game of
App. D.9.2. Submodules: :mod:`.characters` (character tables, the condition, the class weights of Lemma D.14),
:mod:`.margin` (gamma*, the construction, the single-neuron maximum, App. D.9.2, Z_p), :mod:`.plancherel`
(Lemma D.12) and :mod:`.trained` (training). Derivations, corrected constants and errata: ``docs/groups.md``.
"""

from . import characters, margin, plancherel, trained

__all__ = ["characters", "margin", "plancherel", "trained"]
