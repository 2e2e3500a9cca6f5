"""Walk Keras 3's public names (tests/api/keras_api.json) against Lamina.

`keras.X.Y` maps to `lamina.X.Y`. A name is either present with Keras's
signature (parameter names, kinds, order and defaults; annotations ignored),
excluded (it belongs to another backend), or pending (a later issue builds it).
Run as a script to print the count per namespace and every gap.
"""

import importlib
import inspect
import json
import re
import os

HERE = os.path.dirname(__file__)

# Names tied to another backend or to TensorFlow's runtime: Lamina has no
# JAX, Flax, PyTorch, Orbax or TF SavedModel underneath, so these cannot exist.
EXCLUDED = {
    "keras.layers.JaxLayer": "wraps a JAX function; Lamina has no JAX backend",
    "keras.layers.FlaxLayer": "wraps a Flax module; Lamina has no JAX backend",
    "keras.layers.TorchModuleWrapper": "wraps a torch.nn.Module; Lamina has no PyTorch backend",
    "keras.layers.TFSMLayer": "loads a TensorFlow SavedModel; needs the TensorFlow runtime",
    "keras.callbacks.OrbaxCheckpoint": "writes Orbax (JAX) checkpoints",
    "keras.config.is_nnx_enabled": "Flax NNX mode of the JAX backend",
    "keras.config.set_backend": "Lamina's backends are numpy/cupy, chosen by lamina.backend; Keras's jax/torch/tensorflow names do not apply",
    "keras.src": "Keras's private source tree, not public API",
    "keras.legacy": "Keras 2 / tf.keras compatibility shims for TensorFlow",
    "keras.optimizers.legacy": "tf.keras legacy optimizers (TensorFlow only)",
    "keras.utils.legacy": "tf.keras legacy serialization (TensorFlow only)",
    "keras.wrappers": "scikit-learn wrappers; needs scikit-learn as the base class",
    # Lamina has no complex dtypes (its dtypes are bool, ints and float16/bfloat16/32/64);
    # FFTs take and return (real, imaginary) pairs, as Keras's do.
    "keras.ops.polar": "returns complex numbers; Lamina has no complex dtype",
    "keras.ops.nn.polar": "returns complex numbers; Lamina has no complex dtype",
    "keras.ops.view_as_complex": "makes complex numbers; Lamina has no complex dtype",
    "keras.ops.view_as_real": "reads complex numbers; Lamina has no complex dtype",
}

# keras.applications: MobileNet(V2, V3), EfficientNetB0-B7 are built; these are not (yet).
_APPLICATIONS_PARALLEL = "issue 12 (keras.applications: VGG/ResNet/DenseNet, on a parallel branch)"
_APPLICATIONS_UNBUILT = ("issue 12 lists VGG, ResNet, MobileNet, EfficientNetB0 and DenseNet; "
                         "this architecture is not built yet")

