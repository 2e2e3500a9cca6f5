"""Eager execution of an op: check specs, run the kernels now, record on active tapes."""
from __future__ import annotations

from ..errors import LaminaError, ShapeError, describe_shape
from . import tape as _tape
from ..core.op import c_ordered
from ..core.tensor import Tensor, same_backend
from ..core.variable import note_views

# Tests switch this on to check every forward result against its op's output_spec.
check_forward_against_spec = False
# Tests set this to a callable(op_name) to learn which ops a function really ran.
op_observer = None


def eager_apply(op, inputs, attrs):
    backend = same_backend(op.name, inputs)
    spec = op.output_spec(*inputs, **attrs)
    result = op.forward(backend, *[t.data for t in inputs], **attrs)
    if op.writes_out:                      # the layout a graph plan's buffer gives it
        result = c_ordered(result)
    if isinstance(spec, tuple) and not hasattr(spec, "dtype"):
        outputs = tuple(Tensor._wrap(r, backend) for r in result)
        specs = spec
    else:
        outputs = (Tensor._wrap(result, backend),)
        specs = (spec,)
    for t in inputs:               # outputs sharing a Variable's buffer become its views
        if t._owner is not None:
            note_views(t._owner, outputs)
    if check_forward_against_spec:
        _check(op, outputs, specs)
        if op_observer is not None:
            op_observer(op.name)
    state = _tape._state                    # this thread's tapes
    if state.tapes and state.no_grad_depth == 0 and op.differentiable:
        for tape in state.tapes:
            if tape._recording:
                tape._maybe_record(op, inputs, outputs, attrs)
    return outputs if len(outputs) > 1 or specs is spec else outputs[0]


def _check(op, outputs, specs) -> None:
    if len(outputs) != len(specs):
        raise LaminaError(f"{op.name}: forward returned {len(outputs)} outputs, "
                          f"output_spec promised {len(specs)}")
    for out, spec in zip(outputs, specs):
        shape_ok = len(out.shape) == len(spec.shape) and all(
            s is None or s == d for s, d in zip(spec.shape, out.shape))
        if not shape_ok or out.dtype != spec.dtype:
            raise ShapeError(f"{op.name}: forward produced shape {describe_shape(out.shape)} "
                             f"dtype {out.dtype}, but output_spec promised "
                             f"{describe_shape(spec.shape)} {spec.dtype}")
