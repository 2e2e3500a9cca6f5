"""``Merge``: the base of the layers that combine a list of tensors elementwise."""
from __future__ import annotations

from ... import ops
from ...errors import ShapeError, describe_shape
from ..layer import Layer


def describe_shapes(shapes) -> str:
    return ", ".join(describe_shape(s) for s in shapes)


class Merge(Layer):
    """Combines a list of tensors with ``_merge_function`` (Keras 3's ``Merge``).

    Shapes broadcast as Keras's: the batch sizes must agree, the other axes are aligned
    from the right and a size of 1 stretches; an input of lower rank gets unit axes
    inserted after the batch axis. The output mask is the OR of the input masks, or None
    when some input has none (Keras 3).
    """

    min_inputs = 1
    max_inputs = None
    expand_ranks = True          # lower-rank inputs get unit axes after the batch axis

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def _merge_function(self, inputs, masks):
        """The merged tensor of ``inputs`` (all of one rank); ``masks`` holds each input's
        mask or None (only Multiply, Maximum and Minimum look at them, as in Keras)."""
        raise NotImplementedError

    def _check_count(self, count: int) -> None:
        if count < self.min_inputs or (self.max_inputs is not None
                                       and count > self.max_inputs):
            wanted = f"exactly {self.min_inputs}" if self.min_inputs == self.max_inputs \
                else f"a list of at least {self.min_inputs}"
            raise ValueError(f"{self.name}: a `{type(self).__name__}` layer should be called "
                             f"on {wanted} inputs; received {count}")

    def _check_shapes(self, shapes) -> None:
        """Keras's shape rule for elementwise merges, with an error naming the layer."""
        batches = {s[0] for s in shapes if len(s)} - {None}
        if len(batches) > 1:
            raise ShapeError(f"{self.name}: inputs must have one batch size; received "
                             f"shapes {describe_shapes(shapes)}")
        if any(len(s) == 0 for s in shapes):
            raise ShapeError(f"{self.name}: inputs must have a batch axis (rank >= 1); "
                             f"received shapes {describe_shapes(shapes)}")
        samples = [tuple(s[1:]) for s in shapes]
        rank = max(len(s) for s in samples)
        for i in range(1, rank + 1):
            sizes = {s[-i] for s in samples if len(s) >= i} - {None, 1}
            if len(sizes) > 1:
                raise ShapeError(f"{self.name}: inputs have incompatible shapes (axis "
                                 f"{-i} has sizes {sorted(sizes)}, batch excluded); received "
                                 f"shapes {describe_shapes(shapes)}")

    def build(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or not all(
                isinstance(s, (list, tuple)) for s in input_shape):
            raise ValueError(f"{self.name}: a merge layer is called on a list of tensors; "
                             f"received one tensor of shape {describe_shape(input_shape)}")
        self._check_count(len(input_shape))
        self._check_shapes([tuple(s) for s in input_shape])

    def call(self, inputs, mask=None):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"{self.name}: a merge layer is called on a list of tensors; "
                             f"received one tensor of shape {describe_shape(inputs.shape)}")
        self._check_count(len(inputs))
        inputs = list(inputs)
        self._check_shapes([tuple(x.shape) for x in inputs])
        masks = list(mask) if isinstance(mask, (list, tuple)) else [None] * len(inputs)
        rank = max(len(x.shape) for x in inputs)
        for i, x in enumerate(inputs):
            if self.expand_ranks and len(x.shape) < rank:
                # as Keras: unit axes after the batch axis; the input's mask is dropped
                inputs[i] = ops.expand_dims(x, tuple(range(1, 1 + rank - len(x.shape))))
                masks[i] = None
        return self._merge_function(inputs, masks)

    def _check_masks(self, inputs, mask) -> None:
        if not isinstance(mask, (list, tuple)) or not isinstance(inputs, (list, tuple)) \
                or len(mask) != len(inputs):
            got = f"{len(mask)} masks" if isinstance(mask, (list, tuple)) else \
                type(mask).__name__
            count = f"{len(inputs)} inputs" if isinstance(inputs, (list, tuple)) else \
                type(inputs).__name__
            rule = "`mask` should be a list" if not isinstance(mask, (list, tuple)) else \
                "`inputs` should be a list" if not isinstance(inputs, (list, tuple)) else \
                "the lists `inputs` and `mask` should have the same length"
            raise ValueError(f"{self.name}: compute_mask expects a list with one mask (or "
                             f"None) per input ({rule}); received {got} for {count}")

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        self._check_masks(inputs, mask)
        if any(m is None for m in mask):
            return None
        output = mask[0]
        for m in mask[1:]:
            output = ops.logical_or(output, m)
        return output

    def get_config(self) -> dict:
        return super().get_config()


def broadcast_mask(mask, x):
    """A (batch, ...) boolean mask with trailing axes added to match ``x``'s rank, then
    broadcast to ``x``'s shape (a timestep mask covers all features of the step)."""
    mask = ops.cast(mask, "bool") if mask.dtype != "bool" else mask
    while len(mask.shape) < len(x.shape):
        mask = ops.expand_dims(mask, -1)
    if all(m is not None and m == (d if d is not None else m)
           for m, d in zip(mask.shape, x.shape)):
        return mask       # full-size already (a concrete mask of a symbolic input too)
    # and-ed with an all-True tensor like x rather than broadcast_to(x.shape): x's shape
    # may hold None (a functional model's batch size), which a recorded node cannot carry
    return ops.logical_and(mask, ops.ones_like(x, dtype="bool"))


def masked_reduce(op, inputs, masks):
    """``op`` folded over ``inputs``, where a masked-out entry of one input is replaced by
    the running result (or the running result by it), so it takes no part: Keras 3's
    ``_apply_merge_op_and_or_mask``, used by Maximum and Minimum."""
    output = output_mask = None
    for x, mask in zip(inputs, masks):
        if mask is not None:
            mask = broadcast_mask(mask, x)
        if output is None:
            output, output_mask = x, mask
            continue
        if mask is not None:
            x = ops.where(mask, x, output)
        if output_mask is not None:
            output = ops.where(output_mask, output, x)
        both = mask is not None and output_mask is not None
        output_mask = ops.logical_or(output_mask, mask) if both else None
        output = op(output, x)
    return output
