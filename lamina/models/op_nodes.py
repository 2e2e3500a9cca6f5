"""Ops applied between layers (``x + y``, ``x[:, 0]``, ``ops.transpose(x)``) in a
functional model's config, as Keras 3 stores them: one entry per op call, beside the
layers' entries, with the op's class name, its config and ``inbound_nodes``:

    {"module": "lamina.ops", "class_name": "Add", "config": {"name": "add"},
     "registered_name": "Add", "name": "add", "inbound_nodes": [{"args": [...], ...}]}

Lamina writes the primitive op it recorded (``lamina.ops``'s op class, its attributes in
``config``); reading calls that registered op again with those attributes. Keras writes the
op of its public function (``keras.src.ops.numpy``'s ``GetItem``, with the index among the
``args``); reading calls Lamina's public op of that name (``lamina.ops.get_item``). Either
way only ops already in Lamina run: a file names them, never brings code.

Values that are not symbolic tensors use Keras's forms: a constant tensor is
``{"class_name": "__tensor__", ...}``, a slice ``"__slice__"``, ``...`` ``"__ellipsis__"``.
"""
from __future__ import annotations

from .. import ops
from ..core.naming import to_snake_case
from ..core.op import OP_REGISTRY
from ..core.symbolic import SymbolicTensor
from ..core.tensor import TensorBase
from ..core.variable import Variable

LAMINA_MODULE = "lamina.ops"
_KERAS_MODULE = "keras.src.ops"


class OpConfigError(ValueError):
    """An op between layers that cannot be written to, or read from, a config."""


def is_op_entry(entry: dict) -> bool:
    module = entry.get("module") or ""
    return module == LAMINA_MODULE or module == _KERAS_MODULE or \
        module.startswith(_KERAS_MODULE + ".")


def op_entry(node, name: str, encode_tensor) -> dict:
    """The config entry of one op call ``node``; ``encode_tensor(x)`` writes a symbolic
    input as a ``__keras_tensor__`` reference."""
    class_name = type(node.op).__name__
    if "name" in node.attrs:
        raise OpConfigError(f"op '{node.op.name}' has an attribute called 'name', which its "
                            f"config entry uses for the call's name")
    config = {"name": name, **{k: encode_value(v, node.op.name)
                               for k, v in node.attrs.items()}}
    args = [encode_tensor(x) if isinstance(x, SymbolicTensor) else
            encode_value(x, node.op.name) for x in node.inputs]
    return {"module": LAMINA_MODULE, "class_name": class_name, "config": config,
            "registered_name": class_name, "name": name,
            "inbound_nodes": [{"args": args, "kwargs": {}}]}


def op_call_name(node, used: set) -> str:
    """A name for the call, unique among ``used`` (the config's layer and op names):
    ``get_item``, ``get_item_1``, ..."""
    base = to_snake_case(type(node.op).__name__)
    name, n = base, 0
    while name in used:
        n += 1
        name = f"{base}_{n}"
    used.add(name)
    return name


def encode_value(value, op: str):
    """A constant input or an attribute as JSON-ready data."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [encode_value(v, op) for v in value]
    if isinstance(value, dict):
        return {str(k): encode_value(v, op) for k, v in value.items()}
    if value is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if isinstance(value, slice):
        return {"class_name": "__slice__", "config": {
            "start": encode_value(value.start, op), "stop": encode_value(value.stop, op),
            "step": encode_value(value.step, op)}}
    if isinstance(value, TensorBase) and not isinstance(value, Variable):
        return {"class_name": "__tensor__",
                "config": {"value": ops.convert_to_numpy(value).tolist(),
                           "dtype": str(value.dtype)}}
    if getattr(value, "shape", None) == () and callable(getattr(value, "item", None)):
        return value.item()                         # a numpy scalar
    raise OpConfigError(f"op '{op}': cannot write {value!r} (a {type(value).__name__}) to "
                        f"the model's config; use a layer instead of this op")


def decode_value(value):
    """The inverse of :func:`encode_value`; lists become tuples (ops' attributes are
    tuples), except lists that hold tensors (an op's list of inputs)."""
    if isinstance(value, dict):
        kind, config = value.get("class_name"), value.get("config") or {}
        if kind == "__ellipsis__":
            return Ellipsis
        if kind == "__slice__":
            return slice(decode_value(config.get("start")), decode_value(config.get("stop")),
                         decode_value(config.get("step")))
        if kind == "__tensor__":
            return ops.convert_to_tensor(config["value"], dtype=config["dtype"])
        return {k: decode_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = [decode_value(v) for v in value]
        if any(isinstance(v, TensorBase) for v in items):
            return items
        return tuple(items)
    return value


class OpReplay:
    """A config's op entry as a callable the functional config replays like a layer."""

    def __init__(self, entry: dict):
        self.name = entry.get("name") or entry.get("config", {}).get("name")
        class_name = entry.get("class_name")
        config = {k: decode_value(v) for k, v in (entry.get("config") or {}).items()
                  if k != "name"}
        if entry.get("module") == LAMINA_MODULE:
            op = _registered_op(class_name)
            self._call = lambda *args: op(*args, **config)
        else:
            function = _public_op(class_name, entry.get("module"))
            self._call = lambda *args: function(*args, **config)

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise OpConfigError(f"op call '{self.name}': keyword inputs {sorted(kwargs)} are "
                                f"not supported")
        return self._call(*[v if isinstance(v, TensorBase) else decode_value(v)
                            for v in args])


_BY_CLASS: dict[str, object] = {}


def _registered_op(class_name: str):
    if len(_BY_CLASS) != len(OP_REGISTRY):     # ops registered since (custom ops)
        _BY_CLASS.clear()
        _BY_CLASS.update({type(op).__name__: op for op in OP_REGISTRY.values()})
    op = _BY_CLASS.get(class_name)
    if op is None:
        raise OpConfigError(f"the config applies op {class_name!r} between layers, which is "
                            f"not a registered Lamina op (custom ops must be registered "
                            f"before the model is loaded)")
    return op


def _public_op(class_name: str, module: str):
    name = to_snake_case(class_name)
    function = getattr(ops, name, None) if name in getattr(ops, "__all__", ()) else None
    if not callable(function):
        raise OpConfigError(f"the config applies Keras's op {class_name!r} (from {module}) "
                            f"between layers; Lamina has no public op '{name}' to replay it "
                            f"with")
    return function
