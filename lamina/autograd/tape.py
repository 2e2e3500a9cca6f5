"""Reverse-mode autodiff on a tape, in TensorFlow's shape.

``with GradientTape() as tape: loss = f(w)`` records every op whose inputs the tape
watches (trainable variables are watched automatically; other tensors with
``tape.watch``). ``tape.gradient(loss, [w])`` walks the records backwards calling each op's
``gradient``, which is written with ops: if an outer tape is recording, the backward pass
is recorded too, which gives second derivatives.

Tapes are per thread, as in TensorFlow: a tape records the ops run by the thread that
entered it, and ``no_grad`` pauses recording in its own thread only.
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any

from .. import ops, tree
from ..errors import GradientError
from ..core import mode
from ..core.op import Context
from ..core.tensor import TensorBase
from ..core.variable import Variable


class _ThreadState(threading.local):
    """This thread's tapes inside their `with` block (innermost last) and no_grad depth."""

    def __init__(self):
        self.tapes: list["GradientTape"] = []
        self.no_grad_depth = 0


_state = _ThreadState()


def recording() -> bool:
    """Whether any tape of this thread would record an op now."""
    return bool(_state.tapes) and _state.no_grad_depth == 0


class _Record:
    # ``versions``: (variable, version) for each Variable input when recorded, so that a
    # variable changed in place before the backward pass is an error, not a wrong gradient.
    __slots__ = ("op", "ctx", "versions")

    def __init__(self, op, ctx, versions=()):
        self.op = op
        self.ctx = ctx
        self.versions = versions

    def check_versions(self) -> None:
        for variable, version in self.versions:
            if variable._version != version:
                raise GradientError(
                    f"GradientTape.gradient: variable '{variable.name}' was read by op "
                    f"'{self.op.name}' and then changed in place (assign) before the "
                    f"gradient was computed; compute gradients before updating variables "
                    f"(e.g. call optimizer.apply_gradients after tape.gradient)")


class GradientTape:
    """Records ops for automatic differentiation.

    Args:
        persistent: allow several ``gradient`` calls on one tape.
        watch_accessed_variables: watch every trainable Variable an op reads.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self._watched: dict[int, TensorBase] = {}
        self._records: list[_Record] = []
        self._recording = False
        self._used = False

    def __enter__(self) -> "GradientTape":
        self._recording = True
        _state.tapes.append(self)
        return self

    def __exit__(self, *exc) -> None:
        self._recording = False
        if self in _state.tapes:
            _state.tapes.remove(self)

    def watch(self, tensor) -> None:
        """Differentiate with respect to ``tensor`` (or each tensor of a nested structure)."""
        for t in tree.flatten(tensor):
            if not isinstance(t, TensorBase):
                raise TypeError(f"GradientTape.watch: expected tensors; received {type(t).__name__}")
            self._watched[id(t)] = t

    def watched_variables(self) -> list[Variable]:
        return [t for t in self._watched.values() if isinstance(t, Variable)]

    def reset(self) -> None:
        """Forget everything recorded so far."""
        self._records.clear()
        self._watched.clear()

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run inside this block are not recorded by this tape."""
        was = self._recording
        self._recording = False
        try:
            yield
        finally:
            self._recording = was

    # called by the eager dispatcher for every differentiable op while recording
    def _maybe_record(self, op, inputs, outputs, attrs) -> None:
        watched = self._watched
        needs = []
        any_needed = False
        for t in inputs:
            hit = id(t) in watched
            if not hit and self.watch_accessed_variables and type(t) is Variable and t.trainable:
                watched[id(t)] = t
                hit = True
            needs.append(hit)
            any_needed = any_needed or hit
        if not any_needed:
            return
        for o in outputs:
            watched[id(o)] = o
        versions = tuple((t, t._version) for t in inputs if isinstance(t, Variable))
        self._records.append(_Record(op, Context(inputs, outputs, attrs, tuple(needs)),
                                     versions))

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients: str = "none"):
        """d(sum of ``target``)/d(each source), in the structure of ``sources``.

        A source that ``target`` does not depend on gets None (or zeros with
        ``unconnected_gradients="zero"``).
        """
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError("GradientTape.gradient: argument 'unconnected_gradients' must be "
                             f"'none' or 'zero'; received {unconnected_gradients!r}")
        if self._used and not self.persistent:
            raise GradientError("GradientTape.gradient can only be called once on a "
                                "non-persistent tape; create it with persistent=True to "
                                "call it several times")
        targets = tree.flatten(target)
        flat_sources = tree.flatten(sources)
        for s in flat_sources:
            if not isinstance(s, TensorBase):
                raise TypeError("GradientTape.gradient: 'sources' must be tensors or "
                                f"variables; received {type(s).__name__}")
        seeds = tree.flatten(output_gradients) if output_gradients is not None else [None] * len(targets)
        if len(seeds) != len(targets):
            raise ValueError(f"GradientTape.gradient: got {len(seeds)} output_gradients for "
                             f"{len(targets)} targets")
        recording = mode.active_trace()
        if recording is not None:         # compiling: differentiate the recorded graph
            symbols = [recording.read(s) if isinstance(s, Variable) else s
                       for s in flat_sources]
            result = mode.engines.gradients(targets, symbols, seeds)   # lamina/graph's
            if unconnected_gradients == "zero":
                result = [ops.zeros_like(s) if g is None else g
                          for s, g in zip(symbols, result)]
            return tree.pack_sequence_as(sources, result)
        grads: dict[int, Any] = {}
        for t, seed in zip(targets, seeds):
            g = ops.ones_like(t) if seed is None else ops.convert_to_tensor(seed, dtype=t.dtype)
            _accumulate(grads, t, g)

        with self.stop_recording():
            for record in reversed(self._records):
                ctx = record.ctx
                out_grads = [grads.get(id(o)) for o in ctx.outputs]
                if all(g is None for g in out_grads):
                    continue
                out_grads = [ops.zeros_like(o) if g is None else g
                             for o, g in zip(ctx.outputs, out_grads)]
                record.check_versions()
                in_grads = record.op.gradient(ctx, *out_grads)
                if not isinstance(in_grads, (tuple, list)):
                    in_grads = (in_grads,)
                if len(in_grads) != len(ctx.inputs):
                    raise GradientError(f"op {record.op.name!r}: gradient returned "
                                        f"{len(in_grads)} values for {len(ctx.inputs)} inputs")
                for x, g, need in zip(ctx.inputs, in_grads, ctx.needs_grad):
                    if need and g is not None:
                        _accumulate(grads, x, g)

        if not self.persistent:
            self._used = True
            self._records = []
        result = []
        for s in flat_sources:
            g = grads.get(id(s))
            if g is None and unconnected_gradients == "zero":
                g = ops.zeros_like(s)
            result.append(g)
        return tree.pack_sequence_as(sources, result)


def _accumulate(grads: dict, x, g) -> None:
    previous = grads.get(id(x))
    if previous is None:
        grads[id(x)] = g
    else:
        grads[id(x)] = ops.add(previous, g)


class no_grad(contextlib.ContextDecorator):
    """Run a block (or a decorated function) without recording anything on any tape."""

    def __enter__(self):
        _state.no_grad_depth += 1
        return self

    def __exit__(self, *exc):
        _state.no_grad_depth -= 1
        return False
