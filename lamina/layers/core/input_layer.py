"""``Input`` / ``InputLayer``: the start of a functional model."""
from __future__ import annotations

from ...dtypes import floatx, standardize
from ...core.symbolic import SymbolicTensor
from ..layer import Layer
from ..node import LayerNode


class InputLayer(Layer):
    """Holds the symbolic tensor a functional model starts from (Keras's ``InputLayer``)."""

    def __init__(self, shape=None, batch_size=None, dtype=None, sparse=None, ragged=None,
                 batch_shape=None, input_tensor=None, optional=False, name=None, **kwargs):
        batch_shape = kwargs.pop("batch_input_shape", batch_shape)     # Keras 2 configs
        if "input_shape" in kwargs:
            shape = kwargs.pop("input_shape")
        super().__init__(name=name, dtype=kwargs.pop("dtype_policy", None), **kwargs)
        if sparse:
            raise ValueError(f"{self.name}: sparse inputs are not supported (argument "
                             f"'sparse' must be False or None; received {sparse!r})")
        if ragged:
            raise ValueError(f"{self.name}: ragged inputs are not supported, as on Keras's "
                             f"numpy backend (argument 'ragged' must be False or None; "
                             f"received {ragged!r})")
        if shape is not None and batch_shape is not None:
            raise ValueError(f"{self.name}: pass either 'shape' or 'batch_shape', not both; "
                             f"received shape={shape!r}, batch_shape={batch_shape!r}")
        if shape is None and batch_shape is None:
            if input_tensor is None:
                raise ValueError(f"{self.name}: argument 'shape' is required (e.g. "
                                 f"Input(shape=(784,))); received none")
            batch_shape = input_tensor.shape
        if batch_shape is None:
            if isinstance(shape, int):
                shape = (shape,)
            batch_shape = (batch_size, *tuple(shape))
        batch_shape = tuple(None if d is None else int(d) for d in batch_shape)
        if any(d is not None and d < 0 for d in batch_shape):
            raise ValueError(f"{self.name}: shape sizes must be non-negative or None; "
                             f"received batch_shape {batch_shape}")
        if isinstance(dtype, dict):
            dtype = dtype.get("config", {}).get("name")
        self.batch_shape = batch_shape
        self.input_dtype = standardize(dtype) if dtype is not None else floatx()
        self.optional = optional
        self.sparse = False
        tensor = SymbolicTensor(batch_shape, self.input_dtype, name=self.name)
        tensor.history = (self, 0, 0)
        self._inbound_nodes.append(LayerNode(self, (), {}, tensor, 0))
        self.built = True

    @property
    def output(self) -> SymbolicTensor:
        return self._inbound_nodes[0].outputs

    def call(self, inputs):
        return inputs

    def get_config(self) -> dict:
        return {"batch_shape": list(self.batch_shape), "dtype": self.input_dtype,
                "sparse": False, "ragged": False, "name": self.name,
                "optional": bool(self.optional)}


def Input(shape=None, batch_size=None, dtype=None, sparse=None, ragged=None, batch_shape=None,
          name=None, tensor=None, optional=False) -> SymbolicTensor:
    """A symbolic input of shape ``(batch_size, *shape)`` for the functional API."""
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse,
                       ragged=ragged, batch_shape=batch_shape, input_tensor=tensor,
                       optional=optional, name=name)
    return layer.output
