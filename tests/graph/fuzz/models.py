"""Random models for the differential fuzzer: a seed -> a :class:`ModelSpec` -> source.

A spec is data (statements of layer constructor code), so the same spec renders the model
the test builds and the reproduction script a failing seed prints, and shrinking is
dropping statements. Kinds: ``sequential``; ``functional`` (a layer applied twice, two
branches merged, a second input, a nested Sequential or functional model); ``subclass``
(layers created in ``__init__`` in a random order, the head possibly first -- issue 9
item 1); ``custom_step`` (a subclass with its own ``train_step``); ``gan`` (two sub-models,
two tapes, two optimizers -- item 3).
"""
from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass, field

from . import (catalogue, catalogue_3d, catalogue_inputs, catalogue_merges,
               catalogue_recurrent, featured)
from . import catalogue_augment
from . import catalogue_dtypes
from . import catalogue_layers11
from . import catalogue_ops
from .catalogue import Choice
from .shapes import Shapes

KINDS = ["sequential", "functional", "subclass", "custom_step", "gan"]

OPTIMIZERS = [
    "optimizers.SGD(learning_rate=0.05)",
    "optimizers.SGD(learning_rate=0.05, momentum=0.9)",
    "optimizers.SGD(learning_rate=0.05, momentum=0.9, nesterov=True)",
    "optimizers.Adam(learning_rate=0.01)",
    "optimizers.Adam(learning_rate=0.01, amsgrad=True)",
    "optimizers.AdamW(learning_rate=0.01, weight_decay=0.05)",
    "optimizers.RMSprop(learning_rate=0.01)",
    "optimizers.RMSprop(learning_rate=0.01, momentum=0.5, centered=True)",
    "optimizers.Adagrad(learning_rate=0.05)",
    "optimizers.Adadelta(learning_rate=1.0)",
    "optimizers.Adamax(learning_rate=0.01)",
    "optimizers.Nadam(learning_rate=0.01)",
    "optimizers.Lion(learning_rate=0.003)",
    "optimizers.SGD(learning_rate=0.05, clipnorm=0.5)",
    "optimizers.Adam(learning_rate=0.01, clipvalue=0.1, weight_decay=0.01)",
    "optimizers.Adam(learning_rate=0.01, global_clipnorm=1.0, use_ema=True)",
    "optimizers.Adafactor(learning_rate=0.05)",
    "optimizers.Ftrl(learning_rate=0.1, l1_regularization_strength=0.001)",
    "optimizers.Lamb(learning_rate=0.01, weight_decay=0.01)",
    "optimizers.Muon(learning_rate=0.01)",
    "optimizers.ScheduleFreeAdamW(learning_rate=0.01, warmup_steps=2)",
    "optimizers.MultiOptimizer(optimizers.OptimizerMap(optimizers.SGD(learning_rate=0.05), "
    "{'.*kernel': optimizers.Adam(learning_rate=0.01)}))",
]

# (loss code, head activation, fixed units or None, label kind)
LOSSES = [
    ("'sparse_categorical_crossentropy'", "softmax", None, "sparse"),
    ("losses.SparseCategoricalCrossentropy(from_logits=True)", "linear", None, "sparse"),
    ("'categorical_crossentropy'", "softmax", None, "onehot"),
    ("losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1)", "linear",
     None, "onehot"),
    ("'binary_crossentropy'", "sigmoid", 1, "binary"),
    ("losses.BinaryCrossentropy(from_logits=True)", "linear", None, "binary"),
    ("'mse'", "linear", None, "real"),
    ("'mae'", "tanh", None, "real"),
    ("losses.Huber(delta=0.5)", "linear", None, "real"),
    ("'log_cosh'", "linear", None, "real"),
    ("'kl_divergence'", "softmax", None, "probs"),
    ("'poisson'", "softplus", None, "counts"),
    ("'mean_squared_logarithmic_error'", "softplus", None, "counts"),
    ("'hinge'", "linear", None, "pm1"),
    ("'squared_hinge'", "tanh", None, "pm1"),
    ("'categorical_hinge'", "linear", None, "onehot"),
    ("'cosine_similarity'", "linear", None, "real"),
]


