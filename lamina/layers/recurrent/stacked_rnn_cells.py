"""``StackedRNNCells``: several cells run as one, each feeding the next at every step."""
from __future__ import annotations

import inspect

from ... import ops, tree
from .. import call_context
from ..layer import Layer
from .sublayer_config import deserialize_sublayer, serialize_sublayer


def cell_output_size(cell) -> int:
    """A cell's output width: ``output_size``, else its first state's size."""
    size = getattr(cell, "output_size", None)
    if size is not None:
        return size
    state_size = cell.state_size
    return state_size[0] if isinstance(state_size, (list, tuple)) else state_size


def check_cell(layer_name: str, cell, argument: str = "cell") -> None:
    if not callable(getattr(cell, "call", None)) or getattr(cell, "state_size", None) is None:
        raise ValueError(f"{layer_name}: argument '{argument}' must hold RNN cells, with a "
                         f"call(inputs, states) method and a 'state_size'; received {cell!r}")


class StackedRNNCells(Layer):
    """Cells stacked in depth (Keras's ``StackedRNNCells``): ``RNN([cell1, cell2])`` makes
    one. The states are one entry per cell, in order; the output is the last cell's.

    Args:
        cells: List of RNN cells, run in depth order.
    """

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(cells, (list, tuple)) or not cells:
            raise ValueError(f"{self.name}: argument 'cells' must be a non-empty list of RNN "
                             f"cells; received {cells!r}")
        for cell in cells:
            check_cell(self.name, cell, "cells")
        self.cells = list(cells)

    @property
    def state_size(self) -> list:
        return [cell.state_size for cell in self.cells]

    @property
    def output_size(self) -> int:
        return cell_output_size(self.cells[-1])

    def get_initial_state(self, batch_size=None) -> list:
        states = []
        for cell in self.cells:
            make = getattr(cell, "get_initial_state", None)
            if make is not None:
                states.append(make(batch_size=batch_size))
            else:
                sizes = cell.state_size
                zeros = [ops.zeros((batch_size, d), dtype=self.compute_dtype)
                         for d in (sizes if isinstance(sizes, (list, tuple)) else [sizes])]
                states.append(zeros if isinstance(sizes, (list, tuple)) else zeros[0])
        return states

    def build(self, input_shape):
        if isinstance(input_shape, list) and input_shape and \
                isinstance(input_shape[0], (list, tuple)):
            input_shape = input_shape[0]             # cell([inputs, *states])
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                with call_context.name_scope(cell.name):
                    cell.build(input_shape)
                cell.built = True
            input_shape = (input_shape[0], cell_output_size(cell))
        self.built = True

    def call(self, inputs, states=None, training=None):
        if states is None:                            # cell([inputs, *states])
            inputs, flat = inputs[0], tree.flatten(list(inputs[1:]))
            states = tree.pack_sequence_as(self.state_size, flat)
        new_states = []
        for cell, cell_states in zip(self.cells, states):
            nested = tree.is_nested(cell_states)
            cell_states = list(cell_states) if nested else [cell_states]
            call = cell.call if isinstance(cell, Layer) else cell
            kwargs = {"training": training} if "training" in \
                inspect.signature(call).parameters else {}
            inputs, cell_states = call(inputs, cell_states, **kwargs)
            if not tree.is_nested(cell_states):
                cell_states = [cell_states]
            new_states.append(list(cell_states) if nested else cell_states[0])
        return inputs, new_states

    def get_config(self) -> dict:
        return {**super().get_config(),
                "cells": [serialize_sublayer(cell) for cell in self.cells]}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        config = dict(config)
        cells = [deserialize_sublayer(c, custom_objects) for c in config.pop("cells")]
        return cls(cells, **config)
