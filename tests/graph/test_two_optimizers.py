"""Two optimizers in one compiled step (the GAN pattern) give eager mode's numbers.

A discriminator update, then a generator update through the updated discriminator, each
with its own GradientTape and optimizer, in ``lamina.jit`` and in a ``train_step`` run by
``fit``. A read of a variable after an assign in the same trace is a leaf, as in eager mode:
the generator's gradient must not flow back through the discriminator's optimizer update.
"""
import numpy as np
import pytest

import lamina
from lamina import layers, losses, ops, optimizers
from lamina.data_adapters import unpack_x_y_sample_weight

TOL = dict(rtol=1e-4, atol=1e-5)
LATENT, FEATURES, BATCH, STEPS = 4, 6, 5, 6


def _optimizers(kind):
    if kind == "adam+adam":
        return optimizers.Adam(1e-3), optimizers.Adam(1e-3)
    return optimizers.Adam(1e-3), optimizers.SGD(0.01, momentum=0.9)


def _dense_gan():
    discriminator = lamina.Sequential([
        lamina.Input((FEATURES,)), layers.Dense(8), layers.LeakyReLU(negative_slope=0.2),
        layers.Dense(1)], name="discriminator")
    generator = lamina.Sequential([
        lamina.Input((LATENT,)), layers.Dense(8), layers.LeakyReLU(negative_slope=0.2),
        layers.Dense(FEATURES)], name="generator")
    return discriminator, generator


def _conv_gan():
    """keras-io's "Customizing what happens in fit(): GAN", at 8x8 pixels."""
    discriminator = lamina.Sequential([
        lamina.Input((8, 8, 1)),
        layers.Conv2D(4, 3, strides=2, padding="same"), layers.LeakyReLU(negative_slope=0.2),
        layers.Conv2D(8, 3, strides=2, padding="same"), layers.LeakyReLU(negative_slope=0.2),
        layers.GlobalMaxPooling2D(), layers.Dense(1)], name="discriminator")
    generator = lamina.Sequential([
        lamina.Input((LATENT,)), layers.Dense(2 * 2 * 8), layers.LeakyReLU(negative_slope=0.2),
        layers.Reshape((2, 2, 8)),
        layers.Conv2DTranspose(8, 4, strides=2, padding="same"),
        layers.LeakyReLU(negative_slope=0.2),
        layers.Conv2DTranspose(8, 4, strides=2, padding="same"),
        layers.LeakyReLU(negative_slope=0.2),
        layers.Conv2D(1, 3, padding="same", activation="sigmoid")], name="generator")
    return discriminator, generator


def _gan_step(discriminator, generator, d_optimizer, g_optimizer, real, z1, z2):
    bce = losses.BinaryCrossentropy(from_logits=True)
    n = real.shape[0]
    fake = generator(z1)
    images = ops.concatenate([fake, real], axis=0)
    labels = ops.concatenate([ops.ones((n, 1)), ops.zeros((n, 1))], axis=0)
    with lamina.GradientTape() as tape:
        d_loss = bce(labels, discriminator(images))
    grads = tape.gradient(d_loss, discriminator.trainable_weights)
    d_optimizer.apply_gradients(zip(grads, discriminator.trainable_weights))
    with lamina.GradientTape() as tape:
        g_loss = bce(ops.zeros((n, 1)), discriminator(generator(z2)))
    grads = tape.gradient(g_loss, generator.trainable_weights)
    g_optimizer.apply_gradients(zip(grads, generator.trainable_weights))
    return d_loss, g_loss


def _batches(shape, steps=STEPS):
    rng = np.random.default_rng(1)
    return [tuple(ops.convert_to_tensor(rng.normal(size=s).astype("float32"))
                  for s in ((BATCH, *shape), (BATCH, LATENT), (BATCH, LATENT)))
            for _ in range(steps)]


def _run_jit(build, kind, compiled, shape):
    lamina.utils.set_random_seed(3)
    discriminator, generator = build()
    d_optimizer, g_optimizer = _optimizers(kind)

    def step(real, z1, z2):
        return _gan_step(discriminator, generator, d_optimizer, g_optimizer, real, z1, z2)
    fn = lamina.jit(step) if compiled else step
    history = [[float(ops.convert_to_numpy(v)) for v in fn(*batch)]
               for batch in _batches(shape)]
    weights = [w.numpy() for w in discriminator.weights + generator.weights]
    slots = [v.numpy() for v in d_optimizer.variables + g_optimizer.variables]
    return np.array(history), weights, slots