@dataclass
class Stmt:
    kind: str                       # layer | shared | branch | nested | second_input
    choices: list = field(default_factory=list)     # the layers (branch: first branch)
    other: list = field(default_factory=list)       # branch: the second branch
    merge: str = ""                 # branch / second_input: the merging layer
    shape: tuple = ()               # nested / second_input: the input shape there
    functional: bool = False        # nested: a functional model rather than Sequential


@dataclass
class ModelSpec:
    seed: int
    kind: str
    dtype: str
    input_shape: tuple
    vocab: int                      # > 0: integer ids into an Embedding first
    stmts: list
    head: list
    loss: str
    labels: str
    units: int
    optimizer: str
    optimizer2: str                 # gan: the generator's optimizer
    order: list                     # subclass: creation order of the attributes
    n: int                          # samples
    fit_batch: int                  # 0: train_on_batch with train_batches instead
    train_batches: list
    predict_batch: int
    symbolic: tuple = ()            # the Input's shape where it has unknown (None) sizes
    round_trip: bool = False        # the graph twin is from_config(get_config())

    def replace(self, **changes) -> "ModelSpec":
        return dataclasses.replace(self, **changes)


# ---------------------------------------------------------------- generation
def _rules():
    global _ALL_RULES
    if _ALL_RULES is None:
        _ALL_RULES = (catalogue.RULES * 3 + catalogue_3d.RULES * 3
                      + catalogue_recurrent.RULES * 2 + catalogue.harness_rules()
                      + catalogue_layers11.RULES + catalogue_augment.RULES
                      + catalogue_dtypes.RULES * 3)
    return _ALL_RULES


_ALL_RULES = None


def _pick(r, shapes, shape, rules=None, sequential=False, same_shape=False):
    """A fitting layer for ``shape``: (choice, output shape), or (None, shape)."""
    rules = rules or _rules()
    for _ in range(30):
        choice = r.choice(rules)(r, shape)
        if choice is None or (sequential and not choice.sequential):
            continue
        out = shapes.apply(choice, shape)
        if out is not None and (not same_shape or out == shape):
            return choice, out
    return None, shape


def _chain(r, shapes, shape, count, sequential=False):
    choices = []
    for _ in range(count):
        choice, shape = _pick(r, shapes, shape, sequential=sequential)
        if choice is not None:
            choices.append(choice)
    return choices, shape


