"""Walk Keras 3's public names (tests/api/keras_api.json) against Lamina.

`keras.X.Y` maps to `lamina.X.Y`. A name is either present with Keras's
signature (parameter names, kinds, order and defaults; annotations ignored),
excluded (it belongs to another backend), or pending (a later issue builds it).
Run as a script to print the count per namespace and every gap (``-v``);
``--write-readme`` writes the README's coverage figure.
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
    "keras.config.set_backend": "Lamina's backends are numpy/cupy, chosen by "
                                "lamina.backend; Keras's jax/torch/tensorflow names do not "
                                "apply",
    "keras.src": "Keras's private source tree, not public API",
    "keras.legacy": "Keras 2 / tf.keras compatibility shims for TensorFlow",
    "keras.optimizers.legacy": "tf.keras legacy optimizers (TensorFlow only)",
    "keras.utils.legacy": "tf.keras legacy serialization (TensorFlow only)",
    "keras.wrappers": "scikit-learn wrappers; needs scikit-learn as the base class",
    "keras.export": "ExportArchive assembles a TensorFlow SavedModel (tf.Module endpoints "
                    "traced as tf.functions); Lamina deploys with model.export(path, "
                    "format='onnx') or its own graph format (format='lamina')",
}

# keras.applications: MobileNet(V2, V3), EfficientNetB0-B7 are built; these are not (yet).
# Names that a later issue builds; never stubbed here.
PENDING = {
}

# keras.applications: issue 12 built VGG, ResNet (v1, v2), DenseNet, MobileNet (v1-v3)
# and EfficientNet (B0-B7); the other architectures are not built yet.
_APPS_LATER = (
    "ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtSmall", "ConvNeXtTiny", "ConvNeXtXLarge",
    "EfficientNetV2B0", "EfficientNetV2B1", "EfficientNetV2B2", "EfficientNetV2B3",
    "EfficientNetV2L", "EfficientNetV2M", "EfficientNetV2S", "InceptionResNetV2",
    "InceptionV3", "NASNetLarge", "NASNetMobile", "Xception", "convnext",
    "efficientnet_v2", "inception_resnet_v2", "inception_v3", "nasnet", "xception")
PENDING.update({f"keras.applications.{n}": "not built yet (issue 12 item 5 built VGG, "
                "ResNet, DenseNet, MobileNet, EfficientNet; later work)" for n in _APPS_LATER})

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


README_BEGIN, README_END = "<!-- api-coverage:begin -->", "<!-- api-coverage:end -->"


def coverage_sentence(total) -> str:
    """The README's figure, from the walk's counts by status."""
    names = sum(total.values())
    text = (f"{total['present']} of Keras 3.15.1's {names} public names are present with "
            f"Keras's signatures ({total['excluded']} belong to other frameworks, "
            f"{total['pending']} are pending")
    gaps = total["missing"] + total["signature"]
    return text + (f", {gaps} differ)" if gaps else ")")


def readme_block(total) -> str:
    return README_BEGIN + coverage_sentence(total) + README_END


def write_readme(total, path=os.path.join(HERE, "..", "..", "README.md")) -> None:
    with open(path) as f:
        text = f.read()
    head, rest = text.split(README_BEGIN, 1)
    with open(path, "w") as f:
        f.write(head + readme_block(total) + rest.split(README_END, 1)[1])


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
    if "--write-readme" in sys.argv:
        write_readme(total)
    if "-v" in sys.argv:
        for namespace, name, status, detail in gaps:
            if status == "missing":
                print(f"MISSING   {namespace}.{name}{detail[detail.index('('):] if '(' in detail else ''}")
            else:
                print(f"SIGNATURE {namespace}.{name}\n   keras  {detail[0]}\n   lamina {detail[1]}")
