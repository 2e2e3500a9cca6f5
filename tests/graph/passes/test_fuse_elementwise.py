"""The fuse_elementwise pass: trees of elementwise ops become one elementwise_chain node
(one generated CUDA kernel on cupy). On numpy the pass fuses the chains numba compiles
(tests/backend/test_numba_chain.py); without numba it is off unless forced; forced, the
chains run step by step with the unfused ops' kernels, so the numbers must not move."""
import functools

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backend.cupy_chain import EXPRESSIONS, cuda_source
from lamina.errors import DTypeError
from lamina.graph import passes
from lamina.graph.executor import Plan, pack_results
from lamina.graph.passes.fuse_elementwise import fuse_elementwise
from lamina.ops.elementwise_chain import STEP_ARITY
from tests.graph.passes.jit_compare import op_counts, tensors


def traced_and_fused(fn, args):
    """(unfused graph, fused graph, fused results): two traces, the second fused (forced)."""
    raw = lamina.jit(fn, passes=[]).trace(*args)
    graph = fuse_elementwise(lamina.jit(fn, passes=[]).trace(*args), force=True)
    plan = Plan(graph, lamina.backend.get_backend())
    results = pack_results(graph, plan.backend, plan([a.data for a in args]))
    return raw, graph, results


def assert_same(got, want, rtol=1e-6, atol=1e-7):
    got = got if isinstance(got, (list, tuple)) else [got]
    want = want if isinstance(want, (list, tuple)) else [want]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=rtol, atol=atol)


def activations(x, b):
    h = ops.sigmoid(ops.add(ops.multiply(x, 1.5), b))      # chain: multiply, add, sigmoid
    shared = ops.exp(ops.negative(h))                        # h and shared have two readers
    out1 = ops.multiply(ops.subtract(1.0, shared), h)
    out2 = ops.sqrt(ops.add(ops.square(shared), 1e-3))
    return out1, out2, ops.sum(out2)


ARGS = tensors(np.linspace(-2, 2, 24, dtype="float32").reshape(4, 6),
               np.linspace(-1, 1, 6, dtype="float32"))


def test_chains_become_one_node_each_with_the_same_numbers():
    raw, graph, results = traced_and_fused(activations, ARGS)
    assert len(raw.nodes) == 11
    counts = op_counts(graph)
    assert counts == {"elementwise_chain": 4, "sum": 1}, dict(counts)
    assert graph.fused_chains == 4
    programs = sorted(tuple(s[0] for s in n.attrs["program"]) for n in graph.nodes
                      if n.op.name == "elementwise_chain")
    assert programs == [("multiply", "add", "sigmoid"), ("negative", "exp"),
                        ("square", "add", "sqrt"), ("subtract", "multiply")]
    unfused = lamina.jit(activations, passes=[])(*ARGS)
    assert_same(results, unfused, rtol=0, atol=0)            # the same kernels, step by step
    assert_same(results, activations(*ARGS))


def test_scalar_constants_become_literals_and_tensors_inputs():
    raw, graph, _ = traced_and_fused(activations, ARGS)
    first = next(n for n in graph.nodes if n.op.name == "elementwise_chain"
                 and n.attrs["program"][0][0] == "multiply")
    assert first.attrs["program"] == (("multiply", (("x", 0), ("c", 1.5))),
                                      ("add", (("t", 0), ("x", 1))),
                                      ("sigmoid", (("t", 1),)))
    assert first.attrs["dtype"] == "float32"
    assert [x.name for x in first.inputs] == ["input_0", "input_1"]


def test_the_pass_is_off_on_numpy_without_compiled_chains_unless_forced(monkeypatch):
    monkeypatch.setattr(lamina.backend.get_backend(), "compiled_chains", False)
    graph = lamina.jit(activations, passes=[]).trace(*ARGS)
    before = len(graph.nodes)
    assert fuse_elementwise(graph) is graph and len(graph.nodes) == before
    default = lamina.jit(activations).trace(*ARGS)
    k = [name for name, _ in default.history].index("fuse_elementwise")
    assert default.history[k][1] == default.history[k - 1][1]
    assert "elementwise_chain" not in op_counts(default)


def test_outputs_and_values_read_twice_stay_materialized():
    def f(x):
        b = ops.add(ops.exp(x), 1.0)          # b is an output: its chain ends there
        return ops.log(b), b
    raw, graph, results = traced_and_fused(f, ARGS[:1])
    counts = op_counts(graph)
    assert counts == {"elementwise_chain": 1, "log": 1}, dict(counts)
    chain = next(n for n in graph.nodes if n.op.name == "elementwise_chain")
    assert graph.outputs[1] is chain.outputs[0]
    assert_same(results, f(*ARGS[:1]))


