"""What ``fit`` trains and validates on: its data arguments checked and turned into batch
sources (``lamina/data_adapters``), apart from the epoch loop (``loops.fit_loop``)."""
from __future__ import annotations

from typing import NamedTuple

from ..data_adapters import (is_batch_source, make_adapter, split_validation,
                             unpack_x_y_sample_weight)
from . import argument_checks as check
from .debug_limits import cap_steps


class FitData(NamedTuple):
    x: object                  # the training inputs as passed (after a validation split)
    data: object               # their batch source
    val_data: object | None    # the validation batch source, or None
    steps_per_epoch: int | None
    validation_steps: int | None = None


def fit_data(x, y, sample_weight, batch_size, shuffle, class_weight, steps_per_epoch,
             validation_split, validation_data, validation_steps, validation_batch_size,
             pipeline=None) -> FitData:
    """``fit``'s data arguments (Keras 3's names and rules) as a :class:`FitData`."""
    batch_size = check.positive_int_or_none("fit", "batch_size", batch_size)
    validation_batch_size = check.positive_int_or_none("fit", "validation_batch_size",
                                                       validation_batch_size)
    steps_per_epoch = cap_steps(check.positive_int_or_none("fit", "steps_per_epoch",
                                                           steps_per_epoch))
    validation_steps = cap_steps(check.positive_int_or_none("fit", "validation_steps",
                                                            validation_steps))
    validation_split = check.validation_split(validation_split)
    class_weight = check.class_weight("fit", class_weight)
    shuffle = check.shuffle("fit", shuffle)
    if validation_split and validation_data is None:
        if is_batch_source(x):
            raise ValueError(f"fit: argument 'validation_split' is only supported when x "
                             f"holds arrays or tensors; received x as a "
                             f"{type(x).__name__}. Pass validation_data instead")
        (x, y, sample_weight), validation_data = split_validation(x, y, sample_weight,
                                                                 validation_split)
    data = make_adapter(x, y, sample_weight, batch_size=batch_size, steps=steps_per_epoch,
                        shuffle=shuffle, class_weight=class_weight, what="fit",
                        pipeline=pipeline)
    val_data = None
    if validation_data is not None:
        if isinstance(validation_data, tuple):
            vx, vy, vsw = unpack_x_y_sample_weight(validation_data)
            val_data = make_adapter(vx, vy, vsw, batch_size=validation_batch_size or
                                    batch_size, steps=validation_steps,
                                    what="fit (validation)", argument="validation_data")
        else:
            val_data = make_adapter(validation_data, steps=validation_steps,
                                    what="fit (validation)", argument="validation_data",
                                    pipeline=pipeline)
    return FitData(x, data, val_data, steps_per_epoch, validation_steps)