def _assert_same(got, want):
    np.testing.assert_allclose(got[0], want[0], **TOL)
    for a, b in zip(got[1] + got[2], want[1] + want[2]):
        np.testing.assert_allclose(a, b, **TOL)


@pytest.mark.parametrize("kind", ["adam+adam", "adam+sgd_momentum"])
def test_jit_gan_step_matches_eager(kind):
    eager = _run_jit(_dense_gan, kind, False, (FEATURES,))
    graph = _run_jit(_dense_gan, kind, True, (FEATURES,))
    _assert_same(graph, eager)


def test_jit_conv_gan_is_finite_and_matches_eager():
    eager = _run_jit(_conv_gan, "adam+adam", False, (8, 8, 1))
    graph = _run_jit(_conv_gan, "adam+adam", True, (8, 8, 1))
    assert np.all(np.isfinite(graph[0]))
    _assert_same(graph, eager)


class GAN(lamina.Model):
    """keras-io's GAN: ``train_step`` updates the discriminator, then the generator."""

    def __init__(self, discriminator, generator):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.seed_generator = lamina.random.SeedGenerator(11)

    def compile(self, d_optimizer, g_optimizer, **kwargs):
        super().compile(**kwargs)
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer

    def train_step(self, data):
        real, _, _ = unpack_x_y_sample_weight(data)
        n = real.shape[0]
        z1 = lamina.random.normal((n, LATENT), seed=self.seed_generator)
        z2 = lamina.random.normal((n, LATENT), seed=self.seed_generator)
        d_loss, g_loss = _gan_step(self.discriminator, self.generator, self.d_optimizer,
                                   self.g_optimizer, real, z1, z2)
        return {"d_loss": d_loss, "g_loss": g_loss}


def _run_fit(kind, eager):
    lamina.utils.set_random_seed(3)
    discriminator, generator = _dense_gan()
    gan = GAN(discriminator, generator)
    d_optimizer, g_optimizer = _optimizers(kind)
    gan.compile(d_optimizer, g_optimizer, run_eagerly=eager)
    real = np.random.default_rng(2).normal(size=(BATCH * STEPS, FEATURES)).astype("float32")
    history = gan.fit(real, batch_size=BATCH, epochs=1, shuffle=False, verbose=0).history
    if not eager:
        # a model that is never built itself still gets its train_step compiled: the
        # batch-polymorphic trace fails (random.normal((None, LATENT))), the concrete one
        # serves every batch of this size
        function = gan.train_function.function
        assert not gan.train_function.eager
        assert function.trace_count == 2 and function.polymorphic_error is not None
    weights = [w.numpy() for w in discriminator.weights + generator.weights]
    slots = [v.numpy() for v in d_optimizer.variables + g_optimizer.variables]
    return np.array([history["d_loss"], history["g_loss"]]), weights, slots


@pytest.mark.parametrize("kind", ["adam+adam", "adam+sgd_momentum"])
def test_fit_with_a_two_optimizer_train_step_matches_eager(kind):
    eager = _run_fit(kind, True)
    graph = _run_fit(kind, False)
    assert np.all(np.isfinite(graph[0]))
    _assert_same(graph, eager)


def test_a_variable_read_after_an_assign_is_a_leaf_of_the_gradient():
    # Eager: the tape does not look behind a Variable, so d(sum(v * w))/dw is v's new value
    # (3w), not 3w + 3w as it would be if the gradient flowed through the assign.
    w = lamina.Variable([1.0, 2.0], name="w")
    v = lamina.Variable([0.0, 0.0], name="v")

    def step():
        v.assign(ops.multiply(w, 3.0))
        with lamina.GradientTape() as tape:
            loss = ops.sum(ops.multiply(v, w))
        return tape.gradient(loss, [w])[0]
    np.testing.assert_allclose(ops.convert_to_numpy(step()), [3.0, 6.0])
    v.assign([0.0, 0.0])
    np.testing.assert_allclose(ops.convert_to_numpy(lamina.jit(step)()), [3.0, 6.0])
    np.testing.assert_allclose(v.numpy(), [3.0, 6.0])
