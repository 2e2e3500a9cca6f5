"""The import shim that runs Keras 3.15.1's own unit tests against Lamina.

``install()`` puts a finder first on ``sys.meta_path`` that answers every ``keras`` import:

- ``keras`` and ``keras.<namespace>`` are Lamina's public modules (``keras.layers`` is
  ``lamina.layers``);
- a ``keras.src`` module is a proxy whose attributes come from fixtures/keras_names.json
  (made from Keras itself): a name that Keras also exports publicly resolves to Lamina's
  object of that public name (``keras.src.ops.numpy.add`` -> ``lamina.ops.add``), a plain
  constant (a dtype list) is Keras's own value, and a name with no public counterpart raises
  ``KerasInternal`` (the test is then listed as reaching Keras's internals);
- Keras's test modules (``*_test``) and ``keras.src.testing.test_utils`` are Keras's own
  source, read from the installed ``keras`` distribution and run unchanged;
- ``keras.src.testing`` is the port of Keras's ``TestCase`` (keras_test_case.py).

The few Keras internals every test leans on (``backend.backend()``,
``backend.convert_to_numpy``...) have Lamina counterparts of the same meaning, listed in
``COUNTERPARTS``.

A few test modules choose a backend's ``Trainer`` class when they are imported and refuse
any other backend (``trainers/trainer_test.py``: ``if backend.backend() == "jax": from
keras.src.backend.jax.trainer import JAXTrainer as Trainer ... else: raise ImportError``).
For the modules in ``JAX_AT_IMPORT``, ``backend.backend()`` answers "jax" to their
module-level code only (their tests still see "lamina"), and ``JAXTrainer`` is Lamina's
trainer mixin (``lamina.trainers.Trainer``), which such a test mixes into a plain layer."""
import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import importlib.util
import json
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
KERAS_VERSION = "3.15.1"
BACKEND_NAME = "lamina"

# Test modules whose import-time code picks Keras's JAX trainer (see the module docstring).
JAX_AT_IMPORT = ("keras.src.trainers.trainer_test",)
# Keras modules whose Lamina counterpart is one module holding the same names, looked up
# there by Lamina's own code (so ``mock.patch("keras.src.backend.common.remat.remat")``
# patches the ``remat`` that Lamina's RematScope calls).
MODULE_COUNTERPARTS = {"keras.src.backend.common.remat": "lamina.layers.remat_scope"}
# The one module of Keras's JAX backend the shim serves, and what it holds.
JAX_TRAINER_MODULE = "keras.src.backend.jax.trainer"


class KerasInternal(AttributeError):
    """A ``keras.src`` name that Keras does not export publicly."""


class MissingInLamina(AttributeError):
    """A public Keras name that Lamina does not have."""


def keras_source_root() -> str:
    """The folder holding the installed keras 3.15.1 distribution's ``keras/`` package,
    found from its metadata (the package itself is never imported)."""
    try:
        dist = importlib.metadata.distribution("keras")
    except importlib.metadata.PackageNotFoundError:
        raise RuntimeError("the conformance suite reads Keras's tests from the keras=="
                           f"{KERAS_VERSION} distribution: pip install -e '.[conformance]'")
    if dist.version != KERAS_VERSION:
        raise RuntimeError(f"the conformance fixtures were made with keras=={KERAS_VERSION}; "
                           f"keras=={dist.version} is installed")
    return str(dist.locate_file(""))


def _names() -> dict:
    with open(os.path.join(HERE, "fixtures", "keras_names.json")) as f:
        return json.load(f)


def _lamina_object(public: str):
    """``keras.ops.add`` -> ``lamina.ops.add``; None when Lamina lacks it."""
    parts = public.split(".")[1:]
    obj = importlib.import_module("lamina")
    for index, part in enumerate(parts):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            try:
                obj = importlib.import_module(".".join(["lamina", *parts[:index + 1]]))
            except ImportError:
                return None
    return obj


def _excluded_names() -> dict:
    """Public Keras names Lamina leaves out by design (JAX, Orbax, torch, TF SavedModel),
    from the API walk's list."""
    from tests.api.api_walk import EXCLUDED
    return EXCLUDED