def generate(seed: int, kind: str | None = None) -> ModelSpec:
    r = random.Random(seed)
    kind = kind or r.choice(KINDS)
    dtype = "float64" if r.random() < 0.25 else "float32"
    shapes = Shapes(dtype)
    begun = featured.start(seed, r, shapes, kind, _rules(), Stmt)
    if begun is None:
        begun = _random_start(r, shapes, kind)
    kind, input_shape, vocab, stmts, shape = begun
    sequential = kind in ("sequential", "gan")
    # Today's additions draw from their own stream, so the rest of a seed's model is as before
    r2 = random.Random(seed * 7919 + 17)
    symbolic = ()
    if kind == "functional" and not vocab and r2.random() < 0.35:
        start = catalogue_ops.unknown_start(r2, input_shape)
        if start is not None and shapes.apply(start[2], start[1]) == input_shape:
            input_shape, symbolic = start[0], start[1]
            stmts.insert(0, Stmt("layer", [start[2]]))
    for _ in range(r.randint(1, 5)):
        roll = r.random()
        if (kind == "functional" and roll < 0.15 and shape == input_shape and not vocab
                and not any(s.kind == "second_input" for s in stmts)):
            merge, merged = _merge(r, shapes, shape)
            choice, out = _pick(r, shapes, shape, catalogue.SAME_SHAPE, same_shape=True)
            if choice is not None and merge:
                stmts.append(Stmt("second_input", [choice], merge=merge, shape=shape))
                shape = merged
            continue
        if not sequential and roll < 0.3:
            choice, out = _pick(r, shapes, shape, catalogue.SAME_SHAPE, same_shape=True)
            if choice is not None:
                stmts.append(Stmt("shared", [choice]))
            continue
        if kind in ("functional", "subclass", "custom_step") and roll < 0.45:
            a, shape_a = _chain(r, shapes, shape, r.randint(0, 2))
            b, shape_b = _chain(r, shapes, shape, r.randint(0, 2))
            merge, merged = _merge(r, shapes, shape_a)
            if shape_a == shape_b and (a or b) and merge:
                stmts.append(Stmt("branch", a, b, merge=merge))
                shape = merged
            continue
        if kind != "gan" and roll < 0.6:
            functional = kind == "functional" and r.random() < 0.5
            inner, out = _chain(r, shapes, shape, r.randint(1, 3), sequential=not functional)
            if inner:
                stmts.append(Stmt("nested", inner, shape=shape, functional=functional))
                shape = out
            continue
        choice, shape = _pick(r, shapes, shape, sequential=sequential)
        if choice is not None:
            stmts.append(Stmt("layer", [choice]))
        if kind == "functional" and r2.random() < 0.35:       # an op node between layers
            choice, shape = _pick(r2, shapes, shape, catalogue_ops.RULES)
            if choice is not None:
                stmts.append(Stmt("layer", [choice]))
    loss, head_act, units, labels = r.choice(LOSSES)
    if kind == "gan":
        loss, head_act, units, labels = ("losses.BinaryCrossentropy(from_logits=True)",
                                         "linear", 1, "binary")
    units = units or r.randint(2, 4)
    head = []
    if len(shape) > 1:
        pool = {3: "layers.GlobalAveragePooling2D()", 4: "layers.GlobalMaxPooling3D()"}
        head.append(Choice(r.choice(["layers.Flatten()", f"layers.Reshape(({math.prod(shape)},))"])
                           if len(shape) not in pool or r.random() < 0.7 else pool[len(shape)]))
    head.append(Choice(f"layers.Dense({units}, activation={head_act!r})"))
    order = list(range(len(_attributes(stmts)) + len(head)))
    r.shuffle(order)
    n = r.randint(9, 24)
    steps = r.randint(3, 5)
    fit_batch = 0 if r.random() < 0.3 else max(1, math.ceil(n / steps))
    n = min(n, fit_batch * steps) if fit_batch else n
    if fit_batch and n % fit_batch == 0 and fit_batch > 1 and r.random() < 0.7:
        n -= 1                                     # a ragged last batch
    train_batches = [r.randint(1, n) for _ in range(steps)]
    if kind == "gan":
        stmts = [s for s in (_without_weight_rewrites(s) for s in stmts)
                 if s.choices or s.kind != "layer"]
    return ModelSpec(seed=seed, kind=kind, dtype=dtype, input_shape=input_shape,
                     vocab=vocab, stmts=stmts, head=head, loss=loss, labels=labels,
                     units=units, optimizer=r.choice(OPTIMIZERS),
                     optimizer2=r.choice(OPTIMIZERS), order=order, n=n,
                     fit_batch=fit_batch, train_batches=train_batches,
                     predict_batch=r.randint(1, n), symbolic=symbolic,
                     round_trip=kind in ("functional", "sequential"))


_SPECTRAL = "layers.SpectralNormalization("
# Shape-preserving layers whose output is piecewise constant in their input (a histogram
# lookup, a quantization): no gradient reaches a GAN's generator through them, so a GAN's
# discriminator leaves them out (both modes would raise "no gradients" in the g step).
_NO_INPUT_GRADIENT = ("layers.Equalization(", "layers.ContrastLimitedAdaptiveHistogram",
                      "layers.RandomPosterization(")


