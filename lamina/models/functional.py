"""Functional models: a graph of layer calls from ``Input`` tensors to outputs."""
from __future__ import annotations

from .. import ops, tree
from ..core.tensor import TensorBase
from ..core.symbolic import SymbolicTensor
from ..errors import ArgumentTypeError, InputShapeError, describe_shape
from ..layers.core.input_layer import InputLayer
from ..layers.layer import Layer
from ..core.naming import unique_name
from ..layers.node import LayerNode
from .functional_config import functional_config, functional_from_config as build
from .input_matching import match_structure
from .layer_order import keras_layer_order
from .model import Model


class OpStep:
    """An op applied between layers (``x + y``, ``x[:, 0]``): replayed on real values."""
    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node

    @property
    def input_tensors(self):
        return [x for x in self.node.inputs if isinstance(x, SymbolicTensor)]

    @property
    def output_tensors(self):
        return list(self.node.outputs)


class Functional(Model):
    """``Model(inputs, outputs)``: inputs and outputs may be one tensor, a list or a dict."""
    saving_kind = "Functional"

    _keras_module = "keras.src.models.functional"

    def __init__(self, inputs, outputs, name=None, trainable=True, **kwargs):
        self._init_graph(inputs, outputs, name=name, trainable=trainable, **kwargs)

    def _init_graph(self, inputs, outputs, name=None, trainable=True, **kwargs):
        Model.__init__(self, name=name or _default_name(), trainable=trainable, **kwargs)
        self.autocast = False        # inputs keep the dtypes of their Inputs (Keras 3)
        self._input_structure = inputs
        self._output_structure = outputs
        for kind, structure in (("inputs", inputs), ("outputs", outputs)):
            for position, x in enumerate(tree.flatten(structure)):
                if not isinstance(x, SymbolicTensor):
                    raise ArgumentTypeError(
                        f"{self.name}: every {kind[:-1]} must be a symbolic tensor "
                        f"(All `{kind}` values must be KerasTensors, made by lamina.Input() "
                        f"or computed from one); {kind[:-1]} {position} is {x!r} of type "
                        f"{type(x).__name__}")
        if not all(_is_input_tensor(x) for x in tree.flatten(inputs)):
            # Keras 3: a model from intermediate tensors (a slice of a bigger graph) gets
            # fresh Inputs in their place, with the layers between them called again
            inputs, outputs = _from_fresh_inputs(self.name, inputs, outputs)
            self._input_structure, self._output_structure = inputs, outputs
        flat_inputs = tree.flatten(inputs)
        paths = [".".join(str(p) for p in path)
                 for path, _ in tree.flatten_with_path(outputs)]
        self._steps = _topological_steps(self.name, flat_inputs, tree.flatten(outputs), paths)
        # `layers` in Keras's order (by depth), which Keras's weight files number by.
        operations = keras_layer_order(flat_inputs, tree.flatten(outputs), _producer)
        self.__dict__["_operations"] = list(operations)
        self.__dict__["_layers"] = [op for op in operations if isinstance(op, Layer)]
        self._node_set = {id(step) for step in self._steps}
        self.built = True

    # ---------------------------------------------------------------- structure
    @property
    def operations(self) -> list:
        """The graph's layers (Input layers included) and the op calls between them (as
        symbolic nodes), in Keras's order (by depth): Keras 3's ``Functional.operations``."""
        return list(self.__dict__["_operations"])

    @property
    def inputs(self) -> list[SymbolicTensor]:
        return tree.flatten(self._input_structure)

    @property
    def outputs(self) -> list[SymbolicTensor]:
        return tree.flatten(self._output_structure)

    @property
    def input(self):
        return self._input_structure

    @property
    def output(self):
        return self._output_structure

    @property
    def input_shape(self):
        shapes = [x.shape for x in self.inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self):
        shapes = [x.shape for x in self.outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def input_names(self) -> list[str]:
        return [x.history[0].name for x in self.inputs]

    @property
    def output_names(self) -> list[str]:
        return [x.history[0].name if x.history else f"output_{i}"
                for i, x in enumerate(self.outputs)]

    def layer_nodes(self, layer) -> list[LayerNode]:
        """The calls of ``layer`` that belong to this model, in order."""
        return [n for n in layer._inbound_nodes if id(n) in self._node_set or
                (isinstance(n.layer, InputLayer) and n.layer in self.layers)]

    # ---------------------------------------------------------------- running
    def build(self, input_shape=None) -> None:
        self.built = True

    def call(self, inputs, training=None, mask=None):
        values, refused = {}, []
        for ref, value in zip(self.inputs, self._match_inputs(inputs, refused)):
            values[id(ref)] = value
        if not refused:
            _run_steps(self._steps, values, training)
        else:
            # A Sequential's graph (Keras 3): data of its Input's rank but other sizes runs
            # when the layers take it; when they refuse it, the input's own error is raised.
            try:
                _run_steps(self._steps, values, training)
            except ValueError:
                raise refused[0] from None
        return tree.pack_sequence_as(self._output_structure,
                                     [values[id(x)] for x in self.outputs])

    @property
    def shown_name(self) -> str:
        """The name errors give: the Sequential's own for the graph a Sequential runs."""
        return self.__dict__.get("_shown_name") or self.name

    def _match_inputs(self, inputs, refused: list | None = None) -> list:
        refs = self.inputs
        name = self.shown_name
        flat = match_structure(self, inputs)
        if len(flat) != len(refs):
            raise ValueError(f"{name}: expects {len(refs)} input(s) "
                             f"({', '.join(self.input_names)}); received {len(flat)}")
        paths = [".".join(str(p) for p in path)
                 for path, _ in tree.flatten_with_path(self._input_structure)]
        if not self.__dict__.get("_layers_check_sizes"):
            refused = None
        return [_conform(name, ref, x, position, path, refused)
                for position, (ref, x, path) in enumerate(zip(refs, flat, paths))]

    def get_config(self) -> dict:
        return functional_config(self)


def _conform(model: str, ref: SymbolicTensor, x, position: int = 0, path: str = "",
             refused: list | None = None):
    """``x`` for ``ref``; with a ``refused`` list, data of the right rank but other sizes
    passes, its error added to the list (raised if the layers refuse the data)."""
    if x is None:
        # Keras 3: an Input(optional=True) takes None, which its layers receive as None
        if getattr(ref.history[0], "optional", False):
            return None
        raise ValueError(f"{model}: input '{ref.history[0].name}' is not optional; "
                         f"received None. Pass an array, or make it "
                         f"Input(..., optional=True)")
    if not isinstance(x, TensorBase):
        x = ops.convert_to_tensor(x, dtype=ref.dtype)
    elif x.dtype != ref.dtype and not isinstance(x, SymbolicTensor):
        x = ops.cast(x, ref.dtype)
    # Keras's rank adjustment: a trailing size-1 axis is added or dropped to match the Input
    if len(x.shape) == len(ref.shape) - 1 and ref.shape and ref.shape[-1] == 1:
        x = ops.expand_dims(x, -1)
    elif len(x.shape) == len(ref.shape) + 1 and x.shape and x.shape[-1] == 1:
        x = ops.squeeze(x, -1)
    if len(x.shape) != len(ref.shape) or any(
            r is not None and d is not None and r != d for r, d in zip(ref.shape, x.shape)):
        name, expected, found = ref.history[0].name, describe_shape(ref.shape), \
            describe_shape(x.shape)
        error = InputShapeError(f"{model}: input '{name}' expects shape {expected}; "
                                f"received shape {found}{_likely_fix(ref.shape, x.shape)} "
                                f"(input {position} with name '{name}' and path '{path}': "
                                f"expected shape={expected}, found shape={found})")
        if refused is None or len(x.shape) != len(ref.shape):
            raise error
        refused.append(error)
    return x


def _likely_fix(expected, received) -> str:
    """The usual cause of a mismatch, when the shapes show it."""
    expected, received = tuple(expected), tuple(received)
    if len(received) == len(expected) - 1 and all(
            e is None or e == r for e, r in zip(expected[1:], received)):
        return (". It looks like one sample without its batch axis: add one with x[None] "
                "(or np.expand_dims(x, 0))")
    if len(received) == len(expected) + 1 and received[0] == 1 and all(
            e is None or e == r for e, r in zip(expected, received[1:])):
        return ". It has an extra leading axis of size 1: pass x[0]"
    if len(received) == len(expected) and received[1:] != tuple(expected[1:]) and \
            sorted(map(str, received[1:])) == sorted(map(str, expected[1:])):
        return (". Its axes are in another order: transpose it (channels_last data has "
                "the channels last)")
    return ""


def _run_steps(steps, values: dict, training=None) -> None:
    """Run the layer and op ``steps`` on ``values`` (id of a graph tensor -> its value),
    adding the value of every tensor they compute."""
    for step in steps:
        if isinstance(step, LayerNode):
            def fill(x):
                return values[id(x)] if isinstance(x, SymbolicTensor) else x
            args = tree.map_structure(fill, step.args)
            kwargs = tree.map_structure(fill, step.kwargs)
            if training is not None:
                # Keras 3: the model's training value (passed, inherited, or fit's,
                # evaluate's, predict's) replaces the one the call recorded, so
                # base(x, training=False) trains under fit (keras-team/keras#20285)
                kwargs["training"] = training
            result = step.layer(*args, **kwargs)
            for ref, value in zip(step.output_tensors, tree.flatten(result)):
                values[id(ref)] = value
        else:
            node = step.node
            ins = [values[id(x)] if isinstance(x, SymbolicTensor) else x
                   for x in node.inputs]
            result = node.op(*ins, **node.attrs)
            results = result if isinstance(result, tuple) else (result,)
            for ref, value in zip(node.outputs, results):
                values[id(ref)] = value


def _is_input_tensor(x: SymbolicTensor) -> bool:
    return x.history is not None and isinstance(x.history[0], InputLayer)


def _from_fresh_inputs(name: str, inputs, outputs):
    """``inputs`` with each tensor that is not an Input's replaced by a new Input of its
    shape and dtype, and ``outputs`` recomputed from them by calling the same layers."""
    flat = tree.flatten(inputs)
    fresh = [x if _is_input_tensor(x) else
             InputLayer(batch_shape=tuple(x.shape), dtype=x.dtype).output for x in flat]
    flat_outputs = tree.flatten(outputs)
    values = {id(old): new for old, new in zip(flat, fresh)}
    _run_steps(_topological_steps(name, flat, flat_outputs), values)
    new_outputs = [values.get(id(x), x) for x in flat_outputs]
    return (tree.pack_sequence_as(inputs, fresh),
            tree.pack_sequence_as(outputs, new_outputs))


def _producer(x: SymbolicTensor):
    if x.history is not None:
        layer, index, _ = x.history
        return layer._inbound_nodes[index]
    if x.node is not None:
        return OpStep(x.node)
    return None


def _topological_steps(name: str, inputs, outputs, output_paths=None) -> list:
    """The layer and op steps from ``inputs`` to ``outputs`` in an order that runs
    (``output_paths``: each output's path in the outputs' structure, for errors)."""
    input_ids = {id(x) for x in inputs}
    order, state = [], {}

    def key(step):
        return id(step.node) if isinstance(step, OpStep) else id(step)

    def enter(tensor, output: int):
        """The step that computes ``tensor``, marked as being visited; None when there
        is nothing (left) to do for it."""
        if id(tensor) in input_ids:
            return None
        step = _producer(tensor)
        if step is None or (isinstance(step, LayerNode) and isinstance(step.layer, InputLayer)):
            path = output_paths[output] if output_paths else ""
            keras_phrase = f" (Output with path `{path}` is not connected)" if path else ""
            raise ValueError(
                f"{name}: graph disconnected: Output {output} is not connected to "
                f"`inputs`{keras_phrase}: "
                f"{tensor!r} cannot be computed from the model's inputs "
                f"{[x.name for x in inputs]}; pass every Input it depends on in 'inputs'")
        k = key(step)
        if state.get(k) == "done":
            return None
        if state.get(k) == "visiting":
            raise ValueError(f"{name}: the graph has a cycle")
        state[k] = "visiting"
        return step

    # A depth-first post-order walk with an explicit stack (a model may be thousands of
    # layers deep, far past Python's recursion limit).
    for position, out in enumerate(outputs):
        step = enter(out, position)
        if step is None:
            continue
        stack = [(step, iter(step.input_tensors))]
        while stack:
            step, parents = stack[-1]
            for parent in parents:
                child = enter(parent, position)
                if child is not None:
                    stack.append((child, iter(child.input_tensors)))
                    break
            else:
                stack.pop()
                state[key(step)] = "done"
                order.append(step)
    return order


_names: dict[str, int] = {}


def _default_name() -> str:
    return unique_name("functional")


def functional_from_config(cls, config: dict, custom_objects=None):
    return build(cls, config, custom_objects)
