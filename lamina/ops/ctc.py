"""Connectionist temporal classification: ``ctc_loss`` (the forward algorithm in log
space, composed from ops, so its gradient comes free) and ``ctc_decode`` (greedy or beam
search, a backend kernel without gradient). Keras 3's signatures and conventions: logits
(batch, time, classes), blank = ``mask_index``."""
from __future__ import annotations

from ..errors import ShapeError, describe_shape
from .reshaping import concatenate, expand_dims, reshape, stack
from .compare import less, logical_and, not_equal
from .core import arange, as_tensor, cast, full, stop_gradient
from .indexing import take_along_axis
from .math import add, exp, log, maximum, multiply, negative, subtract
from .where_clip import where
from ..core.op import Op, Spec, register_op
from .softmax import log_softmax
from .refused import refused

__all__ = ["ctc_loss", "ctc_decode"]

_LOG_ZERO = -1e5          # Keras's log epsilon: "impossible" stays finite


def _logsumexp(*terms):
    top = terms[0]
    for t in terms[1:]:
        top = maximum(top, t)
    top = stop_gradient(top)
    total = None
    for t in terms:
        e = exp(subtract(t, top))
        total = e if total is None else add(total, e)
    return add(top, log(total))


def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """The CTC loss per batch entry: ``-log p(target | output)`` summed over alignments.
    ``target`` (batch, max_label_length) ints, ``output`` logits (batch, time, classes).

    Args:
        target: Integer labels, shape (batch, max_label_length).
        output: Logits, shape (batch, time, classes).
        target_length: The length of each label sequence, shape (batch,).
        output_length: The length of each output sequence, shape (batch,).
        mask_index: The class index of the blank label. Defaults to 0.

    Returns:
        The loss of each batch entry, shape (batch,).
    """
    op = "ctc_loss"
    target = cast(as_tensor(op, target), "int32")
    output = as_tensor(op, output)
    if output.dtype != "float64":        # Keras: result_type(dtype, "float32")
        output = cast(output, "float32")
    if target.ndim != 2 or output.ndim != 3:
        message = (f"{op}: 'target' must be (batch, max_label_length) and 'output' "
                   f"(batch, time, classes); received shapes "
                   f"{describe_shape(target.shape)} and {describe_shape(output.shape)}")
        if not target.ndim or not output.ndim:
            raise ShapeError(message)
        # Keras's symbolic rule: one loss per entry of the batch; refused when run
        return refused(ShapeError, message, (target, output, target_length, output_length),
                       ((target.shape[0],), output.dtype))
    target_length = cast(as_tensor(op, target_length), "int32")
    output_length = cast(as_tensor(op, output_length), "int32")
    steps, labels = output.shape[1], target.shape[1]
    logp = log_softmax(output, axis=-1)
    # the label sequence with blanks around every label: (batch, 2 * labels + 1)
    blanks = add(multiply(target, 0), int(mask_index))
    ext = reshape(stack([blanks, target], axis=-1), (-1, 2 * labels))
    ext = concatenate([ext, blanks[:, :1]], axis=1)
    width = 2 * labels + 1
    # (batch, 1, width) + (1, time, 1) zeros: the labels at every step, batch size unknown
    steps_zero = reshape(multiply(arange(steps, dtype="int32"), 0), (1, steps, 1))
    emit = take_along_axis(logp, add(expand_dims(ext, 1), steps_zero), axis=2)
    # a label may follow the label two places back (skipping a blank) unless they repeat
    earlier = concatenate([ext[:, :1], ext[:, :1], ext[:, :-2]], axis=1)
    odd = cast(reshape(arange(width) % 2, (1, width)), "bool")
    skip = logical_and(odd, not_equal(ext, earlier))
    neg = full((), _LOG_ZERO, dtype=logp.dtype)
    pad1 = add(multiply(emit[:, 0, :1], 0.0), _LOG_ZERO)
    pad2 = add(multiply(emit[:, 0, :2], 0.0), _LOG_ZERO)
    start = cast(less(reshape(arange(width), (1, width)), 2), "bool")
    alpha = where(start, emit[:, 0], neg)
    for t in range(1, steps):
        one = concatenate([pad1, alpha[:, :-1]], axis=1)
        two = where(skip, concatenate([pad2, alpha[:, :-2]], axis=1), neg)
        step = add(_logsumexp(alpha, one, two), emit[:, t])
        running = expand_dims(less(t, output_length), 1)
        alpha = where(running, step, alpha)
    last = expand_dims(2 * target_length, 1)
    end = take_along_axis(alpha, last, axis=1)
    before = take_along_axis(alpha, maximum(subtract(last, 1), 0), axis=1)
    before = where(expand_dims(less(0, target_length), 1), before, neg)
    return negative(reshape(_logsumexp(end, before), (-1,)))


@register_op
class CTCDecode(Op):
    name = "ctc_decode"
    differentiable = False

    def output_spec(self, x, lengths, strategy, beam_width, top_paths, merge_repeated,
                    blank):
        batch, steps, _ = x.shape
        paths = 1 if strategy == "greedy" else top_paths
        return Spec((paths, batch, steps), "int32"), Spec((batch, paths), x.dtype)

    def forward(self, backend, x, lengths, out=None, strategy="greedy", beam_width=100,
                top_paths=1, merge_repeated=True, blank=0):
        return backend.ctc_decode(x, lengths, strategy, beam_width, top_paths,
                                  merge_repeated, blank)


def ctc_decode(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1,
               merge_repeated=True, mask_index=0):
    """Decoded label sequences (top_paths, batch, time), padded with -1, and their scores
    (batch, top_paths): greedy (score: minus the summed best inputs) or beam search over
    the log-softmax of ``inputs`` (score: the log-probability of the labelling).

    Args:
        inputs: Scores of shape (batch, time, classes); they go through log-softmax.
        sequence_lengths: The valid length of each sequence, shape (batch,).
        strategy: "greedy" (the best class at each step) or "beam_search".
        beam_width: The number of beams kept by beam search. Defaults to 100.
        top_paths: How many decodings to return (beam search). Defaults to 1.
        merge_repeated: Whether repeated labels are merged into one. Defaults to True.
        mask_index: The class index of the blank label. Defaults to 0.

    Returns:
        A pair: the decoded labels (top_paths, batch, time), padded with -1, and their
        scores (batch, top_paths).
    """
    op = "ctc_decode"
    if strategy not in ("greedy", "beam_search"):
        raise ValueError(f"{op}: Invalid strategy {strategy!r}: argument 'strategy' must "
                         f"be 'greedy' or 'beam_search'")
    inputs = as_tensor(op, inputs)
    if inputs.dtype != "float64":        # Keras: result_type(dtype, "float32")
        inputs = cast(inputs, "float32")
    if inputs.ndim != 3:
        raise ShapeError(f"{op}: argument 'inputs' must have rank 3 (batch, time, classes); "
                         f"received shape {describe_shape(inputs.shape)}")
    for arg, value in (("beam_width", beam_width), ("top_paths", top_paths)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{op}: argument '{arg}' must be a positive int; received "
                             f"{value!r}")
    if strategy == "beam_search" and top_paths > beam_width:
        raise ValueError(f"{op}: 'top_paths' ({top_paths}) must not exceed 'beam_width' "
                         f"({beam_width})")
    lengths = cast(as_tensor(op, sequence_lengths), "int32")
    return CTCDecode(inputs, lengths, strategy=strategy, beam_width=int(beam_width),
                     top_paths=int(top_paths), merge_repeated=bool(merge_repeated),
                     blank=int(mask_index))