def _without_weight_rewrites(stmt):
    """A GAN step calls its discriminator twice under one tape. SpectralNormalization
    assigns its wrapped kernel on every training call, and Lamina's tape refuses a gradient
    through a variable changed after it was read (in both modes, GradientError; Keras's
    backends record the value read). Such a discriminator keeps the wrapped layer alone.
    (The GAN guide's pattern, one call on real and fake images concatenated, works.)"""
    def unwrap(choice):
        if not choice.code.startswith(_SPECTRAL):
            return choice
        inner = choice.code[len(_SPECTRAL):].rsplit(", power_iterations=", 1)[0]
        inner = inner[:-1] if inner.endswith(")") and inner.count("(") < inner.count(")") \
            else inner
        return Choice(inner)
    def keep(choices):
        return [unwrap(c) for c in choices if not c.code.startswith(_NO_INPUT_GRADIENT)]
    return Stmt(stmt.kind, keep(stmt.choices), keep(stmt.other), stmt.merge, stmt.shape,
                stmt.functional)


def _merge(r, shapes, shape):
    """A merging layer for two tensors of ``shape``: (code, merged shape) or (None, shape)."""
    for _ in range(10):
        code = catalogue_merges.merge(r, shape)
        merged = shapes.merge(code, shape)
        if merged is not None:
            return code, merged
    return None, shape


def _random_start(r, shapes, kind):
    """(kind, input shape, vocabulary, first statements, shape after them)."""
    rank = r.choice([1, 1, 2, 2, 3, 4])
    shape = featured.random_shape(r, rank)
    if rank <= 2 and r.random() < 0.25 and kind != "gan":
        first, vocab, codes = catalogue_inputs.first(r)
        out = shapes.chain(codes, first, "int32" if vocab else None)
        if out is not None:
            return kind, first, vocab, [Stmt("layer", [Choice(c)]) for c in codes], out
    return kind, shape, 0, [], shape


def _attributes(stmts):
    """The layer objects a subclass creates in __init__: (statement index, part, index)."""
    names = []
    for i, s in enumerate(stmts):
        if s.kind == "nested":
            names.append((i, "nested", 0))
            continue
        names += [(i, "a", j) for j in range(len(s.choices))]
        names += [(i, "b", j) for j in range(len(s.other))]
        if s.kind in ("branch", "second_input"):
            names.append((i, "merge", 0))
    return names


# ---------------------------------------------------------------- rendering
HEADER = """import numpy as np
import lamina
from lamina import layers, losses, ops, optimizers
"""


def render(spec: ModelSpec) -> str:
    """Standalone source defining ``build_model()``, ``make_optimizer()`` and the data
    constants for ``checks.py``."""
    lines = [HEADER, f"lamina.config.set_floatx({spec.dtype!r})", ""]
    builder = {"sequential": _render_sequential, "functional": _render_functional,
               "subclass": _render_subclass, "custom_step": _render_subclass,
               "gan": _render_gan}[spec.kind]
    lines += builder(spec)
    lines += ["", "", "def make_optimizer():", f"    return {spec.optimizer}", ""]
    inputs = 2 if any(s.kind == "second_input" for s in spec.stmts) else 1
    lines += [f"LOSS = {spec.loss}",
              f"DATA = dict(input_shape={spec.input_shape!r}, inputs={inputs}, "
              f"vocab={spec.vocab}, labels={spec.labels!r}, units={spec.units}, "
              f"dtype={spec.dtype!r}, n={spec.n}, round_trip={_round_trips(spec)})",
              f"TRAINING = dict(fit_batch={spec.fit_batch}, "
              f"train_batches={spec.train_batches!r}, predict_batch={spec.predict_batch})"]
    return "\n".join(lines) + "\n"


