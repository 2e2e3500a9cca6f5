"""The numpy backend's compiled elementwise chains (lamina/backend/numba_chain.py, extra
``numba``): every compiled step gives numpy's bits, on the flat-loop and the ufunc paths,
with the output aliasing an input or not; the fusion pass fuses only what compiles; the
disk cache serves a second process; graph mode with chains still equals eager."""
import os
import subprocess
import sys
import textwrap

import threading

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backend import numba_chain
from lamina.graph.passes.fuse_elementwise import fuse_elementwise
from tests.graph.passes.jit_compare import op_counts, tensors

pytestmark = [pytest.mark.skipif(not numba_chain.available(),
                                 reason="numba is not installed (pip install lamina[numba])"),
              pytest.mark.chain_kernels_as_configured]      # tests/conftest.py

@pytest.fixture(autouse=True)
def _compile_at_once(monkeypatch):
    """Compile on a program's first call (in use: after COMPILE_AFTER calls)."""
    monkeypatch.setattr(numba_chain, "COMPILE_AFTER", 1)


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, np.inf, -np.inf, np.nan, 1e-30, -2.5e30, 7e-39]


def _operands(dtype, n=4096, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n).astype(dtype) * 10
    b = rng.standard_normal(n).astype(dtype)
    a[:len(SPECIAL)] = SPECIAL
    b[len(SPECIAL):2 * len(SPECIAL)] = SPECIAL
    b[:len(SPECIAL)] = SPECIAL[::-1]
    return a, b


def _numpy_step(backend, name, args):
    if name == "relu":
        return backend.binary("multiply", args[0], backend.binary("greater", args[0], 0))
    if len(args) == 1:
        return backend.unary(name, args[0])
    return backend.binary(name, *args)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(numba_chain.STEPS))
def test_every_compiled_step_gives_numpys_bits(name, dtype):
    backend = lamina.backend.get_backend()
    a, b = _operands(dtype)
    arity = 1 if name not in ("add", "subtract", "multiply", "divide") else 2
    refs = (("x", 0),) if arity == 1 else (("x", 0), ("x", 1))
    # the step, then times a constant that float32 cannot hold exactly
    program = ((name, refs), ("multiply", (("t", 0), ("c", 0.1))))
    inputs = (a,) if arity == 1 else (a, b)
    with np.errstate(all="ignore"):
        want = backend.binary("multiply", _numpy_step(backend, name, inputs),
                              np.asarray(0.1, dtype))
        flat = numba_chain.run(program, inputs)
        ufunc = numba_chain.run(program, tuple(x.reshape(64, 64)[:, None, :] for x in inputs))
    np.testing.assert_array_equal(flat, want)
    np.testing.assert_array_equal(ufunc.reshape(-1), want)
    assert flat.dtype == want.dtype == dtype


ADAM_VALUE = (("multiply", (("x", 0), ("x", 1))), ("sqrt", (("x", 2),)),
              ("add", (("t", 1), ("c", 1e-7))), ("divide", (("t", 0), ("t", 2))),
              ("subtract", (("x", 3), ("t", 3))))


def _adam_reference(m, lr, v, w):
    return w - (m * lr) / (np.sqrt(v) + np.asarray(1e-7, w.dtype))


@pytest.mark.parametrize("where", ["fresh", "distinct", "aliased", "overlapping"])
def test_outputs_fresh_distinct_aliased_or_overlapping(where):
    rng = np.random.default_rng(1)
    m, v, w = (rng.random((48, 40)).astype("float32") for _ in range(3))
    lr = np.asarray(np.float32(1e-3))
    want = _adam_reference(m, lr, v, w)
    if where == "fresh":
        got = numba_chain.run(ADAM_VALUE, (m, lr, v, w))
    elif where == "distinct":
        out = np.empty_like(w)
        got = numba_chain.run(ADAM_VALUE, (m, lr, v, w), out)
        assert got is out
    elif where == "aliased":                       # the optimizer's in-place update
        got = numba_chain.run(ADAM_VALUE, (m, lr, v, w), w)
        assert got is w
    else:                                          # out shifted by one row over w
        big = np.concatenate([w, w[:1]])
        w_view, out = big[:-1], big[1:]
        got = numba_chain.run(ADAM_VALUE, (m, lr, v, w_view), out)
        assert got is out
    np.testing.assert_array_equal(got, want)


def test_transcendental_steps_are_not_compiled():
    assert numba_chain.compiles(ADAM_VALUE)
    for name in ("exp", "log", "tanh", "sigmoid", "erf", "power", "maximum", "sign", "round"):
        assert not numba_chain.compiles(((name, (("x", 0),)),))
        assert name not in numba_chain.STEPS
    with pytest.raises(ValueError, match=r"no exactly rounded numba form for step 1 \('exp'\)"):
        numba_chain.python_source((("negative", (("x", 0),)), ("exp", (("t", 0),))), 1,
                                  "float32")
    with pytest.raises(ValueError, match=r"numba kernels take .* received 'float16'"):
        numba_chain.python_source(ADAM_VALUE, 4, "float16")


