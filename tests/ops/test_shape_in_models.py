"""``ops.shape`` inside models: the keras-io VAE ``Sampling`` layer and the GAN guide's
``ops.shape(real_images)[0]``, in eager mode, in layer calls on a functional model's
symbolic tensors and in compiled fit/predict, where the batch size is unknown until a batch
arrives (the last partial batch included). On a functional-API tensor outside any call the
unknown size is None, as in Keras (tests/ops/test_shape_none.py)."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.errors import ShapeError
from lamina.ops.introspection import DynamicDim


class Sampling(layers.Layer):
    """The keras-io VAE guide's layer, as written there."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seed_generator = lamina.random.SeedGenerator(1337)

    def call(self, inputs):
        z_mean, z_log_var = inputs
        batch = ops.shape(z_mean)[0]
        dim = ops.shape(z_mean)[1]
        epsilon = lamina.random.normal(shape=(batch, dim), seed=self.seed_generator)
        return z_mean + ops.exp(0.5 * z_log_var) * epsilon


def _vae():
    lamina.random.set_seed(3)
    inputs = lamina.Input((6,))
    h = layers.Dense(5, activation="relu")(inputs)
    z_mean = layers.Dense(2, name="z_mean")(h)
    z_log_var = layers.Dense(2, name="z_log_var")(h)
    z = Sampling()([z_mean, z_log_var])
    outputs = layers.Dense(6)(layers.Dense(5, activation="relu")(z))
    return lamina.Model(inputs, outputs)


def test_shape_eager_and_symbolic():
    x = ops.ones((4, 3))
    assert ops.shape(x) == (4, 3) and ops.ndim(x) == 2 and ops.size(x) == 12
    assert ops.dtype(x) == "float32" and ops.dtype(np.zeros(2, "int64")) == "int64"
    assert ops.shape([[1, 2, 3]]) == (1, 3)
    assert ops.is_tensor(x) and not ops.is_tensor(np.ones(2)) and not ops.is_tensor(1.0)
    # Keras 3.15.1: a Variable, a symbolic tensor and a list are not tensors
    assert not ops.is_tensor(lamina.Variable([1.0, 2.0])) and not ops.is_tensor([1, 2])
    assert not ops.is_tensor(lamina.Input((2,)))
    inp = lamina.Input((3,))
    assert ops.shape(inp) == (None, 3) and ops.ndim(inp) == 2   # Keras: None on an Input
    seen = []

    def in_call(t):
        seen.append(ops.shape(t))        # in a layer's call: a size read when the graph runs
        return t
    layers.Lambda(in_call)(inp)
    batch, dim = seen[0]
    assert isinstance(batch, DynamicDim) and dim == 3
    with pytest.raises(ShapeError, match=r"the size of axis 0 of .* is unknown until the "
                                         r"graph runs"):
        int(batch)
    with pytest.raises(ShapeError, match=r"size: the size of .* is not known until the graph "
                                         r"runs"):
        ops.size(inp)


def test_sampling_draws_one_row_per_sample_of_each_batch():
    inp = lamina.Input((3,))
    eps = layers.Lambda(lambda t: lamina.random.normal(shape=(ops.shape(t)[0], 2), seed=5))(inp)
    model = lamina.Model(inp, eps)
    out = model.predict(np.zeros((7, 3), np.float32), batch_size=3, verbose=0)
    assert out.shape == (7, 2)
    # an int seed draws the same values every call: each batch starts with the same rows
    expected = lamina.random.normal(shape=(3, 2), seed=5).numpy()
    np.testing.assert_allclose(out[:3], expected, rtol=1e-6)
    np.testing.assert_allclose(out[6:], expected[:1], rtol=1e-6)   # the partial batch