def _round_trips(spec):
    """Whether the graph twin is rebuilt from the model's config: functional and
    Sequential models whose layers hold no Python lambdas (a config never brings code)."""
    source = "".join(c.code + c.call for s in spec.stmts for c in s.choices + s.other)
    return spec.round_trip and "lambda" not in source.lower()


def _apply(choice, x):
    return choice.call.format(layer=choice.code, x=x)


def _render_sequential(spec):
    items = [f"lamina.Input({spec.input_shape!r}"
             + (", dtype='int32')" if spec.vocab else ")")]
    pre = []
    for i, s in enumerate(spec.stmts):
        if s.kind == "nested":
            inner = ", ".join([f"lamina.Input({s.shape!r})"] + [c.code for c in s.choices])
            pre.append(f"    inner{i} = lamina.Sequential([{inner}])")
            items.append(f"inner{i}")
        else:
            items += [c.code for c in s.choices]
    items += [c.code for c in spec.head]
    body = ",\n        ".join(items)
    return ["def build_model():", *pre,
            f"    return lamina.Sequential([\n        {body}])"]


def _nested_functional(i, s):
    lines = [f"    t{i} = lamina.Input({s.shape!r})", f"    u{i} = t{i}"]
    lines += [f"    u{i} = {_apply(c, f'u{i}')}" for c in s.choices]
    return lines + [f"    inner{i} = lamina.Model(t{i}, u{i})"]


def _render_functional(spec):
    dtype = ", dtype='int32'" if spec.vocab else ""
    lines = ["def build_model():",
             f"    x0 = lamina.Input({spec.symbolic or spec.input_shape!r}{dtype})",
             "    h = x0"]
    inputs = ["x0"]
    for i, s in enumerate(spec.stmts):
        if s.kind == "layer":
            lines.append(f"    h = {_apply(s.choices[0], 'h')}")
        elif s.kind == "shared":
            lines += [f"    shared{i} = {s.choices[0].code}",
                      f"    h = {_apply(s.choices[0], 'h').replace(s.choices[0].code, f'shared{i}')}",
                      f"    h = {_apply(s.choices[0], 'h').replace(s.choices[0].code, f'shared{i}')}"]
        elif s.kind == "second_input":
            inputs.append("x1")
            lines += [f"    x1 = lamina.Input({s.shape!r})",
                      f"    h = {s.merge}([h, {_apply(s.choices[0], 'x1')}])"]
        elif s.kind == "branch":
            lines += ["    a = h"] + [f"    a = {_apply(c, 'a')}" for c in s.choices]
            lines += ["    b = h"] + [f"    b = {_apply(c, 'b')}" for c in s.other]
            lines.append(f"    h = {s.merge}([a, b])")
        elif s.kind == "nested":
            if s.functional:
                lines += _nested_functional(i, s)
            else:
                inner = ", ".join([f"lamina.Input({s.shape!r})"] + [c.code for c in s.choices])
                lines.append(f"    inner{i} = lamina.Sequential([{inner}])")
            lines.append(f"    h = inner{i}(h)")
    lines += [f"    h = {_apply(c, 'h')}" for c in spec.head]
    model_inputs = inputs[0] if len(inputs) == 1 else f"[{', '.join(inputs)}]"
    return lines + [f"    return lamina.Model({model_inputs}, h)"]


