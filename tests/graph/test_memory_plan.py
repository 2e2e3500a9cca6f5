"""The memory plan and the executor's arena: same numbers, fewer buffers, no steady-state
allocations (issue 6: 50 steps allocate < 1% of the arena)."""
import functools
import gc
import tracemalloc

import numpy as np
import pytest

import lamina
from lamina import layers, ops, tree
from lamina.graph import function as function_module
from lamina.graph.executor import Plan
from lamina.graph.function import GraphFunction
from lamina.graph.memory_plan import MemoryReport, plan_memory
from lamina.data_adapters.device_batch import to_device
from tests.harness import _as_list, _to_tensors
from tests.ops.test_registry import all_cases
from lamina.backend import numba_chain


def _mlp(width=16, inputs=12):
    return lamina.Sequential([lamina.Input((inputs,)), layers.Dense(width, activation="relu"),
                              layers.Dense(width, activation="relu"),
                              layers.Dense(10, activation="softmax")])


def _cnn():
    return lamina.Sequential([
        lamina.Input((8, 8, 3)), layers.Conv2D(4, 3, padding="same", activation="relu"),
        layers.Conv2D(4, 3, padding="same", activation="relu"), layers.MaxPooling2D(),
        layers.Flatten(), layers.Dense(16, activation="relu"), layers.Dropout(0.3, seed=3),
        layers.Dense(10, activation="softmax")])


def _data(name, batch=16):
    rng = np.random.default_rng(0)
    shape = (batch, 8, 8, 3) if name == "cnn" else (batch, 12)
    return rng.standard_normal(shape).astype("float32"), rng.integers(0, 10, batch)


def _train(name, mode, monkeypatch, steps=4):
    """Losses and final weights of ``steps`` train_on_batch calls in one execution mode."""
    with monkeypatch.context() as patch:
        if mode == "unplanned":
            patch.setattr(function_module, "Plan", functools.partial(Plan, memory_plan=False))
        lamina.utils.set_random_seed(5)
        model = {"mlp": _mlp, "cnn": _cnn}[name]()
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"], run_eagerly=mode == "eager")
        x, y = _data(name)
        losses = [model.train_on_batch(x, y)[0] for _ in range(steps)]
        if mode != "eager":
            (_, plan), = model.train_function.function._plans.values()
            assert (plan.memory_report().values > 0) == (mode == "planned")
        return losses, model.get_weights()


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_train_steps_match_the_unplanned_plan_and_eager(name, monkeypatch):
    planned = _train(name, "planned", monkeypatch)
    unplanned = _train(name, "unplanned", monkeypatch)
    eager = _train(name, "eager", monkeypatch)
    for got, want, tolerance in ((planned, unplanned, dict(rtol=1e-6, atol=1e-7)),
                                 (planned, eager, dict(rtol=1e-4, atol=1e-5))):
        np.testing.assert_allclose(got[0], want[0], **tolerance)
        for a, b in zip(got[1], want[1]):
            np.testing.assert_allclose(a, b, **tolerance)


def _train_plan(model, x, y):
    """The compiled train step's plan and its input arrays, after a warm-up fit."""
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(x, y, batch_size=len(x), epochs=2, verbose=0)
    (graph, plan), = model.train_function.function._plans.values()
    data = to_device((x, y, None))
    arrays = [leaf.data for leaf in tree.flatten(((data,), {})) if hasattr(leaf, "data")]
    return graph, plan, arrays


def test_values_share_fewer_buffers_and_write_in_place(monkeypatch):
    # the unfused graph: compiled elementwise chains (numba) leave fewer temporaries to share
    monkeypatch.setattr(lamina.backend.get_backend(), "compiled_chains", False)
    x, y = _data("mlp", 32)
    _, plan, _ = _train_plan(_mlp(), x, y)
    report = plan.memory_report()
    assert isinstance(report, MemoryReport)
    assert report.buffers < report.values
    assert report.reuse_ratio > 2
    assert report.arena_bytes < report.naive_bytes
    assert report.inplace > 0
    assert len(plan.arena) == report.buffers
    assert "buffers" in str(report) and "MiB" in str(report)


