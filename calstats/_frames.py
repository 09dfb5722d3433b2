"""Any DataFrame, any array: what the readers at the boundary are given, as NumPy and pandas.

The readers of :mod:`calstats._validate`, :mod:`calstats._inputs` and :mod:`calstats._surv`
call :func:`native` on an argument before they look at it, so that every function that reads
its input there takes:

* **any DataFrame or Series that narwhals understands** (polars, pyarrow tables and chunked
  arrays, modin, cuDF, ...): a pandas DataFrame or Series with the same column names (which
  name the classes of a probability matrix and the models of a frame of predictions) and, for
  the pandas-like libraries that have one, the same index. A numeric frame without missing
  values becomes one C-ordered float matrix made by its library in one copy (the copy that
  joining separate columns into a matrix needs anyway); a numeric Series without missing
  values is read where it lies (no copy). Other columns keep their meaning: missing values
  become NaN (or ``None`` in a boolean column, R's logical ``NA``), a polars ``Enum`` or
  ``Categorical`` becomes a pandas categorical with its categories (R's factor levels).
* **torch tensors** on any device and anything else with ``__dlpack__`` (JAX, CuPy, pyarrow
  arrays, ...): a NumPy array, read through DLPack (``np.from_dlpack``) without a copy where
  the tensor lies in CPU memory in a layout NumPy can describe. A tensor that requires grad is
  detached first, one on a GPU is copied to the CPU (``.detach().cpu()``), a ``bfloat16``
  tensor is widened to ``float32`` (exactly). The array is marked read-only: it is the
  caller's memory.

pandas objects, NumPy arrays, lists, scalars and anything else come back unchanged (two
type tests). narwhals and torch are imported only when such an object arrives.

:func:`column_names` and :func:`ndim` answer a reader's questions about a DataFrame or a
tensor without converting it; :func:`like_input` gives a calibrator's predictions back as a
tensor when it was given one.
"""

import sys
import warnings
from typing import Any

import numpy as np
import pandas as pd

from ._errors import fail
from ._factor import Factor
from ._messages import DEVICE

__all__ = ["native", "is_tensor", "ndim", "column_names", "like_input"]

#: Types returned as they are, without looking further (what the readers read themselves).
_PLAIN = (np.ndarray, pd.Series, pd.DataFrame, pd.Index, pd.Categorical, pd.api.extensions.ExtensionArray,
          Factor, list, tuple, dict, str, bytes, int, float, complex, bool, np.generic, range)

#: Libraries whose frames narwhals reads (top-level module names); no other object is shown to
#: narwhals, so that importing it is paid only when such a frame arrives.
_FRAME_MODULES = frozenset({"polars", "pyarrow", "modin", "cudf", "pyspark", "duckdb", "ibis", "sqlframe"})


# --------------------------------------------------------------------------------------
# tensors


def is_tensor(x: Any) -> bool:
    """True for a torch tensor (never imports torch)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _readonly(a: np.ndarray) -> np.ndarray:
    """``a``, marked read-only when it is a view of someone else's memory."""
    if a.base is not None and a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


def _from_torch(t: Any, arg: str | None) -> Any:
    """A torch tensor as a NumPy array: detached, on the CPU, read through DLPack."""
    torch = sys.modules["torch"]
    t = t.detach()
    if t.layout != torch.strided:
        t = t.to_dense()
    if t.device.type != "cpu":
        t = t.cpu()
    if t.is_conj():
        t = t.resolve_conj()
    if t.is_neg():
        t = t.resolve_neg()
    if t.dtype == torch.bfloat16:
        t = t.to(torch.float32)  # exact; NumPy has no bfloat16
    try:
        return _readonly(np.from_dlpack(t))
    except (BufferError, TypeError, RuntimeError, ValueError):
        # a dtype DLPack or NumPy cannot describe (float8, ...): its float64 values
        return t.to(torch.float64).numpy()


def _from_dlpack(x: Any, arg: str | None) -> Any:
    """An object with ``__dlpack__`` as a NumPy array: a view of it when it lies in CPU
    memory, else a copy to the CPU when its library makes one through DLPack; an object
    NumPy can read otherwise (``__array__``) is left to it."""
    with warnings.catch_warnings():
        # an older producer's unversioned capsule: nothing for the caller to change
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            return _readonly(np.from_dlpack(x))
        except Exception:  # each library raises its own error for a device or dtype DLPack cannot give
            pass
        try:
            return np.from_dlpack(x, device="cpu", copy=True)
        except Exception:
            pass
    if hasattr(x, "__array__"):
        return x
    device = getattr(x, "device", None)
    if device is None and hasattr(x, "__dlpack_device__"):
        device = x.__dlpack_device__()
    fail(DEVICE.format(arg=arg or "x", device=device))


# --------------------------------------------------------------------------------------
# DataFrames


def _frame_module(x: Any) -> bool:
    return type(x).__module__.partition(".")[0] in _FRAME_MODULES


