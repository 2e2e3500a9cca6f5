"""Threads: tapes and traces belong to the thread that opened them, and compiled plans give
the serial results when several threads call them (or other plans) at once."""
import sys
import threading

import numpy as np
import pytest
import lamina
from lamina import layers, ops
from lamina.graph import trace as tracing
from lamina.core.symbolic import SymbolicTensor

TIMEOUT = 60


@pytest.fixture
def often_switching_threads():
    """Switch threads every few microseconds, so that traces and steps interleave."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def _run_threads(*targets):
    """Run each target in its own thread, started together; re-raise the first error."""
    errors = []
    barrier = threading.Barrier(len(targets))

    def wrap(target):
        def run():
            try:
                barrier.wait(TIMEOUT)
                target()
            except BaseException as error:          # reported in the main thread
                errors.append(error)
        return run
    threads = [threading.Thread(target=wrap(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    assert not any(t.is_alive() for t in threads), "a thread did not finish"
    if errors:
        raise errors[0]


def _in_order(first, second):
    """Run ``first(step)`` and ``second(step)`` in two threads; ``step(n)`` waits until
    both threads reached their step ``n`` (a lock-step schedule, so interleavings are
    deterministic)."""
    barrier = threading.Barrier(2)

    def step(_):
        barrier.wait(TIMEOUT)
    _run_threads(lambda: first(step), lambda: second(step))


# --------------------------------------------------------------------------- tapes
def test_a_tape_does_not_record_ops_run_in_another_thread():
    w = lamina.Variable(np.array([1.0, 2.0], "float32"))
    seen = {}

    def with_tape(step):
        with lamina.GradientTape(persistent=True) as tape:
            step(1)                                     # the other thread computes now
            step(2)
            mine = ops.sum(ops.square(w))
        seen["mine"] = tape.gradient(mine, w)
        seen["theirs"] = tape.gradient(seen["other"], w)

    def other(step):
        step(1)
        seen["other"] = ops.sum(ops.multiply(w, 3.0))   # while the tape is open
        step(2)
    _in_order(with_tape, other)
    np.testing.assert_allclose(seen["mine"].numpy(), [2.0, 4.0])
    assert seen["theirs"] is None


def test_no_grad_in_one_thread_does_not_stop_a_tape_in_another():
    w = lamina.Variable(np.array([1.0, 2.0], "float32"))
    seen = {}

    def with_tape(step):
        with lamina.GradientTape() as tape:
            step(1)                                     # the other thread is in no_grad
            loss = ops.sum(ops.square(w))
            step(2)
        seen["grad"] = tape.gradient(loss, w)

    def without_gradients(step):
        with lamina.autograd.no_grad():
            step(1)
            step(2)
    _in_order(with_tape, without_gradients)
    np.testing.assert_allclose(seen["grad"].numpy(), [2.0, 4.0])


# --------------------------------------------------------------------------- traces
def test_a_trace_ending_in_one_thread_does_not_end_another_threads_trace():
    v = lamina.Variable(np.ones(3, "float32"))
    seen = {}

    def first(step):
        with tracing.tracing_into(tracing.Trace()):
            step(1)
            step(2)                                     # the second thread traces too
        step(3)                                         # ended here

    def second(step):
        step(1)
        with tracing.tracing_into(tracing.Trace()) as trace:
            step(2)
            step(3)
            seen["value"] = ops.add(v, 1.0)             # must read v symbolically
            seen["trace"] = trace
    _in_order(first, second)
    assert isinstance(seen["value"], SymbolicTensor)
    assert id(v) in seen["trace"].placeholders


def test_ops_in_another_thread_run_eagerly_while_a_thread_traces():
    v = lamina.Variable(np.ones(3, "float32"))
    seen = {}

    def tracer(step):
        with tracing.tracing_into(tracing.Trace()):
            step(1)
            step(2)

    def eager(step):
        step(1)
        seen["value"] = ops.add(v, 1.0)
        step(2)
    _in_order(tracer, eager)
    np.testing.assert_array_equal(seen["value"].numpy(), [2.0, 2.0, 2.0])


# --------------------------------------------------------------------------- models
def _mlp(seed):
    lamina.utils.set_random_seed(seed)
    return lamina.Sequential([lamina.Input((6,)), layers.Dense(16, activation="relu"),
                              layers.Dense(3, activation="softmax")])


def _data(seed=0, n=64):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 6)).astype("float32"), rng.integers(0, 3, n)


def _predict_batches(model, x):
    """predict_on_batch over batches of 1 to 16 rows (a new signature traces a new graph,
    so several threads trace at once)."""
    return [model.predict_on_batch(x[:size]) for size in range(1, 17)]


@pytest.mark.filterwarnings("ignore:lamina.jit")
def test_predicting_from_four_threads_gives_the_serial_results(often_switching_threads):
    x, _ = _data()
    serial = _predict_batches(_mlp(1), x)
    model = _mlp(1)                                     # fresh: the threads trace at once
    results = [None] * 4

    def predict(k):
        def run():
            results[k] = _predict_batches(model, x)
        return run
    _run_threads(*[predict(k) for k in range(4)])
    for per_thread in results:
        for got, want in zip(per_thread, serial):
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    # the compiled steps read the weights at every call (nothing was baked in by a race)
    model.set_weights([w * 0.5 for w in model.get_weights()])
    halved = _mlp(1)
    halved.set_weights([w * 0.5 for w in halved.get_weights()])
    for got, want in zip(_predict_batches(model, x), _predict_batches(halved, x)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def _fit(model, x, y):
    model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    return model.get_weights()


def _compiled(seed):
    model = _mlp(seed)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    return model


@pytest.mark.filterwarnings("ignore:lamina.jit")
def test_predicting_in_one_thread_while_another_fits_gives_the_serial_results(
        often_switching_threads):
    x, y = _data()
    serial_weights = _fit(_compiled(2), x, y)
    serial_predictions = _predict_batches(_mlp(3), x)

    trained, predicted = _compiled(2), _mlp(3)          # fresh: both threads trace at once
    seen = {}

    def fit():
        seen["weights"] = _fit(trained, x, y)

    def predict():
        seen["predictions"] = _predict_batches(predicted, x) + _predict_batches(predicted, x)
    _run_threads(fit, predict)
    for got, want in zip(seen["weights"], serial_weights):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    for got, want in zip(seen["predictions"], serial_predictions * 2):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


# --------------------------------------------------------------------------- executor lock
def test_a_replaced_variable_buffer_is_bound_and_the_arena_is_used_again():
    v = lamina.Variable(np.zeros(4, "float32"))

    @lamina.jit
    def step(x):
        h = ops.exp(ops.multiply(x, 2.0))               # a planned intermediate
        v.assign(ops.add(v, x))                         # written into v in place
        return ops.sum(h)
    x = ops.convert_to_tensor(np.ones(4, "float32"))
    step(x)
    (_, plan), = step._plans.values()
    assert plan.direct_updates == {id(v)} and plan.memory_report().values >= 1

    v.data = v.data.copy()                              # a new buffer (same values)
    replaced = v.data
    step(x)
    assert not plan._lock.locked()                      # released after rebinding
    assert v.data is replaced
    np.testing.assert_array_equal(replaced, [2.0, 2.0, 2.0, 2.0])

    three = np.full(4, 3.0, "float32")
    got = step(ops.convert_to_tensor(three))
    np.testing.assert_allclose(float(got.numpy()), 4 * np.exp(6.0), rtol=1e-6)
    np.testing.assert_array_equal(replaced, [5.0, 5.0, 5.0, 5.0])
    # the call ran on the arena path: the planned intermediate is in the arena
    assert any(np.allclose(buffer, np.exp(2 * three), rtol=1e-6) for buffer in plan.arena)
    assert plan.direct_updates == {id(v)}


def test_a_replaced_buffer_that_cannot_be_written_into_gets_a_commit():
    v = lamina.Variable(np.zeros(4, "float32"))
    step = lamina.jit(lambda x: (v.assign(ops.add(v, x)), ops.sum(x))[1])
    x = ops.convert_to_tensor(np.ones(4, "float32"))
    step(x)
    (_, plan), = step._plans.values()
    assert plan.direct_updates == {id(v)}
    v.data = np.zeros(8, "float32")[::2]                # not C-contiguous: no out= for it
    step(x)
    step(x)
    np.testing.assert_array_equal(v.numpy(), [2.0, 2.0, 2.0, 2.0])
    assert not plan._lock.locked() and plan.direct_updates == set()
