"""LoRA on Dense, EinsumDense, Embedding and Conv1D/2D/3D (Keras 3's ``enable_lora``):
the scenarios of Keras's own LoRA tests (dense_test, einsum_dense_test, embedding_test,
conv_test), with Keras 3.15.1's numbers from tests/fixtures/make_lora_references.py."""
import json
import os

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers, ops

from .harness import LayerCase, run_layer_case

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "lora")
with open(os.path.join(HERE, "lora_keras.json")) as _f:
    KERAS = json.load(_f)


def _ids(vocab):
    return lambda rng, shape: rng.integers(0, vocab, shape).astype("int32")


# Keras's test_lora_rank_argument cases. The harness's gradient check is off: with the
# factor b at zeros (its default), a has no gradient until b moves (test_fit_trains_both).
CASES = [
    LayerCase(layers.Dense, dict(units=5, activation="sigmoid", kernel_regularizer="l2",
                                 lora_rank=2), (2, 3, 4), (2, 3, 5), trainable_weights=3,
              non_trainable_weights=1, check_training_step=False, id="Dense(lora_rank=2)"),
    LayerCase(layers.EinsumDense, dict(equation="ab,bcd->acd", output_shape=(8, 32),
                                       bias_axes=None, lora_rank=2), (2, 3), (2, 8, 32),
              trainable_weights=2, non_trainable_weights=1, check_training_step=False,
              id="EinsumDense(lora_rank=2)"),
    LayerCase(layers.Embedding, dict(input_dim=5, output_dim=4, lora_rank=2), (2, 3),
              (2, 3, 4), trainable_weights=2, non_trainable_weights=1, input_dtype="int32",
              make_input=_ids(5), check_training_step=False, id="Embedding(lora_rank=2)"),
    LayerCase(layers.Conv2D, dict(filters=5, kernel_size=3, activation="sigmoid",
                                  kernel_regularizer="l2", lora_rank=2), (2, 5, 5, 4),
              (2, 3, 3, 5), trainable_weights=3, non_trainable_weights=1,
              check_training_step=False, id="Conv2D(lora_rank=2)"),
]

BUILD = {
    "dense": lambda: layers.Dense(4),
    "einsum_dense": lambda: layers.EinsumDense("abc,cde->abde", output_shape=(2, 3, 4),
                                               bias_axes="e"),
    "embedding": lambda: layers.Embedding(5, 3),
    "conv1d": lambda: layers.Conv1D(4, 2, groups=2),
    "conv2d": lambda: layers.Conv2D(2, 2, padding="same"),
    "conv3d": lambda: layers.Conv3D(2, 2),
}


def _array(entry):
    return np.array(entry["value"], entry["dtype"])


def _factors(layer):
    target = layer._lora_target
    return getattr(layer, f"lora_{target}_a"), getattr(layer, f"lora_{target}_b")


