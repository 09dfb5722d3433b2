"""Type aliases of the public API's annotations (they play no part at run time).

``Scores`` is what the functions take as scores, probabilities or logits: a vector (binary
problems) or an n x K matrix, as a NumPy array, nested lists, a pandas Series/DataFrame, any
DataFrame or Series narwhals reads (polars, pyarrow, ...: read as pandas, column names kept) or
a torch tensor or other DLPack array on any device (read as NumPy).
``Labels`` is what they take as labels: 0/1 numbers or booleans (binary), R's 1-based
integer class codes, a pandas ``Categorical``/``Series`` (R's factor) or a
:class:`calstats.Factor`. ``Weights`` is an optional vector of case weights.
"""

from typing import TYPE_CHECKING, TypeAlias

from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from ._factor import Factor

__all__ = ["ArrayLike", "Scores", "Labels", "Weights"]

Scores: TypeAlias = ArrayLike
Labels: TypeAlias = "ArrayLike | Factor"
Weights: TypeAlias = "ArrayLike | None"