def _counterparts() -> dict:
    """Keras internals that tests use everywhere, with the Lamina object of the same
    meaning (all public in Lamina)."""
    import lamina
    from lamina import ops
    from . import keras_test_case
    return {
        "keras.src.backend.backend": backend_name,
        "keras.src.backend.convert_to_numpy": ops.convert_to_numpy,
        "keras.src.backend.convert_to_tensor": ops.convert_to_tensor,
        "keras.src.backend.is_tensor": ops.is_tensor,
        "keras.src.backend.Variable": lamina.Variable,
        "keras.src.backend.random": lamina.random,
        "keras.src.backend.numpy": ops,
        "keras.src.backend.nn": ops,
        "keras.src.backend.math": ops,
        "keras.src.backend.linalg": ops.linalg,
        "keras.src.backend.core": ops,
        "keras.src.backend.image": ops.image,
        "keras.src.backend.common.dtypes.result_type": lamina.backend.result_type,
        "keras.src.backend.get_keras_mask": lambda x: getattr(x, "_keras_mask", None),
        "keras.src.backend.set_keras_mask": _set_keras_mask,
        # outside a tf.data graph, Keras's helper is convert_to_tensor
        "keras.src.utils.backend_utils.convert_tf_tensor":
            lambda outputs, dtype=None: ops.convert_to_tensor(outputs, dtype=dtype),
        # Keras exports no name for its Functional class; Lamina's is lamina.models.Functional
        "keras.src.models.functional.Functional": lamina.models.Functional,
        "keras.src.models.Functional": lamina.models.Functional,
        "keras.src.saving.saving_lib.save_model": lamina.saving.save_model,
        "keras.src.saving.saving_lib.load_model": lamina.saving.load_model,
        "keras.src.saving.object_registration.GLOBAL_CUSTOM_NAMES":
            lamina.registry.object_registration.GLOBAL_CUSTOM_NAMES,
        "keras.src.saving.object_registration.GLOBAL_CUSTOM_OBJECTS":
            lamina.registry.object_registration.GLOBAL_CUSTOM_OBJECTS,
        "keras.src.utils.module_utils.tensorflow": _Unavailable("tensorflow"),
        "keras.src.utils.module_utils.jax": _Unavailable("jax"),
        "keras.src.testing.test_case.TestCase": keras_test_case.TestCase,
        "keras.src.testing.TestCase": keras_test_case.TestCase,
    }


def backend_name() -> str:
    """``keras.src.backend.backend()``: "lamina", except to the module-level code of a test
    module in ``JAX_AT_IMPORT`` (it picks the JAX trainer, served by ``_JaxTrainerLoader``)."""
    caller = sys._getframe(1)
    if caller.f_code.co_name == "<module>" and \
            caller.f_globals.get("__name__") in JAX_AT_IMPORT:
        return "jax"
    return BACKEND_NAME


def _set_keras_mask(x, mask):
    """Lamina keeps a tensor's mask where Keras does, in ``_keras_mask``."""
    x._keras_mask = mask


OTHER_FRAMEWORKS = ("tensorflow", "jax", "torch", "grain", "tf_keras", "flax", "pandas")


BACKEND_MODULES = tuple(f"keras.src.backend.{b}" for b in
                        ("jax", "tensorflow", "torch", "numpy", "openvino"))


def _framework(name: str) -> str:
    """``tensorflow.data`` -> tensorflow; ``keras.src.backend.jax.trainer`` -> jax."""
    parts = name.split(".")
    return parts[3] if name.startswith("keras.src.backend.") else parts[0]


