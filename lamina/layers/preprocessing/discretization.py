"""``Discretization``: values to bucket indices by ``bin_boundaries``, given or computed from
data by ``adapt`` (approximate quantiles, Keras 3's algorithm)."""
from __future__ import annotations

import bisect
import math

from ... import backend, ops
from ...dtypes import is_float
from ..layer import Layer
from .category_encoding import check_not_sparse, check_output_mode, encode, encoded_shape


class Discretization(Layer):
    """Buckets values (Keras 3's ``Discretization``): ``bin_boundaries=[0., 1., 2.]`` maps
    x < 0 to 0, 0 <= x < 1 to 1, 1 <= x < 2 to 2 and x >= 2 to 3.

    With ``num_bins`` instead, :meth:`adapt` sets ``num_bins - 1`` boundaries at approximate
    quantiles of the data (relative error about ``epsilon``). ``output_mode`` 'int' gives
    the indices (int64); 'one_hot', 'multi_hot' and 'count' encode them as
    ``CategoryEncoding`` does. No weights: the boundaries are part of the config.

    Args:
        bin_boundaries: Sorted list of boundaries; None: learn them with ``adapt``.
        num_bins: Number of bins learned by ``adapt`` (with ``bin_boundaries=None``).
        epsilon: Relative error of the approximate quantiles found by ``adapt``.
        output_mode: 'int' (bin indices), 'one_hot', 'multi_hot' or 'count'.
        sparse: Must be False: Lamina tensors are dense, and True raises ValueError.
        dtype: Dtype or dtype policy of the layer (e.g. 'float32'); None uses the global policy.
        name: Name of the layer; None derives a unique one from the class name.
    """

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int",
                 sparse=False, dtype=None, name=None):
        if dtype is None:
            dtype = "int64" if output_mode == "int" else backend.floatx()
        super().__init__(dtype=dtype, name=name)
        self.output_mode = check_output_mode(self.name, output_mode,
                                             ("int", "one_hot", "multi_hot", "count"))
        self.sparse = check_not_sparse(self.name, sparse)
        if num_bins is not None and (isinstance(num_bins, bool) or
                                     not isinstance(num_bins, int) or num_bins < 0):
            raise ValueError(f"{self.name}: argument 'num_bins' must be an int >= 0 or None; "
                             f"received {num_bins!r}")
        if not (isinstance(epsilon, (int, float)) and 0 < epsilon < 1):
            raise ValueError(f"{self.name}: argument 'epsilon' must be a number in (0, 1); "
                             f"received {epsilon!r}")
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError(f"{self.name}: Both `num_bins` and `bin_boundaries` should not be "
                             f"set (pass one of them); received num_bins={num_bins!r} and "
                             f"bin_boundaries={bin_boundaries!r}")
        if num_bins is None and bin_boundaries is None:
            raise ValueError(f"{self.name}: you need to set either `num_bins` or "
                             f"`bin_boundaries`; received neither")
        if bin_boundaries is not None:
            bin_boundaries = self._checked_boundaries(bin_boundaries)
        self.input_bin_boundaries = bin_boundaries
        self.bin_boundaries = bin_boundaries       # None until adapt() when num_bins is set
        self.num_bins = num_bins
        self.epsilon = epsilon
        self.summary = [[], []]                  # sorted values and their weights

    def _checked_boundaries(self, bin_boundaries) -> list:
        if hasattr(bin_boundaries, "tolist"):
            bin_boundaries = bin_boundaries.tolist()
        bin_boundaries = [float(b) for b in bin_boundaries]
        if bin_boundaries != sorted(bin_boundaries):
            raise ValueError(f"{self.name}: argument 'bin_boundaries' must be sorted in "
                             f"increasing order; received {bin_boundaries}")
        return bin_boundaries

    @classmethod
    def from_config(cls, config: dict):
        """An adapted layer's config holds both ``num_bins`` and its ``bin_boundaries``:
        the layer is made with ``num_bins`` and given the boundaries (as Keras does)."""
        config = dict(config)
        bounds = config.pop("bin_boundaries", None)
        if config.get("num_bins") is None:
            return cls(bin_boundaries=bounds, **config)
        layer = cls(**config)
        if bounds is not None:
            layer.bin_boundaries = layer._checked_boundaries(bounds)
        return layer

    @property
    def output_dtype(self) -> str:
        """The dtype of the layer's outputs."""
        return self.compute_dtype

    def _depth(self) -> int:
        if self.bin_boundaries is None:
            return self.num_bins
        return len(self.bin_boundaries) + 1

    def adapt(self, data, steps=None) -> None:
        """Set ``bin_boundaries`` to ``num_bins`` approximate quantile bins of ``data`` (an
        array or tensor, or an iterable of batches, at most ``steps`` of them)."""
        if self.input_bin_boundaries is not None:
            raise ValueError(f"{self.name}.adapt: the layer was given 'bin_boundaries'; "
                             f"create it with 'num_bins' instead to adapt it to data")
        if self.num_bins is None:
            raise ValueError(f"{self.name}.adapt: argument 'num_bins' must be set to adapt "
                             f"the layer; received num_bins=None")
        self.summary = [[], []]
        batches = [data] if hasattr(data, "shape") or (
            isinstance(data, (list, tuple)) and data and not hasattr(data[0], "shape")) \
            else data
        for i, batch in enumerate(batches):
            if steps is not None and i >= steps:
                break
            values = ops.convert_to_numpy(ops.cast(ops.convert_to_tensor(batch), "float32"))
            summary = _summarize(values.reshape(-1).tolist(), self.epsilon)
            self.summary = _merge(summary, self.summary, self.epsilon)
        if not self.summary[0]:
            raise ValueError(f"{self.name}.adapt: argument 'data' holds no values")
        bins = _compress(self.summary, 1.0 / self.num_bins)[0][:-1]
        # Keras keeps float32 boundaries; round through a float32 tensor to match it.
        self.bin_boundaries = ops.convert_to_numpy(
            ops.convert_to_tensor(bins, dtype="float32")).tolist() if bins else []

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError(f"{self.name}: You need to either pass the `bin_boundaries` "
                             f"argument at construction time or call `adapt(dataset)` before "
                             f"you can start using the layer (it was made with "
                             f"num_bins={self.num_bins} and not adapted)")
        x = ops.convert_to_tensor(inputs)
        x = x if is_float(x.dtype) else ops.cast(x, backend.floatx())
        if self.bin_boundaries:
            bounds = ops.convert_to_tensor(self.bin_boundaries, dtype=x.dtype)
            above = ops.greater_equal(ops.expand_dims(x, -1), bounds)
            indices = ops.sum(ops.cast(above, "int32"), axis=-1)
        else:
            indices = ops.zeros(x.shape, dtype="int32")
        if self.output_mode == "int":
            return ops.cast(indices, self.compute_dtype)
        return encode(self.name, indices, self.output_mode, self._depth(), self.compute_dtype)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return tuple(input_shape)
        return encoded_shape(input_shape, self.output_mode, self._depth())

    def get_config(self) -> dict:
        base = super().get_config()
        base.pop("trainable", None)      # Keras's Discretization takes (and writes) no trainable
        bounds = None if self.bin_boundaries is None else list(self.bin_boundaries)
        return {**base, "bin_boundaries": bounds,
                "num_bins": self.num_bins, "epsilon": self.epsilon,
                "output_mode": self.output_mode, "sparse": self.sparse}