def _keras_layer(name):
    """The layer of Keras's case ``name``: its weights, LoRA and factors set as there."""
    ref = KERAS[name]
    layer = BUILD[name]()
    x = _array(ref["x"])
    layer.build((None, *x.shape[1:]))
    layer.set_weights([_array(w) for w in ref["weights"]])
    layer.enable_lora(ref["rank"], lora_alpha=ref["alpha"])
    a, b = _factors(layer)
    a.assign(_array(ref["a"]))
    b.assign(_array(ref["b"]))
    return layer, ref, x


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_layer_case(case):
    run_layer_case(case)


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["graph", "eager"])
@pytest.mark.parametrize("name", sorted(BUILD))
def test_output_and_one_sgd_step_are_keras(name, run_eagerly):
    layer, ref, x = _keras_layer(name)
    target = layer._lora_target
    base = layer.__dict__["_" + target].numpy()
    np.testing.assert_allclose(getattr(layer, target).numpy(), _array(ref["merged"]),
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(layer(x).numpy(), _array(ref["output"]), rtol=1e-5, atol=1e-6)
    model = lamina.Sequential([lamina.Input(x.shape[1:], dtype=str(x.dtype)), layer])
    model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse", run_eagerly=run_eagerly)
    loss = model.train_on_batch(x, _array(ref["y"]))
    np.testing.assert_allclose(loss, ref["loss"], rtol=1e-5)
    trained = {w.name: w.numpy() for w in layer.trainable_weights}
    assert sorted(trained) == sorted(ref["trained"])
    for weight, value in ref["trained"].items():
        np.testing.assert_allclose(trained[weight], _array(value), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(layer.__dict__["_" + target].numpy(), base)   # frozen
    assert layer.get_config()["lora_rank"] == ref["config"]["lora_rank"]
    assert layer.get_config()["lora_alpha"] == ref["config"]["lora_alpha"]


@pytest.mark.parametrize("name", sorted(BUILD))
def test_graph_training_equals_eager(name):
    """Three Adam steps from b != 0, in both modes: the same weights and predictions."""
    results = []
    for run_eagerly in (True, False):
        layer, ref, x = _keras_layer(name)
        model = lamina.Sequential([lamina.Input(x.shape[1:], dtype=str(x.dtype)), layer])
        model.compile(optimizer=lamina.optimizers.Adam(0.05), loss="mse",
                      run_eagerly=run_eagerly)
        for _ in range(3):
            model.train_on_batch(x, _array(ref["y"]))
        results.append([*model.get_weights(), model.predict(x, verbose=0)])
    for eager, graph in zip(*results):
        np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-6)


def test_gradients_reach_only_the_factors():
    layer, _, x = _keras_layer("dense")
    with lamina.GradientTape() as tape:
        loss = ops.sum(ops.square(layer(x)))
    grads = tape.gradient(loss, [layer._kernel] + layer.trainable_weights)
    assert all(w is not layer._kernel for w in layer.trainable_weights)
    assert grads[0] is None or not np.any(grads[0].numpy())
    assert all(np.any(g.numpy()) for g in grads[1:])


SHAPES = {   # Keras's test_enable_lora cases: (layer, input shape, output shape, counts)
    "dense": (lambda: layers.Dense(16), (None, 8), (None, 16), (3, 1)),
    "einsum_dense": (lambda: layers.EinsumDense("ab,bcd->acd", output_shape=(8, 32),
                                                bias_axes=None), (None, 3), (None, 8, 32),
                     (2, 1)),
    "embedding": (lambda: layers.Embedding(10, 16), (None, 3), (None, 3, 16), (2, 1)),
    "conv1d": (lambda: layers.Conv1D(6, 2, groups=2), (None, 5, 4), (None, 4, 6), (3, 1)),
    "conv2d": (lambda: layers.Conv2D(6, 3), (None, 5, 5, 4), (None, 3, 3, 6), (3, 1)),
    "conv3d": (lambda: layers.Conv3D(6, 2, strides=2, groups=2), (None, 5, 5, 5, 4),
               (None, 2, 2, 2, 6), (3, 1)),
}


def _data(name, rng):
    _, in_shape, out_shape, _ = SHAPES[name]
    if name == "embedding":
        x = rng.integers(0, 9, (64, *in_shape[1:])).astype("int32")
    else:
        x = rng.random((64, *in_shape[1:])).astype("float32")
    return x, rng.random((64, *out_shape[1:])).astype("float32")


def _model(name, lora):
    make, in_shape, _, _ = SHAPES[name]
    layer = make()
    layer.build(in_shape)
    if lora:
        layer.enable_lora(4 if name in ("dense", "embedding") else 2)
    dtype = "int32" if name == "embedding" else "float32"
    return lamina.Sequential([lamina.Input(in_shape[1:], dtype=dtype), layer])


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_fit_then_save_and_load_every_way(name, tmp_path):
    # keras: test_enable_lora of dense_test, einsum_dense_test, embedding_test, conv_test
    x, y = _data(name, np.random.default_rng(0))
    model = _model(name, lora=True)
    layer = model.layers[0]
    trainable, frozen = SHAPES[name][3]
    assert (len(layer.trainable_weights), len(layer.non_trainable_weights)) == (trainable,
                                                                               frozen)
    a, b = _factors(layer)
    assert a.dtype == b.dtype == "float32"
    before = a.numpy(), b.numpy()
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y, verbose=0)
    assert np.abs(a.numpy() - before[0]).max() > 0 and np.abs(b.numpy() - before[1]).max() > 0
    predicted = model.predict(x, verbose=0)

    model.save(tmp_path / "lora.keras")
    loaded = lamina.saving.load_model(tmp_path / "lora.keras")
    assert loaded.layers[0].lora_enabled
    np.testing.assert_allclose(loaded.predict(x, verbose=0), predicted, rtol=1e-5, atol=1e-6)

    model.save_weights(tmp_path / "lora.weights.h5")       # into a model without LoRA
    plain = _model(name, lora=False)
    plain.load_weights(tmp_path / "lora.weights.h5")
    np.testing.assert_allclose(plain.predict(x, verbose=0), predicted, rtol=1e-5, atol=1e-6)

    plain.save_weights(tmp_path / "plain.weights.h5")      # and back into the LoRA model
    a_before = a.numpy()
    model.load_weights(tmp_path / "plain.weights.h5")
    np.testing.assert_allclose(model.predict(x, verbose=0), plain.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)
    assert not np.any(b.numpy())                           # the update is in the base now
    np.testing.assert_array_equal(a.numpy(), a_before)     # a keeps training possible
    model.fit(x, y, verbose=0)
    assert np.any(b.numpy())