def test_integer_and_mixed_dtype_ops_are_left_alone():
    def f(i, x):
        j = ops.add(ops.multiply(i, 3), 1)                      # int32: not fused
        y = ops.tanh(ops.multiply(x, 2.0))                       # float32: fused
        return ops.add(ops.cast(j, "float32"), y)
    args = tensors(np.arange(6, dtype="int32"), np.linspace(-1, 1, 6, dtype="float32"))
    raw, graph, results = traced_and_fused(f, args)
    counts = op_counts(graph)
    assert counts["elementwise_chain"] == 1 and counts["cast"] == 1
    assert counts["multiply"] == 1 and counts["add"] == 1
    chain = next(n for n in graph.nodes if n.op.name == "elementwise_chain")
    assert [s[0] for s in chain.attrs["program"]] == ["multiply", "tanh", "add"]
    assert_same(results, f(*args))


def test_random_ops_are_never_absorbed():
    dropout = layers.Dropout(0.5, seed=3)

    def f(x):
        return ops.multiply(dropout(ops.tanh(ops.multiply(x, 2.0)), training=True), 3.0)
    raw = lamina.jit(f, passes=[]).trace(*ARGS[:1])
    graph = fuse_elementwise(lamina.jit(f, passes=[]).trace(*ARGS[:1]), force=True)
    before, after = op_counts(raw), op_counts(graph)
    random_ops = [name for name in before if name.startswith("random")]
    assert random_ops and all(after[name] == before[name] for name in random_ops)
    assert after["elementwise_chain"] >= 1 and len(graph.nodes) < len(raw.nodes)


# --------------------------------------------------------------------------- training
def _mlp():
    return lamina.Sequential([lamina.Input((5,)), layers.Dense(8, activation="sigmoid"),
                              layers.Dense(8, activation="tanh"),
                              layers.Dense(3, activation="softmax")])


def _train(passes, eager=False, steps=3):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((16, 5)).astype("float32"), rng.integers(0, 3, 16)
    lamina.utils.set_random_seed(5)
    model = _mlp()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", run_eagerly=eager)
    model.optimizer.build(model.trainable_variables)
    if not eager:
        model.make_train_function().function.passes = passes
    losses = [model.train_on_batch(x, y) for _ in range(steps)]
    graph = None if eager else next(iter(model.train_function.function._plans.values()))[0]
    return losses, model.get_weights(), graph, len(model.trainable_variables)


@pytest.fixture
def forced_pipeline(monkeypatch):
    """The default pipeline with fuse_elementwise forced on (the machine has no GPU)."""
    forced = functools.partial(fuse_elementwise, force=True)
    pipeline = [(name, forced if name == "fuse_elementwise" else fn)
                for name, fn in passes.PIPELINE]
    monkeypatch.setattr(passes, "PIPELINE", pipeline)
    return [name for name, _ in pipeline]


def test_adam_training_step_fuses_and_keeps_the_numbers(forced_pipeline):
    without = [name for name in forced_pipeline if name != "fuse_elementwise"]
    plain_losses, plain_weights, plain, n_vars = _train(without)
    losses, weights, graph, _ = _train(None)
    eager_losses, eager_weights, _, _ = _train(None, eager=True)
    np.testing.assert_allclose(losses, plain_losses, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(losses, eager_losses, rtol=1e-5, atol=1e-6)
    for a, b, c in zip(weights, plain_weights, eager_weights):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-5)
    before, after = op_counts(plain), op_counts(graph)
    # every variable's m, v and value update is one chain each; they stay updates
    assert after["elementwise_chain"] >= 3 * n_vars
    assert len(graph.nodes) < len(plain.nodes) / 2, (len(plain.nodes), len(graph.nodes))
    assert after["sqrt"] == after["square"] == after["subtract"] == 0
    assert len(graph.updates) == len(plain.updates)
    chains = {id(n.outputs[0]) for n in graph.nodes if n.op.name == "elementwise_chain"}
    assert sum(id(value) in chains for _, value in graph.updates) >= 3 * n_vars


# --------------------------------------------------------------------------- CUDA source
AFFINE_TANH = (("multiply", (("x", 0), ("c", 2.0))), ("add", (("t", 0), ("x", 1))),
               ("tanh", (("t", 1),)), ("multiply", (("t", 2), ("c", 0.5))))


