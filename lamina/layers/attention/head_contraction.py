"""The contraction of ``HeadProjection`` (the projections of the attention layers) as
batched matmuls over the heads: no reshape of the input, so unknown sizes (a symbolic batch
or sequence length) are no obstacle. ``matmul`` is ``ops.int8_matmul`` for the int8
projection."""
from __future__ import annotations

from ... import ops


def contract(inputs, kernel, contract_axes: int, projected_shape, matmul=ops.matmul):
    """The projection: ``(..., T, D) -> (..., T, H, size)`` (contract 1) or
    ``(..., T, H, size) -> (..., T, *projected_shape)`` (contract 2), by ``matmul``."""
    if contract_axes == 1:
        x = matmul(ops.expand_dims(inputs, -3), ops.moveaxis(kernel, 0, -2))  # (..,H,T,S)
        return ops.moveaxis(x, -3, -2)
    heads, size = kernel.shape[:2]
    x = matmul(ops.moveaxis(inputs, -2, -3), ops.reshape(kernel, (heads, size, -1)))
    x = ops.sum(x, axis=-3)
    if len(projected_shape) != 1:
        lead = [-1 if d is None else d for d in x.shape[:-1]]
        x = ops.reshape(x, (*lead, *projected_shape))
    return x


def contract_transposed(upstream, kernel, contract_axes: int, projected_shape):
    """The inputs' gradient of :func:`contract` for the float ``kernel``."""
    if contract_axes == 1:          # (..., T, H, S) -> (..., T, D): the output projection's
        return contract(upstream, ops.moveaxis(kernel, 0, -1), 2, (kernel.shape[0],))
    heads, size = kernel.shape[:2]
    flat = ops.reshape(kernel, (heads, size, -1))                   # (H, S, O)
    if len(projected_shape) != 1:
        lead = [-1 if d is None else d for d in upstream.shape[:-len(projected_shape)]]
        upstream = ops.reshape(upstream, (*lead, flat.shape[-1]))
    x = ops.matmul(ops.expand_dims(upstream, -3), ops.swapaxes(flat, -1, -2))  # (..,H,T,S)
    return ops.moveaxis(x, -3, -2)
