"""What SimpleRNN, LSTM and GRU share: an RNN over a built-in cell made from the layer's
own arguments, which read through the layer (``lstm.units``) and fill its config."""
from __future__ import annotations

import inspect

from ... import regularizers
from ...core.ignored_arguments import warn_ignored
from ..input_spec import InputSpec
from ..layer import Layer
from .base_cell import check_rate, check_units
from .rnn import RNN

_CELL_ARGUMENTS: dict = {}


def check_use_cudnn(layer_name: str, use_cudnn, class_name: str = "RNN"):
    if use_cudnn not in ("auto", True, False):
        raise ValueError(f"{layer_name}: argument 'use_cudnn' must be 'auto', True or False; "
                         f"received {use_cudnn!r}")
    if use_cudnn is True:
        warn_ignored(class_name, "use_cudnn", True,
                     "Lamina has no cuDNN kernels (CuPy ships none); on the CPU the "
                     "sequence runs on oneDNN where it applies (as with 'auto'), the step "
                     "loop elsewhere")
    return use_cudnn


class CellRNN(RNN):
    """Subclasses set ``cell_class`` and ``cell_name`` and pass the cell's arguments and
    the RNN's as two dicts (the layer's name is set first, so argument errors name it)."""

    cell_class: type = None
    cell_name: str = ""

    def __init__(self, cell_arguments: dict, rnn_arguments: dict, **kwargs):
        rnn_arguments = {"zero_output_for_mask": kwargs.pop("zero_output_for_mask", False),
                         **rnn_arguments}
        kwargs.pop("implementation", None)        # Keras's kernel choice: one path here
        time_major = kwargs.pop("time_major", False)      # in Keras 2 configs
        Layer.__init__(self, **kwargs)
        if time_major:
            raise ValueError(f"{self.name}: argument 'time_major' is not supported (inputs "
                             f"are (batch, timesteps, features)); received True")
        check_units(self.name, cell_arguments["units"])
        check_rate(self.name, "dropout", cell_arguments.get("dropout", 0.0))
        check_rate(self.name, "recurrent_dropout", cell_arguments.get("recurrent_dropout", 0.0))
        cell = self.cell_class(**cell_arguments, name=self.cell_name,
                               dtype=kwargs.get("dtype"), trainable=kwargs.get("trainable", True))
        self._init_rnn(cell, **rnn_arguments)
        self.input_spec = InputSpec.described("(batch, timesteps, features)", ndim=3)

    def __getattr__(self, name: str):
        # Only reached when normal lookup fails: the cell's constructor arguments.
        cell = self.__dict__.get("cell")
        if cell is not None and name in _cell_arguments(type(cell)):
            return getattr(cell, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def call(self, sequences, initial_state=None, mask=None, training=None):
        return super().call(sequences, initial_state=initial_state, mask=mask,
                            training=training)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["cell"]
        cell_config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            cell_config.pop(key, None)
        return {**config, **cell_config,
                "activity_regularizer": regularizers.serialize(self.activity_regularizer)}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        return cls(**config)


def _cell_arguments(cell_class) -> frozenset:
    names = _CELL_ARGUMENTS.get(cell_class)
    if names is None:
        names = frozenset(inspect.signature(cell_class.__init__).parameters) - \
            {"self", "kwargs"}
        _CELL_ARGUMENTS[cell_class] = names
    return names