def _render_subclass(spec):
    created, calls = {}, []
    names = _attributes(spec.stmts)
    for k, (i, part, j) in enumerate(names):
        s = spec.stmts[i]
        if part == "nested":
            inner = ", ".join([f"lamina.Input({s.shape!r})"] + [c.code for c in s.choices])
            created[k] = f"self.l{k} = lamina.Sequential([{inner}])"
        elif part == "merge":
            created[k] = f"self.l{k} = {s.merge}"
        else:
            created[k] = f"self.l{k} = {(s.choices if part == 'a' else s.other)[j].code}"
    index = {name: k for k, name in enumerate(names)}
    for i, s in enumerate(spec.stmts):
        def attr(part, j, x, choice=None):
            layer = f"self.l{index[(i, part, j)]}"
            return (choice.call.format(layer=layer, x=x) if choice else f"{layer}({x})")
        if s.kind == "layer":
            calls.append(f"h = {attr('a', 0, 'h', s.choices[0])}")
        elif s.kind == "shared":
            calls += [f"h = {attr('a', 0, 'h', s.choices[0])}"] * 2
        elif s.kind == "branch":
            calls += ["a = h"] + [f"a = {attr('a', j, 'a', c)}" for j, c in enumerate(s.choices)]
            calls += ["b = h"] + [f"b = {attr('b', j, 'b', c)}" for j, c in enumerate(s.other)]
            calls.append(f"h = {attr('merge', 0, '[a, b]')}")
        elif s.kind == "nested":
            calls.append(f"h = {attr('nested', 0, 'h')}")
    for j, c in enumerate(spec.head):
        k = len(names) + j
        created[k] = f"self.l{k} = {c.code}"
        calls.append(f"h = self.l{k}(h)")
    order = [k for k in spec.order if k in created] + \
        [k for k in sorted(created) if k not in spec.order]
    lines = ["class Net(lamina.Model):", "    def __init__(self):", "        super().__init__()"]
    lines += [f"        {created[k]}" for k in order]
    lines += ["", "    def call(self, x):", "        h = x"] + [f"        {c}" for c in calls]
    lines.append("        return h")
    if spec.kind == "custom_step":
        lines += ["", *CUSTOM_TRAIN_STEP.splitlines()]
    return lines + ["", "", "def build_model():", "    return Net()"]


CUSTOM_TRAIN_STEP = """    def train_step(self, data):
        x, y = data
        with lamina.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        return {"loss": loss}"""


def _render_gan(spec):
    shape, size = spec.input_shape, math.prod(spec.input_shape)
    disc = [f"lamina.Input({shape!r})"] + [c.code for s in spec.stmts for c in s.choices]
    disc += [c.code for c in spec.head]
    return [
        "class GAN(lamina.Model):",
        "    def __init__(self):",
        "        super().__init__()",
        f"        self.generator = lamina.Sequential([lamina.Input({shape!r}), "
        f"layers.Flatten(), layers.Dense(4, activation='tanh'), layers.Dense({size}), "
        f"layers.Reshape({shape!r})])",
        "        self.discriminator = lamina.Sequential([\n            "
        + ",\n            ".join(disc) + "])",
        "        self.d_optimizer = make_optimizer()",
        f"        self.g_optimizer = {spec.optimizer2}",
        "",
        "    def call(self, x):",
        "        return self.discriminator(self.generator(x))",
        "",
        "    def train_step(self, data):",
        "        x, _ = data",
        "        with lamina.GradientTape() as tape:",
        "            fake = self.generator(x, training=True)",
        "            d_loss = (ops.mean(ops.softplus(-self.discriminator(x, training=True)))",
        "                      + ops.mean(ops.softplus(self.discriminator(fake, training=True))))",
        "        d_vars = self.discriminator.trainable_weights",
        "        self.d_optimizer.apply_gradients(zip(tape.gradient(d_loss, d_vars), d_vars))",
        "        with lamina.GradientTape() as tape:",
        "            fake = self.generator(x, training=True)",
        "            g_loss = ops.mean(ops.softplus(-self.discriminator(fake, training=True)))",
        "        g_vars = self.generator.trainable_weights",
        "        self.g_optimizer.apply_gradients(zip(tape.gradient(g_loss, g_vars), g_vars))",
        "        return {'d_loss': d_loss, 'g_loss': g_loss}",
        "",
        "",
        "def build_model():",
        "    return GAN()"]
