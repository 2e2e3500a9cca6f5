"""Keras 3's ``keras.Function``: the computation from symbolic inputs to symbolic outputs as
a plain callable, without the Model around it (no weights tracking, compile or fit).

Its inputs may be any symbolic tensors -- ``KerasTensor`` placeholders or tensors computed
inside another graph -- and only the layer calls and ops between them and the outputs
belong to the function (what makes an intermediate input lies outside it, as in Keras)."""
from __future__ import annotations

from .. import ops, tree
from ..core.naming import unique_name
from ..core.symbolic import SymbolicTensor
from ..core.tensor import TensorBase
from ..errors import describe_shape
from ..layers.node import LayerNode
from .functional import _topological_steps


class Function:
    """``Function(inputs, outputs, name=None)``; ``function(x)`` or ``function.call(x)``
    evaluates ``outputs`` (same nesting) for concrete (or symbolic) ``x`` of the inputs'
    structure. ``operations`` lists the layers and ops the graph calls, inputs first.

    Args:
        inputs: a symbolic tensor from ``keras.Input``, or a nested structure of them.
        outputs: a symbolic tensor computed from ``inputs``, or a nested structure of them.
        name: the function's name (None: an automatic one).


    Example:

    >>> import lamina as keras
    >>> x = keras.Input((2,))
    >>> f = keras.Function(x, keras.ops.sum(x, axis=-1))
    >>> f(keras.ops.convert_to_tensor([[1.0, 2.0]])).numpy()
    array([3.], dtype=float32)
    """

    def __init__(self, inputs, outputs, name=None):
        self.name = name or unique_name("function")
        self._inputs_struct, self._outputs_struct = inputs, outputs
        self._inputs, self._outputs = tree.flatten(inputs), tree.flatten(outputs)
        for role, flat in (("inputs", self._inputs), ("outputs", self._outputs)):
            if not flat:
                raise ValueError(f"Function {self.name!r}: `{role}` argument cannot be "
                                 f"empty; received inputs={inputs!r}, outputs={outputs!r}")
            for position, x in enumerate(flat):
                if not isinstance(x, SymbolicTensor):
                    raise TypeError(f"Function {self.name!r}: every entry of '{role}' must "
                                    f"be a symbolic tensor (lamina.KerasTensor or "
                                    f"lamina.Input); {role} {position} is {type(x).__name__}")
        self._steps = _topological_steps(self.name, self._inputs, self._outputs)

    @property
    def inputs(self) -> list:
        """The flat list of the symbolic inputs."""
        return self._inputs

    @property
    def outputs(self) -> list:
        """The flat list of the symbolic outputs."""
        return self._outputs

    @property
    def operations(self) -> list:
        """The layers and ops between the inputs and the outputs, each once, in run order."""
        seen, found = set(), []
        for step in self._steps:
            op = step.layer if isinstance(step, LayerNode) else step.node.op
            if id(op) not in seen:
                seen.add(id(op))
                found.append(op)
        return found

    def call(self, inputs):
        """The outputs computed from new ``inputs`` (arrays, tensors or symbolic tensors)."""
        flat = self._check_inputs(inputs)
        values = {id(ref): _conform(ref, x) for ref, x in zip(self._inputs, flat)}
        for step in self._steps:
            if isinstance(step, LayerNode):
                def fill(x):
                    return values[id(x)] if isinstance(x, SymbolicTensor) else x
                result = step.layer(*tree.map_structure(fill, step.args),
                                    **tree.map_structure(fill, step.kwargs))
                refs, results = step.output_tensors, tree.flatten(result)
            else:
                node = step.node
                result = node.op(*[values[id(x)] if isinstance(x, SymbolicTensor) else x
                                   for x in node.inputs], **node.attrs)
                refs, results = node.outputs, result if isinstance(result, tuple) else (result,)
            for ref, value in zip(refs, results):
                values[id(ref)] = value
        return tree.pack_sequence_as(self._outputs_struct,
                                     [values[id(x)] for x in self._outputs])

    def __call__(self, inputs):
        return self.call(inputs)

    def compute_output_spec(self, inputs):
        """The outputs' shapes and dtypes (symbolic tensors) for inputs of these shapes."""
        symbols = tree.map_structure(
            lambda x: x if isinstance(x, SymbolicTensor) else SymbolicTensor(
                tuple(x.shape), str(x.dtype)), inputs)
        return self.call(symbols)

    def compute_output_shape(self, input_shape):
        """The outputs' shapes (tuples, nested as the outputs) for inputs of these shapes."""
        shapes: list = []
        tree.map_shape_structure(shapes.append, input_shape)
        if len(shapes) != len(self._inputs):
            raise ValueError(f"Function {self.name!r}: expects {len(self._inputs)} input "
                             f"shape(s); received {input_shape!r}")
        symbols = [SymbolicTensor(tuple(s), ref.dtype) for s, ref in zip(shapes, self._inputs)]
        spec = self.call(tree.pack_sequence_as(self._inputs_struct, symbols))
        return tree.map_structure(lambda x: tuple(x.shape), spec)

    def _check_inputs(self, inputs) -> list:
        try:
            tree.assert_same_structure(inputs, self._inputs_struct)
        except (ValueError, TypeError):
            raise ValueError(f"Function {self.name!r} was called with an invalid input "
                             f"structure: expected {self._inputs_struct!r}; received "
                             f"{inputs!r}") from None
        flat = tree.flatten(inputs)
        for position, (x, ref) in enumerate(zip(flat, self._inputs)):
            shape = tuple(ops.shape(x)) if x is not None else ()
            if len(shape) != len(ref.shape) or any(
                    r is not None and d is not None and r != d
                    for r, d in zip(ref.shape, shape)):
                raise ValueError(f"Function {self.name!r} was passed incompatible inputs: "
                                 f"input {position} expects shape {describe_shape(ref.shape)}; "
                                 f"received shape {describe_shape(shape)}")
        return flat

    def __repr__(self):
        return f"<Function name={self.name!r} inputs={len(self.inputs)} " \
               f"outputs={len(self.outputs)}>"


def _conform(ref: SymbolicTensor, x):
    """A value for ``ref``: arrays and Python numbers become tensors of its dtype."""
    if isinstance(x, TensorBase):
        return x
    return ops.convert_to_tensor(x, dtype=ref.dtype)