def test_a_lora_file_is_a_plain_file(tmp_path):
    model = _model("dense", lora=True)
    layer = model.layers[0]
    _factors(layer)[1].assign(np.full((4, 16), 0.1, "float32"))
    model.save_weights(tmp_path / "lora.weights.h5")
    with h5py.File(tmp_path / "lora.weights.h5", "r") as f:
        group = f["layers/dense/vars"]
        assert sorted(group) == ["0", "1"]
        np.testing.assert_allclose(group["0"][()], layer.kernel.numpy(), rtol=1e-6)
        np.testing.assert_array_equal(group["1"][()], layer.bias.numpy())
    editor = lamina.saving.KerasFileEditor(str(tmp_path / "lora.weights.h5"))
    assert editor.compare(model)["status"] == "success"


@pytest.mark.filterwarnings("ignore:.*jit_compile")
def test_keras_lora_model_file_loads():
    ref = KERAS["model"]
    x, pred = _array(ref["x"]), _array(ref["pred"])
    model = lamina.saving.load_model(os.path.join(HERE, "lora_model.keras"))
    conv = model.get_layer("conv")
    assert all(model.get_layer(n).lora_enabled for n in ("emb", "conv", "head"))
    assert (conv.lora_rank, conv.lora_alpha) == (2, 4)
    np.testing.assert_allclose(model.predict(x, verbose=0), pred, rtol=1e-5, atol=1e-6)
    fresh = lamina.saving.load_model(os.path.join(HERE, "lora_model.keras"))
    fresh.load_weights(os.path.join(HERE, "lora_model.weights.h5"))
    np.testing.assert_allclose(fresh.predict(x, verbose=0), pred, rtol=1e-5, atol=1e-6)