def test_vae_sampling_fit_and_predict_graph_equals_eager():
    data = np.random.default_rng(0).uniform(size=(10, 6)).astype("float32")
    results = []
    for eager in (True, False):
        model = _vae()
        model.compile(optimizer="adam", loss="mse", run_eagerly=eager)
        history = model.fit(data, data, batch_size=4, epochs=2, shuffle=False, verbose=0)
        predictions = model.predict(data, batch_size=4, verbose=0)   # 4 + 4 + 2
        again = model.predict(data, batch_size=4, verbose=0)
        assert not np.allclose(again, predictions)     # the generator advanced: new noise
        results.append((history.history["loss"], predictions,
                        [w.copy() for w in model.get_weights()]))
    (loss_e, pred_e, w_e), (loss_g, pred_g, w_g) = results
    assert pred_g.shape == (10, 6)
    np.testing.assert_allclose(loss_g, loss_e, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(pred_g, pred_e, rtol=1e-5, atol=1e-6)
    for a, b in zip(w_g, w_e):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_gan_batch_size_from_shape_in_train_step_style_code():
    # The GAN guide: batch_size = ops.shape(real_images)[0]; noise of that many rows.
    inp = lamina.Input((4,))
    noise = layers.Lambda(lambda t: lamina.random.uniform(shape=(ops.shape(t)[0], 3),
                                                          seed=2))(inp)
    model = lamina.Model(inp, layers.Concatenate()([inp, noise]))
    out = model.predict(np.ones((5, 4), np.float32), batch_size=2, verbose=0)
    assert out.shape == (5, 7)
    np.testing.assert_allclose(out[:, :4], 1.0)
    assert np.all((out[:, 4:] >= 0) & (out[:, 4:] < 1))


class GAN(lamina.Model):
    """The keras-io GAN guide's ``train_step``, with its ``ops.shape(real_images)[0]``,
    ``keras.random.normal(shape=(batch_size, latent_dim))`` and ``ops.ones((batch_size,
    1))``: one batch-polymorphic trace serves every batch size."""

    def __init__(self, discriminator, generator, latent_dim):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.seed_generator = lamina.random.SeedGenerator(1337)

    def compile(self, d_optimizer, g_optimizer, **kwargs):
        super().compile(**kwargs)
        self.d_optimizer, self.g_optimizer = d_optimizer, g_optimizer
        self.loss_fn = lamina.losses.BinaryCrossentropy(from_logits=True)

    def train_step(self, real_images):
        if isinstance(real_images, tuple):
            real_images = real_images[0]
        batch_size = ops.shape(real_images)[0]
        latent = lamina.random.normal(shape=(batch_size, self.latent_dim),
                                      seed=self.seed_generator)
        generated = self.generator(latent)
        combined = ops.concatenate([generated, real_images], axis=0)
        labels = ops.concatenate([ops.ones((batch_size, 1)), ops.zeros((batch_size, 1))],
                                 axis=0)
        with lamina.GradientTape() as tape:
            d_loss = self.loss_fn(labels, self.discriminator(combined))
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply_gradients(zip(grads, self.discriminator.trainable_weights))
        latent = lamina.random.normal(shape=(batch_size, self.latent_dim),
                                      seed=self.seed_generator)
        misleading = ops.zeros((batch_size, 1))
        with lamina.GradientTape() as tape:
            g_loss = self.loss_fn(misleading, self.discriminator(self.generator(latent)))
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply_gradients(zip(grads, self.generator.trainable_weights))
        return {"d_loss": d_loss, "g_loss": g_loss}


def _run_gan(eager):
    lamina.utils.set_random_seed(3)
    discriminator = lamina.Sequential([lamina.Input((6,)), layers.Dense(8, activation="relu"),
                                       layers.Dense(1)])
    generator = lamina.Sequential([lamina.Input((4,)), layers.Dense(8, activation="relu"),
                                   layers.Dense(6)])
    gan = GAN(discriminator, generator, 4)
    gan.compile(lamina.optimizers.Adam(1e-3), lamina.optimizers.Adam(1e-3), run_eagerly=eager)
    real = np.random.default_rng(2).normal(size=(11, 6)).astype("float32")   # 4 + 4 + 3
    history = gan.fit(real, batch_size=4, epochs=2, shuffle=False, verbose=0).history
    if not eager:
        function = gan.train_function.function
        assert function.polymorphic_error is None and function.trace_count == 1
    return history, [w.numpy() for w in gan.weights]


def test_gan_guide_train_step_traces_once_and_matches_eager():
    (h_e, w_e), (h_g, w_g) = _run_gan(True), _run_gan(False)
    for key in ("d_loss", "g_loss"):
        np.testing.assert_allclose(h_g[key], h_e[key], rtol=1e-4, atol=1e-5)
    for a, b in zip(w_g, w_e):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_zeros_ones_full_take_a_dynamic_batch():
    inp = lamina.Input((3,))

    def constants(t):
        b = ops.shape(t)[0]
        return ops.concatenate([ops.ones((b, 1)), ops.zeros((b, 1)), ops.full((b, 1), 7.0)],
                               axis=1)
    y = layers.Lambda(constants)(inp)
    assert y.shape == (None, 3)
    out = lamina.Model(inp, ops.add(inp, y)).predict(np.zeros((3, 3), np.float32),
                                                     batch_size=2, verbose=0)
    np.testing.assert_allclose(out, np.tile([[1.0, 0.0, 7.0]], (3, 1)))


def test_reshape_takes_a_dynamic_batch():
    # the attention tutorials' ops.reshape(x, (batch_size, -1, heads, depth))
    inp = lamina.Input((4, 6))
    batch = ops.shape(inp)[0]
    y = ops.transpose(ops.reshape(inp, (batch, -1, 2, 3)), (0, 2, 1, 3))
    assert y.shape == (None, 2, 4, 3)
    x = np.arange(2 * 4 * 6, dtype="float32").reshape(2, 4, 6)
    out = lamina.Model(inp, y).predict(x, verbose=0)
    np.testing.assert_allclose(out, x.reshape(2, -1, 2, 3).transpose(0, 2, 1, 3))


def test_dropout_noise_shape_from_ops_shape():
    inp = lamina.Input((3, 4))
    mask_shape = (ops.shape(inp)[0], 1, ops.shape(inp)[2])      # whole timesteps share a mask
    out = lamina.random.dropout(inp, 0.5, noise_shape=mask_shape, seed=4)
    y = lamina.Model(inp, out).predict(np.ones((5, 3, 4), np.float32), batch_size=2, verbose=0)
    assert y.shape == (5, 3, 4) and set(np.unique(y)) <= {0.0, 2.0}
    np.testing.assert_array_equal(y[:, 0], y[:, 2])             # one mask along axis 1
