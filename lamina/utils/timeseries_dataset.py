"""Keras 3's ``timeseries_dataset_from_array``: sliding windows over an array."""
from __future__ import annotations

import numpy as np

from .directory_dataset import check_format
from .sample_dataset import SampleDataset

__all__ = ["timeseries_dataset_from_array"]

WHAT = "timeseries_dataset_from_array"


def _check(data, sequence_stride, sampling_rate, start_index, end_index):
    n = len(data)
    if start_index:
        if start_index < 0:
            raise ValueError(f"{WHAT}: argument 'start_index' must be 0 or greater; "
                             f"received {start_index}")
        if start_index >= n:
            raise ValueError(f"{WHAT}: argument 'start_index' must be lower than the "
                             f"length of the data ({n}); received {start_index}")
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError(f"{WHAT}: argument 'end_index' must be higher than "
                             f"start_index={start_index}; received {end_index}")
        if end_index >= n:
            raise ValueError(f"{WHAT}: argument 'end_index' must be lower than the length "
                             f"of the data ({n}); received {end_index}")
        if end_index <= 0:
            raise ValueError(f"{WHAT}: argument 'end_index' must be higher than 0; "
                             f"received {end_index}")
    for name, value in (("sampling_rate", sampling_rate), ("sequence_stride",
                                                            sequence_stride)):
        if value <= 0:
            raise ValueError(f"{WHAT}: argument '{name}' must be higher than 0; "
                             f"received {value}")
        if value >= n:
            raise ValueError(f"{WHAT}: argument '{name}' must be lower than the length of "
                             f"the data ({n}); received {value}")


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1,
                                  sampling_rate=1, batch_size=128, shuffle=False, seed=None,
                                  start_index=None, end_index=None, format="tf"):
    """Make a dataset of sliding windows over a time series.

    Window ``i`` is ``data[i : i + sequence_length * sampling_rate : sampling_rate]`` for
    ``i = start_index, start_index + sequence_stride, ...`` (within ``end_index``), each
    paired with ``targets[i]`` (the target of the window's first step) when targets are
    given.

    Args:
        data: An array of time steps (the first axis is time).
        targets: Targets indexed like ``data``, or ``None`` for windows only.
        sequence_length: The number of time steps in a window.
        sequence_stride: The steps between the starts of two windows. Defaults to 1.
        sampling_rate: The steps between two samples of a window. Defaults to 1.
        batch_size: Windows per batch (default 128), or ``None`` for single windows.
        shuffle: If ``True``, permute the windows with ``RandomState(seed)`` as Keras
            does, and again each epoch. Defaults to ``False``.
        seed: Random seed for the shuffle.
        start_index: The first step used (default 0).
        end_index: The step after the last one used (default ``len(data)``).
        format: ``"tf"`` (default) or ``"grain"``; both return a ``SampleDataset``
            (``"grain"`` with a warning).

    Returns:
        A ``SampleDataset`` of ``(windows, targets)`` batches, or of windows with no
        targets; windows have shape ``(batch, sequence_length, ...)``.

    Example:

    >>> data = np.arange(10)
    >>> windows = timeseries_dataset_from_array(data, None, sequence_length=3,
    ...                                         batch_size=None)
    >>> windows[0]
    array([0, 1, 2])
    """
    _check(data, sequence_stride, sampling_rate, start_index, end_index)
    check_format(WHAT, format)
    start = start_index or 0
    end = len(data) if end_index is None else end_index
    count = end - start - (sequence_length - 1) * sampling_rate
    if targets is not None:
        count = min(count, len(targets))
    starts = np.arange(0, max(count, 0), sequence_stride)
    if shuffle:
        seed = np.random.randint(1e6) if seed is None else seed
        np.random.RandomState(seed).shuffle(starts)
    window = np.arange(sequence_length) * sampling_rate
    values = np.asarray(data[start:end])
    picked_targets = None
    if targets is not None:
        picked_targets = np.asarray(targets[start:])[starts]
    return SampleDataset(starts, picked_targets, lambda first: values[first + window],
                         batch_size=batch_size, shuffle=shuffle, seed=seed)
