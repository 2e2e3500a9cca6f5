"""Ordering and searching kernels, written against ``self.xp`` (numpy or cupy).

ordering     argsort(x, axis, descending) (stable) · searchsorted(sorted_1d, values, side)
data-shaped  unique(x, axis) -> (values, first index, inverse, counts) · nonzero(x) ->
             a tuple of index arrays · isin(x, test, invert): results whose size depends
             on the values (eager only; the ops say so in graph mode)
bits         bitcast(x, dtype): the same bytes read as another dtype (numpy's ``view``)
"""
from __future__ import annotations


class OrderingKernels:
    """Mixin of :class:`~lamina.backend.base.Backend`: see the module docstring."""

    # keyword arguments that make ``xp.argsort`` stable (cupy's sort always is, and it
    # refuses ``kind``)
    STABLE_SORT: dict = {"kind": "stable"}

    def argsort(self, x, axis: int, descending: bool = False):
        xp = self.xp
        if descending:
            # stable descending order: sort the reversed axis ascending by negated rank
            # (ties keep their first-come order, as a stable sort of -x would)
            flipped = xp.flip(x, axis)
            order = xp.argsort(flipped, axis=axis, **self.STABLE_SORT)
            order = xp.flip(order, axis)
            return (x.shape[axis] - 1 - order).astype("int32")
        return xp.argsort(x, axis=axis, **self.STABLE_SORT).astype("int32")

    def searchsorted(self, sorted_sequence, values, side: str):
        return self.xp.searchsorted(sorted_sequence, values, side=side).astype("int32")

    def unique(self, x, axis):
        xp = self.xp
        values, index, inverse, counts = xp.unique(x, return_index=True, return_inverse=True,
                                                   return_counts=True, axis=axis)
        return values, index.astype("int32"), inverse.reshape(-1).astype("int32"), \
            counts.astype("int32")

    def nonzero(self, x):
        return tuple(i.astype("int32") for i in self.xp.nonzero(x))

    def isin(self, x, test, invert: bool):
        return self.xp.isin(x, test, invert=invert)

    def bitcast(self, x, dtype: str):
        return self.xp.ascontiguousarray(x).view(dtype)
