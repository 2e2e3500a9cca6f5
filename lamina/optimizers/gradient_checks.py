"""What ``Optimizer.apply`` checks about the gradients and variables it is given, before
any update."""
from __future__ import annotations

import warnings

from .. import ops
from ..core.tensor import TensorBase
from ..errors import ShapeError, describe_shape
from ..ops.core import to_backend_tensor


def prepare_gradients(owner: str, grads, variables) -> tuple[list, list]:
    """Drop None gradients (with a warning naming their variables; an error when all are
    None), check that each gradient has its variable's shape, and cast it to the
    variable's dtype. Returns the kept gradients and their variables."""
    missing = [v.path for g, v in zip(grads, variables) if g is None]
    if len(missing) == len(grads):
        raise ValueError(f"{owner}.apply_gradients: No gradients provided for any variable. "
                         f"All gradients are None, for variables {missing}. Check that the loss "
                         f"depends on them (and, with model.compile(), that a loss was "
                         f"given)")
    if missing:
        warnings.warn(f"{owner}: gradients do not exist for variables {missing} when "
                      f"minimizing the loss; they are left unchanged", stacklevel=4)
    kept_grads, kept_variables = [], []
    for g, v in zip(grads, variables):
        if g is None:
            continue
        if not isinstance(g, TensorBase):
            g = to_backend_tensor(g, dtype=v.dtype, backend=v.backend)
        if tuple(g.shape) != tuple(v.shape):
            raise ShapeError(f"{owner}.apply_gradients: the gradient for variable "
                             f"'{v.path}' must have the variable's shape "
                             f"{describe_shape(v.shape)}; received shape "
                             f"{describe_shape(g.shape)}")
        kept_grads.append(ops.cast(g, v.dtype))
        kept_variables.append(v)
    return kept_grads, kept_variables


def resolve_variables(optimizer, grads, trainable_variables) -> list:
    """The variables ``optimizer.apply(grads, trainable_variables)`` updates: those given
    (building the optimizer on first use) or those it was built with, one per gradient."""
    owner = type(optimizer).__name__
    if trainable_variables is None:
        if not optimizer.built:
            raise ValueError(f"{owner}.apply: when 'trainable_variables' is not given the "
                             f"optimizer must already be built; call "
                             f"optimizer.build(trainable_variables) first")
        variables = list(optimizer._trainable_variables)
    else:
        variables = list(trainable_variables)
        if not optimizer.built:
            optimizer.build(variables)
    if len(variables) != len(grads):
        raise ValueError(f"{owner}.apply: expected one gradient per variable "
                         f"({len(variables)} variables); received {len(grads)} gradients")
    unknown = [v for v in variables
               if optimizer._var_key(v) not in optimizer._trainable_variables_indices]
    if unknown:
        raise ValueError(f"{owner}.apply: unknown variable(s) "
                         f"{[getattr(v, 'path', v) for v in unknown]}: this optimizer was "
                         f"built for other variables; create a new optimizer to train a new "
                         f"set of variables")
    return variables
