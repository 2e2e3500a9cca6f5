"""Which issue-9 item a failing spec belongs to, found by re-running it with one cause
taken away at a time (the items are fixed on other branches; see the test's XFAIL list):

- item 1 (updates overwrite what the backward pass still reads): the difference goes away
  when the executor runs without its memory plan (every op into fresh arrays);
- item 7 (batch sizes): it goes away when every batch has the same size;
- item 3 (two optimizers in one compiled step): a ``gan`` spec that is none of the above.
"""
from __future__ import annotations

import contextlib
from unittest import mock

from lamina.graph import executor

from .models import ModelSpec
from .repro import run_spec


@contextlib.contextmanager
def without_memory_plan():
    original = executor.Plan.__init__

    def plain(self, graph, backend, memory_plan=True, shapes=None):
        # ``shapes`` too: a TypeError here made every batch-polymorphic trace fall back to
        # a concrete one, so "without the memory plan" also meant "without polymorphism"
        original(self, graph, backend, memory_plan=False, shapes=shapes)
    with mock.patch.object(executor.Plan, "__init__", plain):
        yield


def _even_batches(spec: ModelSpec) -> ModelSpec:
    batch = max(1, spec.fit_batch or spec.train_batches[0])
    n = batch * 3
    return spec.replace(n=n, fit_batch=spec.fit_batch and batch,
                        train_batches=[batch] * len(spec.train_batches), predict_batch=batch)


def diagnose(spec: ModelSpec) -> str:
    """'item 1', 'item 7', 'item 3' or 'new' (not explained by a known item)."""
    with without_memory_plan():
        if not run_spec(spec):
            return "item 1"
    if not run_spec(_even_batches(spec)):
        return "item 7"
    if spec.kind == "gan":
        return "item 3"
    return "new"