def test_cuda_source_of_an_affine_tanh():
    source = cuda_source(AFFINE_TANH, ["float32", "float32"])
    assert source.in_params == "T x0, T x1"
    assert source.out_params == "T y"
    assert source.name == "lamina_elementwise_chain"
    assert source.body == ("const T t0 = x0 * ((T)2.0);\n"
                           "const T t1 = t0 + x1;\n"
                           "const T t2 = tanh(t1);\n"
                           "y = t2 * ((T)0.5);")


def test_cuda_source_of_activations_and_nan_propagating_maximum():
    program = (("sigmoid", (("x", 0),)), ("relu", (("x", 1),)),
               ("maximum", (("t", 0), ("t", 1))), ("subtract", (("c", -0.25), ("t", 2))),
               ("round", (("t", 3),)))
    assert cuda_source(program, ("float64", "float64")).body == (
        "const T t0 = (T)1 / ((T)1 + exp(-x0));\n"
        "const T t1 = x1 * (T)(x1 > (T)0);\n"
        "const T t2 = (t0 > t1 || t0 != t0) ? t0 : t1;\n"
        "const T t3 = ((T)-0.25) - t2;\n"
        "y = rint(t3);")


def test_cuda_source_keeps_float32_constants_exact():
    tenth = float(np.float32(0.1))
    body = cuda_source((("multiply", (("x", 0), ("c", tenth))),), ["float32"]).body
    assert body == "y = x0 * ((T)0.10000000149011612);"
    assert np.float32(float(body.split("(T)")[1].rstrip(");"))) == np.float32(0.1)


def test_every_step_op_has_a_cuda_expression_of_its_arity():
    assert set(EXPRESSIONS) == set(STEP_ARITY)
    for name, template in EXPRESSIONS.items():
        placeholders = {"{%d}" % k for k in range(2) if "{%d}" % k in template}
        assert len(placeholders) == STEP_ARITY[name], name


def test_cuda_source_errors():
    with pytest.raises(DTypeError, match="inputs of one dtype in"):
        cuda_source(AFFINE_TANH, ["float32", "float64"])
    with pytest.raises(DTypeError, match="received \\('float16',\\)"):
        cuda_source((("exp", (("x", 0),)),), ["float16"])
    with pytest.raises(ValueError, match="no CUDA expression for step 0 \\('where'\\)"):
        cuda_source((("where", (("x", 0),)),), ["float32"])


# --------------------------------------------------------------------------- GPU
@pytest.fixture
def cupy_backend():
    pytest.importorskip("cupy")
    try:
        backend = lamina.backend.get_backend("cupy")
    except (ImportError, RuntimeError) as exc:
        pytest.skip(f"cupy backend unavailable: {str(exc).splitlines()[0]}")
    with lamina.backend.use(backend):
        yield backend


@pytest.mark.gpu
def test_cuda_kernel_matches_numpy(cupy_backend):
    numpy_backend = lamina.backend.get_backend("numpy")
    rng = np.random.default_rng(0)
    x0 = rng.uniform(-2, 2, (64, 33)).astype("float32")
    x1 = rng.uniform(-2, 2, (33,)).astype("float32")
    programs = [AFFINE_TANH, (("sigmoid", (("x", 0),)), ("relu", (("x", 1),)),
                              ("maximum", (("t", 0), ("t", 1))),
                              ("subtract", (("c", -0.25), ("t", 2))))]
    for dtype in ("float32", "float64"):
        a, b = x0.astype(dtype), x1.astype(dtype)
        for program in programs:
            want = numpy_backend.elementwise_chain(program, (a, b))
            got = cupy_backend.elementwise_chain(
                program, (cupy_backend.asarray(a), cupy_backend.asarray(b)))
            np.testing.assert_allclose(cupy_backend.to_host(got), want, rtol=1e-5, atol=1e-6)
            into = cupy_backend.asarray(a)                  # in place over the first input
            result = cupy_backend.elementwise_chain(
                program, (into, cupy_backend.asarray(b)), out=into)
            assert result is into
            np.testing.assert_allclose(cupy_backend.to_host(into), want, rtol=1e-5, atol=1e-6)


@pytest.mark.gpu
def test_the_default_pipeline_fuses_on_cupy(cupy_backend):
    args = tensors(*(a.numpy() for a in ARGS))
    compiled = lamina.jit(activations)
    graph = compiled.trace(*args)
    assert op_counts(graph)["elementwise_chain"] == 4
    expected = [r.numpy() for r in activations(*ARGS)]     # numpy tensors: eager on numpy
    for got, want in zip(compiled(*args), expected):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
