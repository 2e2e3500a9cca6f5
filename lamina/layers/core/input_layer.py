"""``Input`` / ``InputLayer``: the start of a functional model."""
from __future__ import annotations

import warnings

from ...dtypes import floatx, standardize
from ...core.symbolic import SymbolicTensor
from ..layer import Layer
from ..node import LayerNode


class InputLayer(Layer):
    """Holds the symbolic tensor a functional model starts from (Keras's ``InputLayer``).

    ``shape`` (without the batch axis) with ``batch_size``, or ``batch_shape``, or
    ``input_tensor`` (an existing symbolic tensor, which becomes the layer's output; the
    other arguments, when given, must agree with it). Keras 2's ``input_shape`` is
    accepted with Keras's deprecation warning.

    Args:
        shape: Shape of one sample, without the batch axis (None for a variable size).
        batch_size: Fixed batch size, or None for any.
        dtype: Dtype of the input (default ``keras.config.floatx()``).
        sparse: Must be False or None: Lamina has no sparse tensors (True raises ValueError).
        ragged: Must be False or None: Lamina has no ragged tensors (True raises ValueError).
        batch_shape: Full shape including the batch axis, instead of ``shape`` and
            ``batch_size``.
        input_tensor: An existing symbolic tensor to use as the layer's output; the other
            arguments must agree with it.
        optional: Whether the input may be None when the model is called.
        name: Name of the layer; None derives a unique one from the class name.
    """

    def __init__(self, shape=None, batch_size=None, dtype=None, sparse=None, ragged=None,
                 batch_shape=None, input_tensor=None, optional=False, name=None, **kwargs):
        batch_shape = kwargs.pop("batch_input_shape", batch_shape)     # Keras 2 configs
        if "input_shape" in kwargs:
            warnings.warn("Argument `input_shape` is deprecated. Use `shape` instead.",
                          UserWarning, stacklevel=2)
            shape = kwargs.pop("input_shape")
        super().__init__(name=name, dtype=kwargs.pop("dtype_policy", None), **kwargs)
        if isinstance(dtype, dict):
            dtype = dtype.get("config", {}).get("name")
        if isinstance(shape, int):
            shape = (shape,)
        if input_tensor is not None:
            batch_shape, dtype = self._check_input_tensor(input_tensor, shape, batch_size,
                                                          batch_shape, dtype, sparse)
        else:
            if shape is not None and batch_shape is not None:
                raise ValueError(f"{self.name}: you cannot pass both `shape` and `batch_shape` "
                                 f"at the same time; received shape={shape!r}, "
                                 f"batch_shape={batch_shape!r}")
            if batch_size is not None and batch_shape is not None:
                raise ValueError(f"{self.name}: you cannot pass both `batch_size` and "
                                 f"`batch_shape` at the same time (batch_shape holds the batch "
                                 f"size); received batch_size={batch_size!r}, "
                                 f"batch_shape={batch_shape!r}")
            if shape is None and batch_shape is None:
                raise ValueError(f"{self.name}: you must pass a `shape` argument. (e.g. "
                                 f"Input(shape=(784,))); received none")
            if batch_shape is None:
                batch_shape = (batch_size, *tuple(shape))
        if sparse:
            raise ValueError(f"{self.name}: `sparse=True` is not supported: Lamina has no "
                             f"sparse tensors (argument 'sparse' must be False or None; "
                             f"received {sparse!r})")
        if ragged:
            raise ValueError(f"{self.name}: `ragged=True` is not supported, as on Keras's "
                             f"numpy backend (argument 'ragged' must be False or None; "
                             f"received {ragged!r})")
        batch_shape = tuple(None if d is None else int(d) for d in batch_shape)
        if any(d is not None and d < 0 for d in batch_shape):
            raise ValueError(f"{self.name}: shape sizes must be non-negative or None; "
                             f"received batch_shape {batch_shape}")
        self.batch_shape = batch_shape
        self.input_dtype = standardize(dtype) if dtype is not None else floatx()
        self.optional = optional
        self.sparse = False
        self.ragged = False
        tensor = input_tensor if input_tensor is not None else \
            SymbolicTensor(batch_shape, self.input_dtype, name=self.name)
        tensor.history = (self, 0, 0)
        self._inbound_nodes.append(LayerNode(self, (), {}, tensor, 0))
        self.built = True

    def _check_input_tensor(self, tensor, shape, batch_size, batch_shape, dtype, sparse):
        """Keras's rules for ``input_tensor``: a symbolic tensor, which the other
        arguments, when given, must describe. Returns its batch shape and dtype."""
        if not isinstance(tensor, SymbolicTensor):
            raise ValueError(f"{self.name}: Argument `input_tensor` must be a KerasTensor (a "
                             f"symbolic tensor such as lamina.Input gives); received "
                             f"{type(tensor).__name__}")

        def refuse(arg, value):
            raise ValueError(f"{self.name}: when providing the `input_tensor` argument, you "
                             f"cannot provide an incompatible `{arg}` argument; received "
                             f"{arg}={value!r} for a tensor of shape {tensor.shape}, dtype "
                             f"{tensor.dtype}")
        if batch_size is not None and (not tensor.shape or tensor.shape[0] != batch_size):
            refuse("batch_size", batch_size)
        if shape is not None and tuple(shape) != tuple(tensor.shape[1:]):
            refuse("shape", shape)
        if batch_shape is not None and tuple(batch_shape) != tuple(tensor.shape):
            refuse("batch_shape", batch_shape)
        if dtype is not None and standardize(dtype) != tensor.dtype:
            refuse("dtype", dtype)
        if sparse:
            refuse("sparse", sparse)
        return tensor.shape, tensor.dtype

    @property
    def output(self) -> SymbolicTensor:
        return self._inbound_nodes[0].outputs

    def call(self, inputs=None):
        """An InputLayer computes nothing: it passes ``inputs`` on (None without them,
        as Keras's ``call()``)."""
        return inputs

    def get_config(self) -> dict:
        return {"batch_shape": list(self.batch_shape), "dtype": self.input_dtype,
                "sparse": False, "ragged": False, "name": self.name,
                "optional": bool(self.optional)}


def Input(shape=None, batch_size=None, dtype=None, sparse=None, ragged=None, batch_shape=None,
          name=None, tensor=None, optional=False) -> SymbolicTensor:
    """A symbolic input of shape ``(batch_size, *shape)`` for the functional API.

    Args:
        shape: Shape of one sample, without the batch axis (None for a variable size).
        batch_size: Fixed batch size, or None for any.
        dtype: Dtype of the input (default ``keras.config.floatx()``).
        sparse: Must be False or None: Lamina has no sparse tensors (True raises ValueError).
        ragged: Must be False or None: Lamina has no ragged tensors (True raises ValueError).
        batch_shape: Full shape including the batch axis, instead of ``shape`` and
            ``batch_size``.
        name: Name of the input (unique in the model); None derives one.
        tensor: An existing symbolic tensor to use as the input; the other arguments must agree
            with it.
        optional: Whether the input may be None when the model is called.

    Returns:
        A symbolic tensor, the input of a functional model.

    Example:

    >>> x = lamina.Input(shape=(16,))
    >>> x.shape
    (None, 16)
    """
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse,
                       ragged=ragged, batch_shape=batch_shape, input_tensor=tensor,
                       optional=optional, name=name)
    return layer.output
