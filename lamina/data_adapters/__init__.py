"""Turning what users pass to fit/evaluate/predict into epochs of host batches.

This is an I/O edge: batches stay host numpy arrays until the step converts them to the
active backend, one batch at a time.
"""
from __future__ import annotations

import inspect

from .. import tree
from ..core.ignored_arguments import warn_ignored
from .py_dataset import PyDataset
from .array_adapter import ArrayDataAdapter, split_validation, to_host
from .generator_adapter import GeneratorDataAdapter, PyDatasetAdapter, unpack_x_y_sample_weight
from .output_buffer import OutputBuffer


def _is_array_like(x) -> bool:
    leaves = tree.flatten(x)
    return bool(leaves) and all(hasattr(a, "shape") or hasattr(a, "__array__") or
                                isinstance(a, (list, float, int)) for a in leaves)


def is_py_dataset(x) -> bool:
    return isinstance(x, PyDataset) or (hasattr(x, "__getitem__") and hasattr(x, "__len__")
                                        and hasattr(x, "on_epoch_end"))


def _is_iterable_of_batches(x) -> bool:
    return inspect.isgenerator(x) or (hasattr(x, "__iter__") and hasattr(x, "__next__")) or \
        (hasattr(x, "__iter__") and not hasattr(x, "shape") and
         not isinstance(x, (list, tuple, dict, str, bytes)))


def is_batch_source(x) -> bool:
    """Whether ``x`` yields its own batches (a PyDataset, a generator, an iterable of
    batches) rather than holding arrays to cut into batches."""
    return is_py_dataset(x) or _is_iterable_of_batches(x)


def make_adapter(x, y=None, sample_weight=None, batch_size=None, steps=None, shuffle=False,
                 class_weight=None, what: str = "fit", argument: str = "x", pipeline=None):
    """The adapter for ``x``: arrays, a PyDataset, or an iterable / generator of batches.
    ``what`` and ``argument`` name the caller and its argument in error messages;
    ``pipeline`` (``workers``, ``use_multiprocessing``, ``max_queue_size`` given to the
    call) overrides a PyDataset's own settings."""
    if is_py_dataset(x):
        _no_extras(what, "a PyDataset", y, sample_weight, batch_size)
        return PyDatasetAdapter(x, steps=steps, shuffle=bool(shuffle) and
                                getattr(x, "shuffle", False), what=what,
                                class_weight=class_weight, pipeline=pipeline)
    if _is_iterable_of_batches(x):
        _no_extras(what, "a generator or iterable of batches", y, sample_weight, batch_size)
        return GeneratorDataAdapter(x, what=what, class_weight=class_weight)
    if x is None:
        raise ValueError(f"{what}: argument '{argument}' is required; received None")
    return ArrayDataAdapter(x, y, sample_weight, batch_size=batch_size, shuffle=shuffle,
                            steps=steps, class_weight=class_weight, what=what,
                            argument=argument)


def _no_extras(what, kind, y, sample_weight, batch_size):
    if batch_size is not None:        # Keras ignores it for a dataset: say so, once
        warn_ignored(what, "batch_size", batch_size, f"x is {kind}, whose batches have "
                     f"their own size")
    for name, value in (("y", y), ("sample_weight", sample_weight)):
        if value is not None:
            raise ValueError(f"{what}: argument '{name}' must not be given when x is {kind} "
                             f"(its batches carry their own targets and size); received "
                             f"{name}={type(value).__name__}")


__all__ = ["ArrayDataAdapter", "GeneratorDataAdapter", "OutputBuffer", "PyDatasetAdapter",
           "is_batch_source", "is_py_dataset", "make_adapter",
           "split_validation", "to_host", "unpack_x_y_sample_weight"]
