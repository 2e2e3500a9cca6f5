"""Make the conformance fixtures in a throwaway environment with Keras 3.15.1 on JAX
(never in Lamina's own; Lamina never imports Keras):

    python -m venv /tmp/k && /tmp/k/bin/pip install keras==3.15.1 jax pytest tensorflow-cpu \\
        grain pandas
    KERAS_BACKEND=jax /tmp/k/bin/python tests/keras_conformance/make_fixtures.py names
    KERAS_BACKEND=jax /tmp/k/bin/python tests/keras_conformance/make_fixtures.py baseline

``names`` writes fixtures/keras_names.json: for every module of ``keras.src``, its attribute
names, and for those that are public objects, the public names they have (``keras.ops.add``
for ``keras.src.ops.numpy.add``). The shim resolves ``keras.src`` imports with it.

``baseline`` runs Keras's own tests of the areas in ``areas.AREAS`` on JAX and writes
fixtures/baseline_jax.json: test ids and outcomes only."""
import importlib
import json
import os
import pkgutil
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from areas import AREAS, LEFT_OUT  # noqa: E402  (this folder is not a package in the Keras env)


def _public_objects(keras):
    """id(object) -> sorted public names, walking keras.<namespace>... modules."""
    names: dict[int, set] = {}
    seen = set()

    def walk(module, path):
        if id(module) in seen:
            return
        seen.add(id(module))
        for attr in dir(module):
            if attr.startswith("_"):
                continue
            value = getattr(module, attr)
            full = f"{path}.{attr}"
            if isinstance(value, types.ModuleType):
                if value.__name__.startswith("keras.") and not value.__name__.startswith(
                        ("keras.src", "keras._tf_keras", "keras.api._tf_keras")):
                    walk(value, full)
            elif callable(value) or isinstance(value, type):
                names.setdefault(id(value), set()).add(full)
    walk(keras, "keras")
    return names


def _plain(value) -> bool:
    """A constant the shim may serve as Keras's own data (a dtype list, a default)."""
    if isinstance(value, (str, int, float, bool, type(None))):
        return True
    if isinstance(value, (tuple, list, frozenset, set)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


def _jsonable(value):
    if isinstance(value, (set, frozenset)):
        return sorted((_jsonable(v) for v in value), key=repr)
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def _entry(value, public):
    if isinstance(value, types.ModuleType):
        return ["<module>", value.__name__]
    if not callable(value) and _plain(value):
        return ["<value>", type(value).__name__, _jsonable(value)]
    return sorted(public.get(id(value), ()), key=lambda n: (len(n), n))


def names():
    import keras
    public = _public_objects(keras)
    modules = {}
    for info in pkgutil.walk_packages(keras.src.__path__, "keras.src."):
        name = info.name
        if name.endswith("_test") or ".backend." in name and not name.startswith(
                ("keras.src.backend.common", "keras.src.backend.config")):
            continue
        try:
            module = importlib.import_module(name)
        except Exception:                       # a module needing TF, torch, grain...
            continue
        modules[name] = {"package": info.ispkg, "names": {
            attr: _entry(value, public) for attr, value in vars(module).items()
            if not attr.startswith("__")}}
    for name in ("keras.src", "keras.src.backend"):
        module = importlib.import_module(name)
        modules[name] = {"package": True, "names": {
            attr: _entry(value, public) for attr, value in vars(module).items()
            if not attr.startswith("__")}}
    with open(os.path.join(HERE, "fixtures", "keras_names.json"), "w") as f:
        json.dump(modules, f, indent=0, sort_keys=True)
    print(f"{len(modules)} modules")


def baseline(*areas):
    """Record the outcomes of the given areas (default: AREAS without LEFT_OUT) and merge
    them into the fixture."""
    import keras
    site = os.path.dirname(os.path.dirname(keras.__file__))
    out = os.path.join(HERE, "fixtures", "baseline_jax.json")
    raw = out + ".raw"
    env = dict(os.environ, KERAS_BACKEND="jax", JAX_PLATFORMS="cpu",
               LAMINA_CONFORMANCE_OUT=raw,
               PYTHONPATH=os.pathsep.join([HERE, os.path.join(HERE, "support")]))
    paths = [f"keras/src/{area}" for area in areas or AREAS]
    ignore = [] if areas else [f"--ignore=keras/src/{path}" for path in LEFT_OUT]
    subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "outcomes",
                     "-p", "keras_markers", "-p", "no:cacheprovider", "--rootdir", site,
                     "--continue-on-collection-errors",
                     "-o", "addopts=", "-n", os.environ.get("WORKERS", "3"), *ignore, *paths], cwd=site, env=env)
    with open(raw) as f:
        results = json.load(f)
    os.remove(raw)
    merged = {}
    if os.path.exists(out):
        with open(out) as f:
            merged = json.load(f)
    merged.update({key: value[0] for key, value in results.items()})
    with open(out, "w") as f:
        json.dump(merged, f, indent=0, sort_keys=True)
    print(f"{len(results)} tests, {sum(v[0] == 'passed' for v in results.values())} pass")


if __name__ == "__main__":
    {"names": names, "baseline": baseline}[sys.argv[1]](*sys.argv[2:])