# Names that a later issue builds; never stubbed here.
PENDING = {
    "keras.applications.ConvNeXtBase": _APPLICATIONS_UNBUILT,
    "keras.applications.ConvNeXtLarge": _APPLICATIONS_UNBUILT,
    "keras.applications.ConvNeXtSmall": _APPLICATIONS_UNBUILT,
    "keras.applications.ConvNeXtTiny": _APPLICATIONS_UNBUILT,
    "keras.applications.ConvNeXtXLarge": _APPLICATIONS_UNBUILT,
    "keras.applications.DenseNet121": _APPLICATIONS_PARALLEL,
    "keras.applications.DenseNet169": _APPLICATIONS_PARALLEL,
    "keras.applications.DenseNet201": _APPLICATIONS_PARALLEL,
    "keras.applications.EfficientNetV2B0": _APPLICATIONS_UNBUILT,
    "keras.applications.EfficientNetV2B1": _APPLICATIONS_UNBUILT,
    "keras.applications.EfficientNetV2B2": _APPLICATIONS_UNBUILT,
    "keras.applications.EfficientNetV2B3": _APPLICATIONS_UNBUILT,
    "keras.applications.EfficientNetV2L": _APPLICATIONS_UNBUILT,
    "keras.applications.EfficientNetV2M": _APPLICATIONS_UNBUILT,
    "keras.applications.EfficientNetV2S": _APPLICATIONS_UNBUILT,
    "keras.applications.InceptionResNetV2": _APPLICATIONS_UNBUILT,
    "keras.applications.InceptionV3": _APPLICATIONS_UNBUILT,
    "keras.applications.NASNetLarge": _APPLICATIONS_UNBUILT,
    "keras.applications.NASNetMobile": _APPLICATIONS_UNBUILT,
    "keras.applications.ResNet101": _APPLICATIONS_PARALLEL,
    "keras.applications.ResNet101V2": _APPLICATIONS_PARALLEL,
    "keras.applications.ResNet152": _APPLICATIONS_PARALLEL,
    "keras.applications.ResNet152V2": _APPLICATIONS_PARALLEL,
    "keras.applications.ResNet50": _APPLICATIONS_PARALLEL,
    "keras.applications.ResNet50V2": _APPLICATIONS_PARALLEL,
    "keras.applications.VGG16": _APPLICATIONS_PARALLEL,
    "keras.applications.VGG19": _APPLICATIONS_PARALLEL,
    "keras.applications.Xception": _APPLICATIONS_UNBUILT,
    "keras.applications.convnext": _APPLICATIONS_UNBUILT,
    "keras.applications.densenet": _APPLICATIONS_PARALLEL,
    "keras.applications.efficientnet_v2": _APPLICATIONS_UNBUILT,
    "keras.applications.imagenet_utils": _APPLICATIONS_PARALLEL,
    "keras.applications.inception_resnet_v2": _APPLICATIONS_UNBUILT,
    "keras.applications.inception_v3": _APPLICATIONS_UNBUILT,
    "keras.applications.nasnet": _APPLICATIONS_UNBUILT,
    "keras.applications.resnet": _APPLICATIONS_PARALLEL,
    "keras.applications.resnet50": _APPLICATIONS_PARALLEL,
    "keras.applications.resnet_v2": _APPLICATIONS_PARALLEL,
    "keras.applications.vgg16": _APPLICATIONS_PARALLEL,
    "keras.applications.vgg19": _APPLICATIONS_PARALLEL,
    "keras.applications.xception": _APPLICATIONS_UNBUILT,
    "keras.callbacks.TensorBoard": "issue 12 (TensorBoard)",
    "keras.utils.plot_model": "issue 12 (plot_model)",
    "keras.utils.model_to_dot": "issue 12 (plot_model)",
    "keras.visualization": "issue 12 (plots)",
    "keras.utils.image_dataset_from_directory": "issue 12 (image/dataset utilities)",
    "keras.utils.text_dataset_from_directory": "issue 12 (image/dataset utilities)",
    "keras.utils.audio_dataset_from_directory": "issue 12 (image/dataset utilities)",
    "keras.utils.timeseries_dataset_from_array": "issue 12 (image/dataset utilities)",
    "keras.utils.load_img": "issue 12 (image utilities)",
    "keras.utils.save_img": "issue 12 (image utilities)",
    "keras.utils.img_to_array": "issue 12 (image utilities)",
    "keras.utils.array_to_img": "issue 12 (image utilities)",
    "keras.utils.split_dataset": "issue 12 (dataset utilities)",
    "keras.utils.bounding_boxes": "issue 12 (image utilities)",
    "keras.preprocessing": "issue 12 (image/dataset utilities)",
    "keras.distribution": "issue 14 (data-parallel training)",
    "keras.export": "issue 15 (deployment)",
    "keras.quantizers": "issue 15 (int8 quantization)",
    "keras.dtype_policies.QuantizedDTypePolicy": "issue 15 (quantization)",
    "keras.dtype_policies.QuantizedFloat8DTypePolicy": "issue 15 (quantization)",
    "keras.dtype_policies.Int4DTypePolicy": "issue 15 (quantization)",
    "keras.dtype_policies.GPTQDTypePolicy": "issue 15 (quantization)",
    "keras.dtype_policies.AWQDTypePolicy": "issue 15 (quantization)",
    "keras.Quantizer": "issue 15 (quantization)",
    "keras.quantizers": "issue 15 (int8 quantization)",
}