def _imported_by_another_library() -> bool:
    """Whether the import in progress is a third-party library's optional one
    (tensorboardX's ``import torch``): it fails as it would without the shim, so that no
    stand-in lingers in ``sys.modules`` for libraries that probe it (scipy's
    ``is_torch_array``). Keras's code and tests, and pytest's importorskip, get stand-ins."""
    frame = sys._getframe(2)
    while frame is not None and (frame.f_code.co_filename.startswith("<frozen") or
                                 "importlib" in frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return False
    module = str(frame.f_globals.get("__name__", "")).split(".")[0]
    return "site-packages" in frame.f_code.co_filename and \
        module not in ("keras", "_pytest", "pytest")


class _Unavailable(types.ModuleType):
    """A framework Keras's tests reach for (TensorFlow for tf.data, JAX, grain) that
    Lamina's environment does not have: the test module still imports, and a test fails
    naming the framework when it calls into it."""

    def __init__(self, name):
        super().__init__(name)
        self.__spec__ = importlib.machinery.ModuleSpec(name, None)
        self.__path__ = []

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        full = f"{self.__name__}.{attr}"
        # A class name (torch.Tensor): a class nothing is an instance of, so libraries
        # that probe sys.modules (scipy's is_torch_array) get False from issubclass.
        child = _UnavailableClass(attr, (), {"__module__": self.__name__, "_full": full}) \
            if attr[:1].isupper() else _Unavailable(full)
        setattr(self, attr, child)
        return child

    def __call__(self, *args, **kwargs):
        raise KerasInternal(f"needs {_framework(self.__name__)}: the keras test calls "
                            f"{self.__name__}")

    def __iter__(self):
        return self.__call__()

    def __mro_entries__(self, bases):
        """``class X(tf.Module)``: a class that refuses to be made."""
        return (absent(self.__name__.rsplit(".", 1)[-1], KerasInternal,
                       f"needs {_framework(self.__name__)}: the keras test subclasses "
                       f"{self.__name__}"),)


class _UnavailableClass(type):
    """The type of a class of an unavailable framework: making one fails naming the
    framework, its attributes are stand-ins, isinstance and issubclass answer False."""

    def __call__(cls, *args, **kwargs):
        raise KerasInternal(f"needs {_framework(cls._full)}: the keras test calls "
                            f"{cls._full}")

    def __getattr__(cls, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        child = _Unavailable(f"{cls._full}.{attr}")
        setattr(cls, attr, child)
        return child


class _AbsentMeta(type):
    """The type of a stand-in for a name the shim cannot give: importing it works (so one
    test's helper does not fail its whole file), any use raises the reason."""

    def _refuse(cls, *args, **kwargs):
        raise cls.error(cls.reason)

    __call__ = _refuse
    __instancecheck__ = _refuse
    __subclasscheck__ = _refuse

    def __getattr__(cls, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise cls.error(cls.reason)


def absent(name: str, error: type, reason: str):
    return _AbsentMeta(name, (), {"error": error, "reason": reason})


class ShimModule(types.ModuleType):
    """A ``keras.src`` module whose attributes resolve as the module docstring says."""

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        value = _FINDER.resolve(self.__name__, attr)
        setattr(self, attr, value)
        return value


class KerasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self):
        self.root = keras_source_root()
        self.names = _names()
        self.counterparts = None
        self._frameworks: dict[str, bool] = {}

    # -- attribute resolution -------------------------------------------------------------
    def resolve(self, module: str, attr: str):
        full = f"{module}.{attr}"
        if self.counterparts is None:
            self.counterparts = _counterparts()
        if full in self.counterparts:
            return self.counterparts[full]
        entry = self.names.get(module, {}).get("names", {}).get(attr)
        if entry is None:
            if full in self.names or self._is_source(full):
                return importlib.import_module(full)
            raise AttributeError(f"module {module!r} has no attribute {attr!r} "
                                 "(Keras 3.15.1's has none either)")
        if entry and entry[0] == "<module>":
            return importlib.import_module(entry[1])
        if entry and entry[0] == "<value>":
            kind, data = entry[1], entry[2]
            return {"tuple": tuple, "set": set, "frozenset": frozenset}.get(
                kind, lambda v: v)(data)
        if not entry:
            return absent(attr, KerasInternal,
                          f"keras-internal: {full} has no public counterpart in Keras")
        for public in entry:
            value = _lamina_object(public)
            if value is not None:
                return value
        excluded = _excluded_names()
        for public in entry:
            if public in excluded:
                return absent(attr, KerasInternal, f"keras-internal: {public} belongs to "
                              f"another framework ({excluded[public]})")
        return absent(attr, MissingInLamina,
                      f"missing-in-lamina: {entry[0]} (reached as {full})")

    # -- the import protocol -------------------------------------------------------------
    def _absent(self, root: str) -> bool:
        if root not in self._frameworks:
            sys.meta_path.remove(self)
            try:
                self._frameworks[root] = importlib.util.find_spec(root) is None
            finally:
                sys.meta_path.insert(0, self)
        return self._frameworks[root]

    def _source_path(self, name: str) -> str | None:
        path = os.path.join(self.root, *name.split("."))
        for candidate in (path + ".py", os.path.join(path, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
        return None

    def _is_source(self, name: str) -> bool:
        """Keras's own test modules and pure test helpers run from Keras's source."""
        return (name.endswith("_test") or name == "keras.src.testing.test_utils") and \
            self._source_path(name) is not None

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in OTHER_FRAMEWORKS and self._absent(name.split(".")[0]):
            if _imported_by_another_library():
                return None
            return importlib.machinery.ModuleSpec(name, _UnavailableLoader())
        if name == JAX_TRAINER_MODULE:
            return importlib.machinery.ModuleSpec(name, _JaxTrainerLoader())
        if name.startswith(BACKEND_MODULES):    # Keras's backend-specific code: JAX's, ...
            return importlib.machinery.ModuleSpec(name, _UnavailableLoader())
        if name != "keras" and not name.startswith("keras."):
            return None
        if name in MODULE_COUNTERPARTS:
            return importlib.machinery.ModuleSpec(name, _CounterpartLoader())
        if self._is_source(name):
            return importlib.util.spec_from_file_location(name, self._source_path(name))
        if name in ("keras.src.testing", "keras.src.testing.test_case"):
            return importlib.machinery.ModuleSpec(name, _PortLoader())
        if name == "keras" or name.startswith("keras.src") and name in self.names \
                or name == "keras.src":
            spec = importlib.machinery.ModuleSpec(name, self, is_package=True)
            return spec
        if not name.startswith("keras.src"):
            return importlib.machinery.ModuleSpec(name, _PublicLoader())
        raise ModuleNotFoundError(f"keras-internal: no module {name} in Keras's importable "
                                  "source (a backend-specific or optional-package module)",
                                  name=name)

    def create_module(self, spec):
        if spec.name == "keras":
            return _KerasTop("keras")
        module = ShimModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


class _KerasTop(types.ModuleType):
    """``keras`` itself: ``keras.layers`` is ``lamina.layers``."""
    __path__: list = []

    def __getattr__(self, attr):
        if attr == "src":
            return importlib.import_module("keras.src")
        value = _lamina_object(f"keras.{attr}")
        if value is None:
            raise MissingInLamina(f"missing-in-lamina: keras.{attr}")
        return value


class _PublicLoader(importlib.abc.Loader):
    """``import keras.layers`` gives Lamina's public module of that name."""

    def create_module(self, spec):
        value = _lamina_object(spec.name)
        if not isinstance(value, types.ModuleType):
            raise ModuleNotFoundError(f"missing-in-lamina: module {spec.name}", name=spec.name)
        return value

    def exec_module(self, module):
        pass


class _CounterpartLoader(importlib.abc.Loader):
    """A module of ``MODULE_COUNTERPARTS``: the Lamina module itself."""

    def create_module(self, spec):
        return importlib.import_module(MODULE_COUNTERPARTS[spec.name])

    def exec_module(self, module):
        pass


class _UnavailableLoader(importlib.abc.Loader):
    def create_module(self, spec):
        return _Unavailable(spec.name)

    def exec_module(self, module):
        pass


class _JaxTrainerLoader(importlib.abc.Loader):
    """``keras.src.backend.jax.trainer``: a module whose ``JAXTrainer`` is Lamina's trainer
    mixin (any other name in it is Keras's JAX code, unavailable here)."""

    def create_module(self, spec):
        from lamina.trainers import Trainer
        module = _Unavailable(spec.name)
        module.JAXTrainer = Trainer
        return module

    def exec_module(self, module):
        pass


class _PortLoader(importlib.abc.Loader):
    def create_module(self, spec):
        from . import keras_test_case
        keras_test_case.__path__ = []            # keras.src.testing.test_utils lies below
        keras_test_case.test_case = keras_test_case  # from keras.src.testing import test_case
        return keras_test_case

    def exec_module(self, module):
        # ``from keras.src.testing import test_utils`` looks the submodule up under the
        # port's own module name: bind Keras's test helpers on it once it is importable
        if module.__dict__.get("test_utils") is None and \
                sys.modules.get("keras.src.testing") is module:
            module.test_utils = importlib.import_module("keras.src.testing.test_utils")


_FINDER: KerasFinder | None = None


def install() -> KerasFinder:
    global _FINDER
    if _FINDER is None:
        for name in [n for n in sys.modules if n == "keras" or n.startswith("keras.")]:
            del sys.modules[name]
        _FINDER = KerasFinder()
        sys.meta_path.insert(0, _FINDER)
    return _FINDER