def test_fifty_training_steps_allocate_under_one_percent_of_the_arena(monkeypatch):
    # the executor's own allocations: numba's dispatch state for compiled elementwise
    # chains (about 14 KB, reached in the first steps and then flat) is checked apart, in
    # tests/backend/test_numba_chain.py
    monkeypatch.setattr(lamina.backend.get_backend(), "compiled_chains", False)
    # issue 6's figure: MLP 784-512-512-10, batch 128, Adam; the executor's own steps
    rng = np.random.default_rng(0)
    x = rng.standard_normal((128, 784)).astype("float32")
    y = rng.integers(0, 10, 128)
    lamina.utils.set_random_seed(0)
    _, plan, arrays = _train_plan(_mlp(512, 784), x, y)
    arena = plan.memory_report().arena_bytes
    # Warm-up: besides the first steps' own allocations, numpy's ctypes machinery (the
    # oneDNN GEMM passes array addresses through ndarray.ctypes) fills caches over the first
    # few dozen calls of a process. After 2 steps this test failed when run alone or early
    # in a pytest-xdist worker (12-18 KB left, over the 12 KB bound); it passed only where
    # earlier tests had warmed them. After 30, 5-6 KB are left.
    for _ in range(30):
        plan(arrays)
    numba_chain.wait_for_compiles(120)   # a compile on the worker thread allocates too
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        before = _held(tracemalloc.take_snapshot())
        tracemalloc.reset_peak()
        for _ in range(50):
            plan(arrays)
        gc.collect()           # empties CPython's free lists, which tracemalloc counts
        _, peak = tracemalloc.get_traced_memory()
        held = _held(tracemalloc.take_snapshot()) - before
    finally:
        tracemalloc.stop()
    # what is left: numpy's ufunc iteration buffers (8192 elements) for broadcasting and
    # casting ufuncs, and the small label-gather arrays of the loss
    assert peak - base < 0.01 * arena, (peak - base, arena)
    assert held < 0.001 * arena, (held, arena)


def _held(snapshot) -> int:
    """Bytes traced, without those allocated inside the ctypes call into oneDNN's sgemm:
    CPython's ctypes holds 5-18 KB more after 50 such steps, by the run, and 27 KB after
    2,000 (not the executor's: this test failed one run in three on them, alone)."""
    kept = snapshot.filter_traces([tracemalloc.Filter(False, "*/dnnl_matmul.py")])
    return sum(stat.size for stat in kept.statistics("filename"))


def test_outputs_survive_the_next_call():
    @lamina.jit
    def f(x):
        h = ops.exp(ops.multiply(x, 2.0))                 # planned intermediates
        return ops.reshape(ops.add(h, 1.0), (-1,)), ops.sum(h)   # a view of h's buffer?
    a = ops.convert_to_tensor(np.arange(6, dtype="float32").reshape(2, 3) / 10)
    first = [t.numpy().copy() for t in f(a)]
    kept = f(a)
    f(ops.convert_to_tensor(np.zeros((2, 3), "float32")))
    for got, want in zip(kept, first):
        np.testing.assert_array_equal(got.numpy(), want)


def test_a_returned_view_of_an_arena_buffer_is_copied():
    @lamina.jit(passes=[])
    def f(x):
        return ops.stop_gradient(ops.exp(x))           # the output aliases a planned value
    a = ops.convert_to_tensor(np.ones(3, "float32"))
    kept = f(a)
    f(ops.convert_to_tensor(np.zeros(3, "float32")))
    np.testing.assert_allclose(kept.numpy(), np.exp(np.ones(3)), rtol=1e-6)
    (_, plan), = f._plans.values()
    assert plan.copied_outputs == [0] and plan.memory_report().values == 1


def test_a_call_while_the_plan_runs_does_not_touch_the_arena():
    f = lamina.jit(lambda x: ops.sum(ops.square(ops.add(x, 1.0))))
    a = ops.convert_to_tensor(np.ones(4, "float32"))
    f(a)
    (_, plan), = f._plans.values()
    before = [buffer.copy() for buffer in plan.arena]
    with plan._lock:                                  # as if another thread were running it
        assert float(f(ops.convert_to_tensor(np.full(4, 3.0, "float32"))).numpy()) == 64.0
    for buffer, old in zip(plan.arena, before):
        np.testing.assert_array_equal(buffer, old)