def _mixed(x, y):
    adam_like = ops.subtract(y, ops.divide(ops.multiply(x, 0.5), ops.add(ops.sqrt(y), 1e-7)))
    soft = ops.multiply(ops.tanh(ops.add(x, y)), 2.0)            # tanh: not compiled
    return adam_like, soft


def test_the_default_pipeline_fuses_only_compiled_chains_on_numpy():
    args = tensors(np.linspace(-2, 2, 24, dtype="float32").reshape(4, 6),
                   np.linspace(0.1, 2, 24, dtype="float32").reshape(4, 6))
    graph = lamina.jit(_mixed).trace(*args)
    counts = op_counts(graph)
    assert counts["elementwise_chain"] == 1 and counts["tanh"] == 1, dict(counts)
    chain = next(n for n in graph.nodes if n.op.name == "elementwise_chain")
    assert {name for name, _ in chain.attrs["program"]} == {"multiply", "sqrt", "add",
                                                           "divide", "subtract"}
    eager = _mixed(*args)
    graphed = lamina.jit(_mixed)(*args)
    for g, e in zip(graphed, eager):
        np.testing.assert_array_equal(g.numpy(), e.numpy())


def test_turned_off_nothing_is_fused(monkeypatch):
    backend = lamina.backend.get_backend()
    monkeypatch.setattr(backend, "compiled_chains", False)
    args = tensors(np.ones((2, 3), "float32"), np.ones((2, 3), "float32"))
    graph = lamina.jit(_mixed, passes=[]).trace(*args)
    before = len(graph.nodes)
    assert fuse_elementwise(graph) is graph and len(graph.nodes) == before
    assert not backend.compiles_chain(ADAM_VALUE)


def test_adam_training_in_graph_mode_equals_eager_bit_for_bit():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((96, 20)).astype("float32")
    y = rng.integers(0, 4, 96)

    def train(eager):
        lamina.utils.set_random_seed(0)
        model = lamina.Sequential([lamina.Input((20,)),
                                   lamina.layers.Dense(16, activation="relu"),
                                   lamina.layers.Dense(4)])
        model.compile(optimizer=lamina.optimizers.Adam(1e-2), run_eagerly=eager,
                      loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True))
        history = model.fit(x, y, batch_size=32, epochs=2, verbose=0, shuffle=False)
        return history.history["loss"], model.get_weights(), model

    graph_loss, graph_weights, model = train(False)
    eager_loss, eager_weights, _ = train(True)
    assert graph_loss == eager_loss
    for g, e in zip(graph_weights, eager_weights):
        np.testing.assert_array_equal(g, e)
    plan_graph = next(iter(model.train_function.function._plans.values()))[0]
    assert op_counts(plan_graph)["elementwise_chain"] >= 3 * len(model.trainable_variables)


_SECOND_PROCESS = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    from lamina.backend import numba_chain
    numba_chain.COMPILE_AFTER = 1
    program = (("multiply", (("x", 0), ("c", 0.25))), ("add", (("t", 0), ("x", 1))))
    start = time.perf_counter()
    flat = numba_chain.kernel(program, 2, "float32", ("a", "a"))
    out = np.empty(3, "float32")
    flat(np.ones(3, "float32"), np.ones(3, "float32"), out)
    print(json.dumps({"hits": sum(flat.stats.cache_hits.values()),
                      "misses": sum(flat.stats.cache_misses.values()),
                      "seconds": time.perf_counter() - start, "out": out.tolist()}))
""")


def _second_process(cache):
    env = dict(os.environ, LAMINA_CACHE_DIR=str(cache), PYTHONPATH=ROOT)
    done = subprocess.run([sys.executable, "-c", _SECOND_PROCESS], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    import json
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_process_loads_the_kernel_from_the_disk_cache(tmp_path):
    first = _second_process(tmp_path)
    assert first["misses"] == 1 and first["out"] == [1.25] * 3
    files = os.listdir(tmp_path / "numba_chains")
    assert any(f.startswith("chain_") and f.endswith(".py") for f in files), files
    second = _second_process(tmp_path)
    assert second["hits"] == 1 and second["misses"] == 0 and second["out"] == [1.25] * 3


def test_an_unwritable_cache_compiles_in_memory(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(blocker))
    program = (("multiply", (("x", 0), ("c", 3.0))), ("subtract", (("t", 0), ("x", 0))))
    monkeypatch.setattr(numba_chain, "_kernels", {})
    got = numba_chain.run(program, (np.arange(5, dtype="float64"),))
    np.testing.assert_array_equal(got, np.arange(5) * 2.0)


_SIZE_LIMITED = textwrap.dedent("""
    import resource, signal
    import numpy as np
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)       # writes past the limit fail instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))
    from lamina.backend import numba_chain
    numba_chain.COMPILE_AFTER = 1
    program = (("multiply", (("x", 0), ("c", 0.5))), ("add", (("t", 0), ("x", 1))))
    out = numba_chain.run(program, (np.ones(4, "float32"), np.ones(4, "float32")))
    print(out.tolist())
