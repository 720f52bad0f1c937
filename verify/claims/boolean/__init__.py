"""Boolean Fourier analysis (Edelman thesis Ch. 5 + App. B, Ch. 6 + App. C).

* :mod:`.spectra`: exact claims on the spectra of Majority and Half (Lemmas B.1, C.12), the Fourier gap of
  Definition 5.4 and Lemma B.2, the first-step gradient of Lemma B.3 and Lemma C.2;
* :mod:`.gaps`: statistical claims on Fourier gaps: one-step recovery of S from a batch gradient (Prop. B.7)
  and the gaps of random LTFs and sinusoidal neurons (Figs. B.7, B.8 left);
* :mod:`.sq`: Lemma C.1 (the statistical-query step of Prop. 6.3), computed exactly at small n.

Predicted values come from :mod:`theory.boolean`; the errata are explained in ``docs/boolean.md``. The
submodules register their claims when imported, in this order (the order of ``tvk list``).
"""

# isort: off
from . import spectra  # noqa: F401
from . import gaps  # noqa: F401
from . import sq  # noqa: F401
# isort: on