# Lamina adds parameters Keras lacks only where listed, with the reason.
EXTRA_PARAMETERS = {}


def load_reference():
    with open(os.path.join(HERE, "keras_api.json")) as f:
        return json.load(f)["namespaces"]


def _reason(table, namespace, name):
    full = f"{namespace}.{name}"
    for key in (full, namespace):
        if key in table:
            return table[key]
    parts = namespace.split(".")
    for i in range(len(parts), 1, -1):
        key = ".".join(parts[:i])
        if key in table:
            return table[key]
    return None


def excluded(namespace, name):
    return _reason(EXCLUDED, namespace, name)


def pending(namespace, name):
    return _reason(PENDING, namespace, name)


def render(obj):
    """Keras's rendering of a public name: 'module', 'class(...)', 'function(...)'."""
    if inspect.ismodule(obj):
        return "module"
    kind = "class" if inspect.isclass(obj) else "function"
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return kind + "(/, *args, **kwargs)"
    params = [p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()]
    text = str(signature.replace(parameters=params, return_annotation=inspect.Signature.empty))
    return kind + text


def _normalise(text):
    # `class(/, *args, **kwargs)` is how Keras renders a class without its own
    # __init__; Lamina's equivalent renders `class()`. Annotations (a few Keras names
    # have them, e.g. `raise_error: bool = False`) are not part of the comparison.
    text = re.sub(r"(\w+): [\w\[\]|. ]+? = ", r"\1=", text)
    return "class()" if text == "class(/, *args, **kwargs)" else text


def lookup(namespace, name):
    module_name = "lamina" + namespace[len("keras"):]
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None, False
    if not hasattr(module, name):
        return None, False
    return getattr(module, name), True


def walk(reference=None):
    """Yield (namespace, name, status, detail) for every name of the reference."""
    reference = reference or load_reference()
    for namespace, names in reference.items():
        for name, expected in names.items():
            reason = excluded(namespace, name)
            if reason:
                yield namespace, name, "excluded", reason
                continue
            obj, found = lookup(namespace, name)
            if not found:
                reason = pending(namespace, name)
                yield namespace, name, ("pending" if reason else "missing"), reason or expected
                continue
            got = render(obj)
            if expected == "module" or got == "module":
                ok = expected == got
            else:
                ok = _normalise(got) == _normalise(expected)
            extra = EXTRA_PARAMETERS.get(f"{namespace}.{name}")
            if not ok and extra and _normalise(extra[0]) == _normalise(got):
                ok = True
            yield namespace, name, ("present" if ok else "signature"), (expected, got)


if __name__ == "__main__":
    import collections
    import sys

    counts = collections.defaultdict(collections.Counter)
    gaps = []
    for namespace, name, status, detail in walk():
        counts[namespace][status] += 1
        if status in ("missing", "signature"):
            gaps.append((namespace, name, status, detail))
    total = collections.Counter()
    for namespace, c in counts.items():
        total.update(c)
        print(f"{namespace:28s} " + "  ".join(f"{k}={v}" for k, v in sorted(c.items())))
    print("total", dict(total))
    if "-v" in sys.argv:
        for namespace, name, status, detail in gaps:
            if status == "missing":
                print(f"MISSING   {namespace}.{name}{detail[detail.index('('):] if '(' in detail else ''}")
            else:
                print(f"SIGNATURE {namespace}.{name}\n   keras  {detail[0]}\n   lamina {detail[1]}")