def _narwhals(x: Any) -> Any:
    """The narwhals DataFrame or Series of an eager frame of another library, or None."""
    if not _frame_module(x):
        return None
    import narwhals.stable.v1 as nw

    obj = nw.from_native(x, pass_through=True, eager_only=True, allow_series=True)
    return None if obj is x else obj


def _categories(s: Any) -> list[Any]:
    """The categories of a categorical narwhals Series: an Enum's declared ones, in order,
    else the values present in order of appearance (a polars ``Categorical`` has no other
    order)."""
    declared: Any = getattr(getattr(s.to_native(), "dtype", None), "categories", None)
    if hasattr(declared, "to_list"):  # a polars Enum's categories (a Categorical's are no list)
        return list(declared.to_list())
    return [v for v in pd.unique(np.asarray(s.to_list(), dtype=object)) if v is not None]


def _series(s: Any) -> pd.Series:
    """A narwhals Series as a pandas Series of the same name and meaning."""
    import narwhals.stable.v1 as nw

    name = s.name or None  # polars and pyarrow call an unnamed series ""
    if s.implementation.is_pyarrow() and not (s.dtype.is_numeric() and not s.null_count()):
        return s.to_native().to_pandas().rename(name)  # a dictionary keeps its order
    if s.dtype == nw.Categorical or s.dtype == nw.Enum:
        return pd.Series(pd.Categorical(s.to_list(), categories=_categories(s)), name=name)
    # numbers without missing values are read where they lie; nulls become NaN (numbers) or
    # None (booleans, strings: R's NA)
    return pd.Series(s.to_numpy(), name=name, copy=False)


def _matrix(obj: Any) -> np.ndarray:
    """A numeric frame without missing values as one C-ordered matrix, in one copy."""
    native_frame = obj.to_native()
    if obj.implementation.is_polars():
        return native_frame.to_numpy(order="c")
    return np.ascontiguousarray(obj.to_numpy())


def _frame(obj: Any) -> pd.DataFrame:
    """A narwhals DataFrame as a pandas DataFrame with its column names (and index)."""
    if obj.implementation.is_pandas_like():  # modin, cuDF: their index too
        return obj.to_pandas()
    names = list(obj.columns)
    schema = obj.schema
    if names and all(schema[c].is_numeric() for c in names) and not any(obj[c].null_count() for c in names):
        return pd.DataFrame(_matrix(obj), columns=names, copy=False)
    return pd.DataFrame({c: _series(obj[c]) for c in names}, columns=names)


# --------------------------------------------------------------------------------------
# the readers' entry


def native(x: Any, arg: str | None = None) -> Any:
    """``x`` as the readers read it: a DataFrame or Series of another library as pandas (its
    column names and index kept), a tensor or DLPack array as NumPy (see the module notes);
    anything else unchanged. ``arg`` names the argument in a message."""
    if x is None or isinstance(x, _PLAIN):
        return x
    if is_tensor(x):
        return _from_torch(x, arg)
    obj = _narwhals(x)
    if obj is not None:
        import narwhals.stable.v1 as nw

        return _series(obj) if isinstance(obj, nw.Series) else _frame(obj)
    if _frame_module(x):  # a pyarrow Array, ...: NumPy reads it (without a copy where it can)
        return x
    if hasattr(x, "__dlpack__"):
        return _from_dlpack(x, arg)
    return x


def ndim(x: Any) -> int | None:
    """The number of dimensions of a DataFrame (2), a Series (1) or a tensor or DLPack array,
    read without converting it; None for anything else (the caller asks NumPy)."""
    if isinstance(x, pd.DataFrame):
        return 2
    if isinstance(x, (np.ndarray, pd.Series)):
        return x.ndim
    if x is None or isinstance(x, _PLAIN):
        return None
    if is_tensor(x) or (hasattr(x, "__dlpack__") and isinstance(getattr(x, "ndim", None), int)):
        return int(x.ndim)
    obj = _narwhals(x)
    if obj is None:
        return None
    import narwhals.stable.v1 as nw

    return 1 if isinstance(obj, nw.Series) else 2


def column_names(x: Any) -> pd.Index | None:
    """The column names of a DataFrame (pandas, or any that narwhals reads) as a pandas
    Index, read without converting it; None for anything else."""
    if isinstance(x, pd.DataFrame):
        return x.columns
    if x is None or isinstance(x, _PLAIN):
        return None
    obj = _narwhals(x)
    if obj is None:
        return None
    import narwhals.stable.v1 as nw

    return None if isinstance(obj, nw.Series) else pd.Index(list(obj.columns))


def like_input(out: Any, like: Any) -> Any:
    """Predictions ``out`` (an array, or a DataFrame of one column per class) given back as
    ``like`` was given: a torch tensor on ``like``'s device with its dtype (a floating one;
    float64 when ``like`` holds integers), else ``out`` unchanged."""
    if not is_tensor(like):
        return out
    torch = sys.modules["torch"]
    values = out.to_numpy(dtype=np.float64) if isinstance(out, pd.DataFrame) else np.asarray(out)
    dtype = like.dtype if like.dtype.is_floating_point else torch.float64
    return torch.from_numpy(np.ascontiguousarray(values)).to(device=like.device, dtype=dtype)
