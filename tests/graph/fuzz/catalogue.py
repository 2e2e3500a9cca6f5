"""The fuzzer's layer catalogue: shape rules giving constructor code for an input shape.

A rule takes ``(r, shape)`` -- a ``random.Random`` and the input shape without the batch
dimension -- and returns a ``Choice`` (the constructor expression, written against
``layers``, and how it is called) or None when the layer does not fit that shape. The
generator then tries it on a symbolic tensor and skips it if the call raises, so a rule
only needs to be roughly right. ``harness_rules`` adds every layer-harness case of
``tests/layers`` (every registered layer) whose input rank fits, with its own arguments.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

ACTIVATIONS = ["relu", "tanh", "sigmoid", "linear", "gelu", "elu", "softplus", "swish",
               "selu", "softsign", "leaky_relu", "relu6", "silu", "hard_sigmoid"]
PADDINGS = ["valid", "same"]


@dataclass(frozen=True)
class Choice:
    code: str                     # e.g. "layers.Dense(4, activation='tanh')"
    call: str = "{layer}({x})"    # how a layer object is applied to a tensor x
    stateful: bool = False        # has state that training changes (batch-norm statistics)

    @property
    def sequential(self) -> bool:
        return self.call == "{layer}({x})"


def _act(r):
    return r.choice(ACTIVATIONS)


def _units(r):
    return r.randint(1, 6)


# ---------------------------------------------------------------- any rank
def dense(r, s):
    return Choice(f"layers.Dense({_units(r)}, activation={_act(r)!r}, "
                  f"use_bias={r.random() < 0.8})")


def activation(r, s):
    return Choice(f"layers.Activation({_act(r)!r})")


def small_activation_layer(r, s):
    return Choice(r.choice(["layers.ReLU()", "layers.ReLU(max_value=1.5)",
                            "layers.LeakyReLU(negative_slope=0.2)", "layers.ELU()",
                            "layers.PReLU()", "layers.Softmax()"]))


def dropout(r, s):
    seed = r.choice(["None", str(r.randint(0, 99))])
    return Choice(f"layers.Dropout({r.choice([0.1, 0.3, 0.5])}, seed={seed})")


def noise(r, s):
    return Choice(r.choice([f"layers.GaussianNoise(0.1, seed={r.randint(0, 9)})",
                            f"layers.GaussianDropout(0.2, seed={r.randint(0, 9)})",
                            f"layers.AlphaDropout(0.2, seed={r.randint(0, 9)})"]))


def batch_norm(r, s):
    return Choice(f"layers.BatchNormalization(momentum={r.choice([0.5, 0.9, 0.99])}, "
                  f"center={r.random() < 0.8}, scale={r.random() < 0.8})", stateful=True)


def layer_norm(r, s):
    return Choice(f"layers.LayerNormalization(center={r.random() < 0.8}, "
                  f"scale={r.random() < 0.8})")


def group_norm(r, s):
    groups = [g for g in (1, 2, 3, 4) if s[-1] % g == 0]
    return Choice(f"layers.GroupNormalization(groups={r.choice(groups)})")


def unit_norm(r, s):
    return Choice("layers.UnitNormalization()")


def identity(r, s):
    return Choice(r.choice(["layers.Identity()", "layers.ActivityRegularization(l1=0.01)"]))


def dense_regularized(r, s):
    return Choice(f"layers.Dense({_units(r)}, kernel_regularizer='l2', "
                  f"bias_regularizer='l1', activity_regularizer='l2')")


def lambda_layer(r, s):
    return Choice(f"layers.Lambda(lambda t: {r.choice(LAMBDAS)})")


LAMBDAS = ["ops.tanh(t) * 2.0", "t * ops.sigmoid(t)", "ops.square(t) * 0.5 - t",
           "ops.flip(t, axis=-1)", "ops.abs(t) + ops.sin(t)",
           # ops.shape's batch size (a DynamicDim in a traced call)
           "ops.reshape(ops.reshape(t, (ops.shape(t)[0], -1)), ops.shape(t))",
           # complex numbers: polar, view_as_complex/real, conj, real/imag, abs
           "ops.real(ops.polar(t, t * 0.5) * (0.5 - 1j))",
           "ops.abs(ops.polar(t, t)) + ops.imag(ops.conj(ops.polar(t, t)))",
           "ops.cast(ops.view_as_real(ops.view_as_complex(ops.stack([t, ops.tanh(t)], "
           "axis=-1)) * 1j)[..., 0], t.dtype)"]


def reshape_flat(r, s):
    return Choice(f"layers.Reshape(({math.prod(s)},))") if len(s) > 1 else None


def flatten(r, s):
    return Choice("layers.Flatten()") if len(s) > 1 else None


# ---------------------------------------------------------------- rank 1 -> rank 2
def repeat_vector(r, s):
    return Choice(f"layers.RepeatVector({r.randint(2, 4)})") if len(s) == 1 else None


def reshape_to_sequence(r, s):
    if len(s) != 1:
        return None
    splits = [d for d in range(2, s[0] + 1) if s[0] % d == 0]
    return Choice(f"layers.Reshape(({r.choice(splits)}, -1))") if splits else None


def embedding_like(r, s):        # an Embedding needs ints: generated as the first layer
    return None


# ---------------------------------------------------------------- sequences (steps, ch)
def _seq(fn):
    return lambda r, s: fn(r, s) if len(s) == 2 else None


@_seq
def conv1d(r, s):
    kernel = r.randint(1, 3)
    extra = r.choice(["", f", strides={r.randint(1, 2)}", ", dilation_rate=2"])
    return Choice(f"layers.Conv1D({_units(r)}, {kernel}, padding={r.choice(PADDINGS)!r}, "
                  f"activation={_act(r)!r}{extra})")


def _spatial_rules(dims: int, fits):
    """The rules that differ between 1-D and 2-D inputs only by the class suffix:
    transposed, separable and depthwise convolutions, pooling and global pooling."""
    suffix = f"{dims}D"

    def conv_transpose(r, s):
        return Choice(f"layers.Conv{suffix}Transpose({_units(r)}, {r.randint(1, 3)}, "
                      f"strides={r.randint(1, 2)}, padding={r.choice(PADDINGS)!r})")

    def separable_conv(r, s):
        return Choice(f"layers.SeparableConv{suffix}({_units(r)}, {r.randint(1, 3)}, "
                      f"depth_multiplier={r.randint(1, 2)}, padding={r.choice(PADDINGS)!r})")

    def depthwise_conv(r, s):
        return Choice(f"layers.DepthwiseConv{suffix}({r.randint(1, 3)}, "
                      f"depth_multiplier={r.randint(1, 2)}, padding={r.choice(PADDINGS)!r})")

    def pool(r, s):
        kind = r.choice([f"MaxPooling{suffix}", f"AveragePooling{suffix}"])
        return Choice(f"layers.{kind}({r.randint(1, 2)}, padding={r.choice(PADDINGS)!r})")

    def global_pool(r, s):
        kinds = [f"GlobalMaxPooling{suffix}", f"GlobalAveragePooling{suffix}"]
        return Choice(f"layers.{r.choice(kinds)}()")
    return [fits(rule) for rule in (conv_transpose, separable_conv, depthwise_conv, pool,
                                    global_pool)]


@_seq
def rnn(r, s):
    kind = r.choice(["LSTM", "GRU", "SimpleRNN"])
    extra = ""
    if kind != "SimpleRNN":       # variants of the whole-sequence oneDNN ops (float32)
        if r.random() < 0.2:
            extra += ", use_bias=False"
        if kind == "GRU" and r.random() < 0.3:
            extra += ", reset_after=False"
        if r.random() < 0.2:      # one input mask per sequence, in both modes
            extra += f", dropout=0.25, seed={r.randint(0, 9)}"
    inner = (f"layers.{kind}({_units(r)}, return_sequences={r.random() < 0.5}, "
             f"go_backwards={r.random() < 0.2}{extra})")
    if r.random() < 0.3:
        mode = r.choice(["concat", "sum", "mul", "ave"])
        return Choice(f"layers.Bidirectional({inner}, merge_mode={mode!r})")
    return Choice(inner)


@_seq
def sequence_reshaping(r, s):
    return Choice(r.choice(["layers.Permute((2, 1))", "layers.Cropping1D((1, 0))",
                            "layers.ZeroPadding1D(1)", "layers.UpSampling1D(2)",
                            f"layers.SpatialDropout1D(0.3, seed={r.randint(0, 9)})",
                            f"layers.TimeDistributed(layers.Dense({_units(r)}))"]))


@_seq
def attention(r, s):
    kind = r.choice(["Attention", "AdditiveAttention"])
    extra = ", use_scale=True" if r.random() < 0.5 else ""
    return Choice(f"layers.{kind}({extra.lstrip(', ')})", call="{layer}([{x}, {x}])")


@_seq
def multi_head_attention(r, s):
    return Choice(f"layers.MultiHeadAttention(num_heads={r.randint(1, 2)}, "
                  f"key_dim={r.randint(1, 3)})", call="{layer}({x}, {x})")


# ---------------------------------------------------------------- images (h, w, ch)
def _image(fn):
    return lambda r, s: fn(r, s) if len(s) == 3 else None


@_image
def conv2d(r, s):
    extra = r.choice(["", ", strides=2", ", dilation_rate=2"])
    return Choice(f"layers.Conv2D({_units(r)}, {r.randint(1, 3)}, "
                  f"padding={r.choice(PADDINGS)!r}, activation={_act(r)!r}{extra})")


@_image
def image_reshaping(r, s):
    code = r.choice(["layers.Cropping2D(((1, 0), (0, 1)))", "layers.ZeroPadding2D(1)",
                     "layers.UpSampling2D(2)", "layers.Permute((2, 1, 3))",
                     f"layers.SpatialDropout2D(0.3, seed={r.randint(0, 9)})",
                     f"layers.Reshape(({s[0] * s[1]}, {s[2]}))"])
    if code.startswith("layers.UpSampling2D"):
        method = r.choice(["nearest", "bilinear", "bicubic", "lanczos3", "lanczos5"])
        code = f"layers.UpSampling2D(2, interpolation={method!r})"
    return Choice(code)


# ---------------------------------------------------------------- LoRA (any rank)
def lora(r, s):
    """Dense, EinsumDense, Conv1D/2D/3D (by the input's rank) or ReversibleEmbedding's
    reverse projection with LoRA: asked for in the constructor (``b`` starts at zeros: the
    update shows once training moves it) or enabled on the built layer with a random ``b``,
    so that the low-rank path counts from the first step."""
    units, kernel, padding = _units(r), r.randint(1, 2), r.choice(PADDINGS)
    if r.random() < 0.15:          # Embedding's LoRA on floats: the tied reverse projection
        return Choice(f"layers.ReversibleEmbedding({units + 1}, {s[-1]}, "
                      f"lora_rank={r.randint(1, 2)})", call="{layer}({x}, reverse=True)")
    if len(s) == 1 or r.random() < 0.25:
        code = f"layers.Dense({units}, activation={_act(r)!r}, use_bias={r.random() < 0.8})"
    elif len(s) == 2 and r.random() < 0.5:
        code = (f"layers.EinsumDense('abc,cd->abd', output_shape=({s[0]}, {units}), "
                f"bias_axes={r.choice(['d', None])!r})")
    elif len(s) in (2, 3, 4):
        dims = len(s) - 1
        code = f"layers.Conv{dims}D({units}, {kernel}, padding={padding!r})"
    else:
        return None
    rank, alpha = r.randint(1, 3), r.choice([None, 0.5, 4])
    if r.random() < 0.5:
        return Choice(f"{code[:-1]}, lora_rank={rank}, lora_alpha={alpha})")
    return Choice(f"(lambda q: (q.build({(None, *s)!r}), q.enable_lora({rank}, "
                  f"lora_alpha={alpha}, b_initializer='random_normal'), q)[-1])({code})")


RULES = [dense, activation, small_activation_layer, dropout, noise, batch_norm, layer_norm,
         group_norm, unit_norm, identity, dense_regularized, lambda_layer, reshape_flat,
         flatten,
         repeat_vector, reshape_to_sequence, conv1d, *_spatial_rules(1, _seq), rnn,
         sequence_reshaping, attention, multi_head_attention, conv2d,
         *_spatial_rules(2, _image), image_reshaping, lora]

# Shape-preserving layers (for a layer applied twice and for two merged branches).
SAME_SHAPE = [lambda r, s: Choice(f"layers.Dense({s[-1]}, activation={_act(r)!r})"),
              layer_norm, activation, dropout, batch_norm, unit_norm]



# ---------------------------------------------------------------- the harness walk
# Piecewise-constant outputs: no gradient reaches what feeds them (a GAN's generator).
NOT_DIFFERENTIABLE = {"Discretization", "CategoryEncoding"}

def harness_rules():
    """One rule per layer-harness case with one float input whose arguments print as code
    (every registered layer has at least one case in tests/layers)."""
    from tests.layers.test_registry import _all_cases
    rules = []
    for case in _all_cases():
        if isinstance(case.input_shape, list) or case.make_input is not None:
            continue
        # training=False alone is the harness asking a random layer for inference outputs;
        # in a generated model the fit/predict context decides.
        call_kwargs = {k: v for k, v in case.call_kwargs.items() if k != "training"}
        if (case.input_dtype != "float32" or call_kwargs
                or case.cls.__name__ in NOT_DIFFERENTIABLE):
            continue
        code = f"layers.{case.cls.__name__}(**{case.kwargs!r})"
        try:
            eval(code, {"layers": __import__("lamina").layers})
        except Exception:         # an argument that does not print as code (a layer, a fn)
            continue
        rank = len(case.input_shape) - 1
        rules.append(_harness_rule(code, rank))
    return rules


def _harness_rule(code, rank):
    return lambda r, s: Choice(code) if len(s) == rank else None