@pytest.mark.parametrize("c", [c for c in all_cases()
                               if getattr(ops.OP_REGISTRY.get(c.op), "writes_out", False)],
                         ids=str)
def test_ops_that_write_out_give_eager_numbers_from_planned_buffers(c):
    # every harness case of a writes_out op, traced with its results as intermediates
    xs = _to_tensors(c.inputs, "float32")
    expected = [np.asarray(o.numpy()) for o in _as_list(c.fn(*xs))]
    fn = GraphFunction(lambda *a: [ops.stop_gradient(o) for o in _as_list(c.fn(*a))],
                       passes=[])
    first = [np.asarray(o.numpy()) for o in fn(*xs)]
    again = [np.asarray(o.numpy()) for o in fn(*xs)]
    for got, second, want in zip(first, again, expected):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
        np.testing.assert_array_equal(second, got)


# --------------------------------------------------------------------------- planner rules
class _Op:
    def __init__(self, writes_out=True, inplace=False):
        self.writes_out, self.inplace = writes_out, inplace


F = ((4, 4), "float32")
ELEMENTWISE, GEMM, VIEW = _Op(inplace=True), _Op(), _Op(writes_out=False)


def test_an_elementwise_op_writes_over_an_input_that_dies_there():
    # 0 = input; 1 = gemm(0); 2 = relu(1) in place; 3 = gemm(2) (output, external)
    plan = plan_memory([(GEMM, (0,), (1,)), (ELEMENTWISE, (1,), (2,)), (GEMM, (2,), (3,))],
                       {1: F, 2: F, 3: F}, external={0, 3}, keep={3})
    assert plan.assignment == {1: 0, 2: 0} and plan.inplace == 1
    assert 3 not in plan.assignment and len(plan.buffers) == 1


def test_a_live_input_is_never_overwritten_and_a_gemm_never_writes_in_place():
    # 1 is read again at step 2, so step 1 cannot write over it; a gemm never works in place
    schedule = [(GEMM, (0,), (1,)), (ELEMENTWISE, (1,), (2,)), (GEMM, (1, 2), (3,)),
                (GEMM, (3,), (4,))]
    plan = plan_memory(schedule, {1: F, 2: F, 3: F, 4: F}, external={0, 4}, keep={4})
    assert len({plan.assignment[s] for s in (1, 2, 3)}) == 3
    assert plan.inplace == 0


def test_a_view_keeps_its_buffer_alive_and_freed_buffers_are_reused():
    # 2 = view(1) read at step 3: 1's buffer stays out of the pool until then
    schedule = [(GEMM, (0,), (1,)), (VIEW, (1,), (2,)), (GEMM, (0,), (3,)),
                (GEMM, (2, 3), (4,)), (GEMM, (4,), (5,)), (GEMM, (5,), (6,))]
    specs = {s: F for s in range(1, 7)}
    plan = plan_memory(schedule, specs, external={0, 6}, keep={6})
    assert plan.assignment[3] != plan.assignment[1]
    assert plan.assignment[5] in (plan.assignment[1], plan.assignment[3])   # reused
    assert 2 in plan.aliasing and 2 not in plan.assignment


def test_a_view_read_with_its_base_blocks_writing_in_place():
    schedule = [(GEMM, (0,), (1,)), (VIEW, (1,), (2,)), (ELEMENTWISE, (1, 2), (3,)),
                (GEMM, (3,), (4,))]
    plan = plan_memory(schedule, {s: F for s in range(1, 5)}, external={0, 4}, keep={4})
    assert plan.inplace == 0 and plan.assignment[3] != plan.assignment[1]


def test_update_values_live_to_the_end_and_outputs_are_not_planned():
    schedule = [(GEMM, (0,), (1,)), (ELEMENTWISE, (1,), (2,)), (GEMM, (0,), (3,))]
    plan = plan_memory(schedule, {1: F, 2: F, 3: F}, external={0, 3}, keep={1, 3})
    assert plan.assignment[2] != plan.assignment[1] and 3 not in plan.assignment