# Keras 3's quantile summary (keras/src/layers/preprocessing/discretization.py) on lists:
# a summary is [values, weights], values sorted.
def _summarize(values: list, epsilon: float) -> list:
    values = sorted(values)
    increment = len(values) / (1.0 / epsilon)
    step = max(increment, 1)
    kept = values[int(increment)::int(step)]
    return [kept, [float(step)] * len(kept)]


def _merge(a: list, b: list, epsilon: float) -> list:
    pairs = sorted(zip(a[0] + b[0], a[1] + b[1]), key=lambda p: p[0])
    return _compress([[p[0] for p in pairs], [p[1] for p in pairs]], epsilon)


def _compress(summary: list, epsilon: float) -> list:
    if len(summary[0]) * epsilon < 1:
        return summary
    percents = [epsilon + i * epsilon for i in range(math.ceil(1.0 / epsilon))]
    cumulative, total = [], 0.0
    for w in summary[1]:
        total += w
        cumulative.append(total)
    fractions = [c / total for c in cumulative]
    bins = [_interp(p, fractions, summary[0]) for p in percents]
    cum = [_interp(p, fractions, cumulative) for p in percents]
    return [bins, [c - prev for c, prev in zip(cum, [0.0] + cum[:-1])]]


def _interp(x: float, xp: list, fp: list) -> float:
    """numpy.interp for one point (``xp`` increasing)."""
    if x <= xp[0]:
        return fp[0]
    if x >= xp[-1]:
        return fp[-1]
    j = bisect.bisect_right(xp, x) - 1
    slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])
    return slope * (x - xp[j]) + fp[j]