""")


def test_a_cache_that_cannot_take_the_machine_code_compiles_in_memory(tmp_path):
    """A file size limit (or a full disk) lets the source file through but not numba's
    cache files: the kernel still compiles and runs."""
    env = dict(os.environ, LAMINA_CACHE_DIR=str(tmp_path), PYTHONPATH=ROOT)
    done = subprocess.run([sys.executable, "-c", _SIZE_LIMITED], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[1.5, 1.5, 1.5, 1.5]"


def test_a_program_compiles_only_after_its_first_calls(monkeypatch):
    monkeypatch.setattr(numba_chain, "COMPILE_AFTER", 3)
    monkeypatch.setattr(numba_chain, "_calls", {})
    program = (("add", (("x", 0), ("c", 2.0))), ("multiply", (("t", 0), ("x", 0))))
    x = np.arange(6, dtype="float32")
    assert numba_chain.run(program, (x,)) is None
    assert numba_chain.run(program, (x,)) is None
    np.testing.assert_array_equal(numba_chain.run(program, (x,)), (x + 2) * x)
    backend = lamina.backend.get_backend()          # the backend runs the early calls
    monkeypatch.setattr(numba_chain, "_calls", {})
    for _ in range(4):
        np.testing.assert_array_equal(backend.elementwise_chain(program, (x,)), (x + 2) * x)


def test_compiled_training_steps_hold_no_growing_memory():
    """After warm-up, more steps of a plan with compiled chains keep no memory that grows
    with the calls: a third round of 60 steps adds under 8 KB, where a leak of one small
    object (56 bytes) per chain call would add 60 steps x 12 chains x 56 B = 40 KB. (What
    remains is pymalloc and numba's dispatch bookkeeping: 1.6-2.9 KB, shrinking round by
    round.)"""
    import gc
    import tracemalloc
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 30)).astype("float32")
    y = rng.integers(0, 4, 64)
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((30,)), lamina.layers.Dense(16, activation="relu"),
                               lamina.layers.Dense(4)])
    model.compile(optimizer="adam",
                  loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True))
    for _ in range(10):
        model.train_on_batch(x, y)
    numba_chain.wait_for_compiles(120)   # a compile on the worker thread allocates too
    tracemalloc.start()
    try:
        rounds = []
        for _ in range(3):
            for _ in range(60):
                model.train_on_batch(x, y)
            gc.collect()
            rounds.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    assert rounds[2] - rounds[1] < 8192, rounds


def test_read_only_inputs_take_the_ufunc():
    """A read-only array (a constant the graph holds) is another numba type than the loop's
    signature: it runs through the ufunc, with the same bits."""
    rng = np.random.default_rng(5)
    m, v, w = (rng.random((8, 6)).astype("float32") for _ in range(3))
    lr = np.asarray(np.float32(1e-3))
    v.flags.writeable = False
    want = _adam_reference(m, lr, v, w)
    np.testing.assert_array_equal(numba_chain.run(ADAM_VALUE, (m, lr, v, w)), want)
    np.testing.assert_array_equal(numba_chain.run(ADAM_VALUE, (m, lr, v, w), w), want)


def test_a_plan_compiles_its_chains_on_a_worker_thread(monkeypatch, tmp_path):
    """A plan step holds a BoundChain: step by step for its first BACKGROUND_AFTER - 1
    runs, then the kernel compiles on the worker thread (runs go on step by step, same
    numbers) and later runs use it (the eager counter is not consulted). A kernel already in
    the disk cache is loaded from the first run."""
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_chain, "_calls", {})
    monkeypatch.setattr(numba_chain, "_kernels", {})
    threads = []
    monkeypatch.setattr(numba_chain, "kernel", lambda *key, _k=numba_chain.kernel: (
        threads.append(threading.current_thread().name), _k(*key))[1])

    def make():
        @lamina.jit
        def f(x, y):
            return ops.subtract(y, ops.divide(ops.multiply(x, 0.5),
                                              ops.add(ops.sqrt(y), 1e-7)))
        return f
    f = make()
    args = tensors(np.linspace(-2, 2, 12, dtype="float32"), np.linspace(0.1, 2, 12,
                                                                           dtype="float32"))
    x, y = (a.numpy() for a in args)
    want = y - (x * np.float32(0.5)) / (np.sqrt(y) + np.float32(1e-7))
    for _ in range(numba_chain.BACKGROUND_AFTER - 1):
        np.testing.assert_array_equal(f(*args).numpy(), want)
    assert threads == []                                      # nothing compiled yet
    np.testing.assert_array_equal(f(*args).numpy(), want)     # starts the compile
    numba_chain.wait_for_compiles(120)
    assert threads and all(name.startswith("numba-chains") for name in threads)
    np.testing.assert_array_equal(f(*args).numpy(), want)     # compiled now
    assert numba_chain._calls == {}
    # A new plan of the same program finds the kernel on disk: loaded from its first run.
    monkeypatch.setattr(numba_chain, "_kernels", {})
    threads.clear()
    g = make()
    np.testing.assert_array_equal(g(*args).numpy(), want)
    numba_chain.wait_for_compiles(120)
    assert threads