def test_effective_kernel_with_alpha():
    # keras einsum_dense_test: test_enable_lora_with_alpha
    layer = layers.EinsumDense("ab,bc->ac", output_shape=3, bias_axes=None)
    layer.build((None, 2))
    layer._kernel.assign(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32"))
    layer.enable_lora(rank=2, lora_alpha=3.0)
    assert (layer.lora_rank, layer.lora_alpha) == (2, 3.0)
    a = np.array([[0.1, 0.2], [0.3, 0.4]], "float32")
    b = np.array([[0.5, 0.6, 0.7], [0.8, 0.9, 1.0]], "float32")
    layer.lora_kernel_a.assign(a)
    layer.lora_kernel_b.assign(b)
    expected = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]) + 1.5 * a @ b
    np.testing.assert_allclose(layer.kernel.numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("make, name", [(lambda: layers.Dense(16, name="dense"), "dense"),
                                        (lambda: layers.Conv2D(4, 3, name="conv2d"),
                                         "conv2d")])
def test_factor_paths_sit_beside_the_kernel(make, name):
    # keras: test_lora_weight_name (dense_test, conv_test)
    class MyModel(lamina.Model):
        def __init__(self):
            super().__init__(name="mymodel")
            self.inner = make()

        def build(self, input_shape):
            self.inner.build(input_shape)

        def call(self, x):
            return self.inner(x)

    model = MyModel()
    model.build((None, 8) if name == "dense" else (None, 5, 5, 4))
    model.inner.enable_lora(4)
    assert model.inner.lora_kernel_a.path == f"mymodel/{name}/lora_kernel_a"
    assert model.inner.lora_kernel_b.path == f"mymodel/{name}/lora_kernel_b"


def test_constructor_arguments_build_lora_and_round_trip():
    layer = layers.Dense(4, lora_rank=2, lora_alpha=8)
    assert not layer.lora_enabled
    layer.build((None, 3))
    # Keras's Dense and Embedding drop lora_alpha at build (alpha becomes the rank);
    # Lamina keeps it, as Keras's EinsumDense and convolutions do.
    assert (layer.lora_enabled, layer.lora_rank, layer.lora_alpha) == (True, 2, 8)
    config = layer.get_config()
    assert (config["lora_rank"], config["lora_alpha"]) == (2, 8)
    assert "lora_rank" not in layers.Dense(4).get_config()
    clone = layers.Dense.from_config(config)
    clone.build((None, 3))
    assert clone.lora_enabled and clone.lora_alpha == 8
    embedding = layers.Embedding(3, 2, lora_rank=2, lora_alpha=8)
    embedding.build()
    assert embedding.lora_alpha == 8 and embedding.lora_embeddings_a.shape == (3, 2)


def test_regularizers_apply_to_the_factors_not_the_frozen_kernel():
    layer = layers.Dense(5, kernel_regularizer="l2", lora_rank=2)
    layer(np.ones((2, 4), "float32"))
    assert len(layer.losses) == 2             # keras: expected_num_losses=2
    a, b = layer.lora_kernel_a.numpy(), layer.lora_kernel_b.numpy()
    np.testing.assert_allclose(sum(float(x.numpy()) for x in layer.losses),
                               0.01 * (np.sum(a ** 2) + np.sum(b ** 2)), rtol=1e-5)


def test_unfreezing_keeps_the_base_frozen():
    model = _model("conv2d", lora=True)
    model.trainable = False
    assert model.layers[0].trainable_weights == []
    model.trainable = True
    layer = model.layers[0]
    assert not layer._kernel.trainable
    assert len(layer.trainable_weights) == 3


def test_a_float64_layer_gets_float64_factors():
    layer = layers.Dense(3, dtype="float64", lora_rank=2)
    layer.build((None, 4))
    assert layer.lora_kernel_a.dtype == layer.lora_kernel_b.dtype == "float64"


def test_mixed_precision_factors_stay_float32():
    layer = layers.Dense(3, dtype="mixed_float16", lora_rank=2)
    out = layer(np.ones((2, 4), "float32"))
    assert out.dtype == "float16" and layer.kernel.dtype == "float16"
    assert layer.lora_kernel_a.dtype == layer.lora_kernel_b.dtype == "float32"
    store = {}
    layer.save_own_variables(store)
    assert store["0"].dtype == "float32"       # saved as the base kernel's dtype


# ------------------------------------------------------------------ errors
def test_enable_lora_with_a_constraint():
    with pytest.raises(ValueError, match="d2: Lora is incompatible with kernel constraints"):
        layers.Dense(2, kernel_constraint="max_norm", name="d2").enable_lora(rank=2)
    with pytest.raises(ValueError, match="incompatible with kernel constraints"):
        layers.Conv1D(2, 1, kernel_constraint="non_neg").enable_lora(rank=2)
    with pytest.raises(ValueError, match="incompatible with embedding constraints. In order "
                                         "to enable lora on this layer, remove the "
                                         "`embeddings_constraint` argument."):
        layers.Embedding(10, 16, embeddings_constraint="max_norm").enable_lora(rank=2)


@pytest.mark.parametrize("make", [lambda: layers.Dense(2), lambda: layers.Embedding(3, 2),
                                  lambda: layers.EinsumDense("ab,bc->ac", 2),
                                  lambda: layers.Conv3D(2, 1)])
def test_enable_lora_on_an_unbuilt_layer(make):
    with pytest.raises(ValueError, match="Cannot enable lora on a layer that isn't yet "
                                         "built"):
        make().enable_lora(rank=2)


def test_enable_lora_twice():
    layer = layers.Dense(2, name="twice")
    layer.build((None, 2))
    layer.enable_lora(rank=2)
    with pytest.raises(ValueError, match="twice: lora is already enabled. This can only be "
                                         "done once per layer."):
        layer.enable_lora(rank=2)


def test_bad_rank_and_alpha():
    layer = layers.Dense(2, name="bad")
    layer.build((None, 2))
    with pytest.raises(ValueError, match=r"bad: argument 'rank' must be a positive int; "
                                         r"received 0"):
        layer.enable_lora(0)
    with pytest.raises(ValueError, match=r"bad: argument 'lora_alpha' must be a finite "
                                         r"number or None; received nan"):
        layer.enable_lora(2, lora_alpha=float("nan"))
    assert not layer.lora_enabled and len(layer.weights) == 2
    with pytest.raises(ValueError, match=r"argument 'lora_rank' must be a positive int or "
                                         r"None; received True"):
        layers.Conv1D(2, 1, lora_rank=True)


def test_loading_a_lora_layer_checks_the_store():
    layer = layers.Dense(2, lora_rank=1, name="ld")
    layer.build((None, 3))
    with pytest.raises(ValueError, match=r"ld: a LoRA layer loads 2 variables \(\['kernel', "
                                         r"'bias'\], the kernel merged\) from keys '0' to "
                                         r"'1'; received keys \['0', '1', '2', '3'\]"):
        layer.load_own_variables({str(i): np.zeros(1) for i in range(4)})
    with pytest.raises(ValueError, match=r"ld: variable 0 'kernel' has shape \(3, 2\); the "
                                         r"stored value has shape \(2, 3\)"):
        layer.load_own_variables({"0": np.zeros((2, 3)), "1": np.zeros(2)})
