"""``keras.src.testing`` for the conformance suite: Keras's ``TestCase`` helpers written on
Lamina's public API, making the same checks Keras documents for them (the assertions'
default tolerances, ``run_class_serialization_test``'s two round trips,
``run_layer_test``'s serialization / build / symbolic call / eager call / one training
step / mixed-precision checks)."""
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
from absl.testing import parameterized

import lamina
from lamina import ops, tree

BACKEND_NAME = "lamina"
_FLOATS_AND_INTS = {"float16", "float32", "float64", "int8", "uint8", "int16", "uint16",
                    "int32", "uint32", "int64", "uint64"}


def uses_gpu():
    return False


uses_tpu = jax_uses_gpu = jax_uses_tpu = tensorflow_uses_gpu = uses_gpu
tensorflow_uses_tpu = torch_uses_gpu = uses_gpu


def _numpy(x):
    if isinstance(x, np.ndarray):
        return x
    if ops.is_tensor(x) or isinstance(x, lamina.Variable):
        return ops.convert_to_numpy(x)
    return np.array(x)


def _dtype_name(x) -> str:
    dtype = x.dtype if hasattr(x, "dtype") else type(x)
    return lamina.backend.standardize_dtype(dtype)


class TestCase(parameterized.TestCase):
    maxDiff = None

    def setUp(self):
        lamina.utils.clear_session(free_memory=False)
        lamina.config.disable_traceback_filtering()

    def get_temp_dir(self):
        folder = tempfile.mkdtemp()
        self.addCleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
        return folder

    def convert_to_numpy(self, x):
        return _numpy(x)

    # -- assertions ------------------------------------------------------------------------
    def assertAllClose(self, actual, desired, atol=1e-6, rtol=1e-6, tpu_atol=None,
                       tpu_rtol=None, msg=None):
        np.testing.assert_allclose(_numpy(actual), _numpy(desired), atol=atol, rtol=rtol,
                                   err_msg=msg or "")

    def assertNotAllClose(self, x1, x2, atol=1e-6, rtol=1e-6, msg=None):
        try:
            self.assertAllClose(x1, x2, atol=atol, rtol=rtol)
        except AssertionError:
            return
        raise AssertionError(f"The two values are close at all elements. {msg or ''} "
                             f"Values: {x1}")

    def assertAlmostEqual(self, actual, desired, decimal=3, tpu_decimal=None, msg=None):
        np.testing.assert_almost_equal(_numpy(actual), _numpy(desired), decimal=decimal,
                                       err_msg=msg or "")

    def assertAllEqual(self, actual, desired, msg=None):
        np.testing.assert_array_equal(_numpy(actual), _numpy(desired), err_msg=msg or "")

    def assertLen(self, iterable, expected_len, msg=None):
        self.assertEqual(len(iterable), expected_len, msg=msg)

    def assertSparse(self, x, sparse=True):
        if isinstance(x, lamina.KerasTensor):
            self.assertEqual(getattr(x, "sparse", False), sparse)
        else:
            self.assertFalse(sparse, "Lamina has no sparse tensors")

    def assertRagged(self, x, ragged=True):
        if isinstance(x, lamina.KerasTensor):
            self.assertEqual(getattr(x, "ragged", False), ragged)
        else:
            self.assertFalse(ragged, "Lamina has no ragged tensors")

    def assertDType(self, x, dtype, msg=None):
        got, want = _dtype_name(x), lamina.backend.standardize_dtype(dtype)
        self.assertEqual(got, want, msg=msg or f"dtype {got}, expected {want}")

    def assertFileExists(self, path):
        if not Path(path).is_file():
            raise AssertionError(f"File {path} does not exist")

    # -- serialization ---------------------------------------------------------------------
    def run_class_serialization_test(self, instance, custom_objects=None):
        """``from_config(get_config())`` and ``deserialize(serialize())`` both give an
        object with the same config (as JSON, tuples kept apart from lists) and the same
        attribute names."""
        saving = lamina.saving
        config_json = to_json_with_tuples(instance.get_config())
        names = set(dir(instance)) - {"__annotations__"}
        with saving.custom_object_scope(custom_objects or {}):
            revived = type(instance).from_config(instance.get_config())
        self.assertEqual(config_json, to_json_with_tuples(revived.get_config()))
        self.assertEqual(names, set(dir(revived)) - {"__annotations__"})
        serialized = to_json_with_tuples(saving.serialize_keras_object(instance))
        with saving.custom_object_scope(custom_objects or {}):
            revived = saving.deserialize_keras_object(from_json_with_tuples(serialized))
        self.assertEqual(config_json, to_json_with_tuples(revived.get_config()))
        self.assertEqual(names, set(dir(revived)) - {"__annotations__"})
        return revived

    # -- layers ----------------------------------------------------------------------------
    def run_layer_test(self, layer_cls, init_kwargs, input_shape=None, input_dtype=None,
                       input_sparse=False, input_ragged=False, input_data=None,
                       call_kwargs=None, expected_output_shape=None,
                       expected_output_dtype=None, expected_output_sparse=False,
                       expected_output_ragged=False, expected_output=None,
                       expected_num_trainable_weights=None,
                       expected_num_non_trainable_weights=None,
                       expected_num_non_trainable_variables=None,
                       expected_num_seed_generators=None, expected_num_losses=None,
                       supports_masking=None, expected_mask_shape=None, custom_objects=None,
                       run_training_check=True, run_mixed_precision_check=True,
                       assert_built_after_instantiation=False, tpu_atol=None,
                       tpu_rtol=None):
        _LayerCheck(self, layer_cls, dict(init_kwargs or {}), dict(call_kwargs or {}),
                    locals()).run()


class _LayerCheck:
    """The steps of ``run_layer_test`` over one layer class."""

    def __init__(self, case, layer_cls, init_kwargs, call_kwargs, args):
        self.case, self.cls, self.init, self.call_kwargs = case, layer_cls, init_kwargs, \
            call_kwargs
        self.a = args
        if args["input_shape"] is not None and args["input_data"] is not None:
            raise ValueError("input_shape and input_data cannot be passed at the same time.")
        if args["expected_output_shape"] is not None and args["expected_output"] is not None:
            raise ValueError("expected_output_shape and expected_output cannot be passed "
                             "at the same time.")
        if args["expected_output"] is not None and args["input_data"] is None:
            raise ValueError("In order to use expected_output, input_data must be provided.")
        if args["expected_mask_shape"] is not None and args["supports_masking"] is not True:
            raise ValueError("In order to use expected_mask_shape, supports_masking must be "
                             "True.")
        self.shape, self.dtype, self.data = args["input_shape"], args["input_dtype"], \
            args["input_data"]
        if self.shape is not None and self.dtype is None:
            self.dtype = tree.map_shape_structure(lambda _: "float32", self.shape)
        self.counts = {k: args[f"expected_num_{k}"] for k in (
            "trainable_weights", "non_trainable_weights", "non_trainable_variables",
            "seed_generators")}

    def _call(self, layer, inputs):
        if isinstance(inputs, dict):
            return layer(**inputs, **self.call_kwargs)
        return layer(inputs, **self.call_kwargs)

    def run(self):
        has_input = self.data is not None or self.shape is not None
        if has_input:
            if self.data is None:
                self.data = create_eager_tensors(self.shape, self.dtype, self.a["input_sparse"],
                                                 self.a["input_ragged"])
            self._fill_counts()
        layer = self.cls(**self.init)
        self.case.run_class_serialization_test(layer, self.a["custom_objects"])
        if self.a["supports_masking"] is not None:
            self.case.assertEqual(layer.supports_masking, self.a["supports_masking"],
                                  msg="Unexpected supports_masking value")
        if not has_input:
            return
        self._build_check()
        symbolic = self._symbolic_check()
        self._eager_check(symbolic)

    def _fill_counts(self):
        layer = self.cls(**self.init)
        self._call(layer, self.data)
        measured = {"trainable_weights": len(layer.trainable_weights),
                    "non_trainable_weights": len(layer.non_trainable_weights),
                    "non_trainable_variables": len(layer.non_trainable_variables),
                    "seed_generators": len(get_seed_generators(layer))}
        for key, value in measured.items():
            if self.counts[key] is None:
                self.counts[key] = value

    def _build_asserts(self, layer):
        self.case.assertTrue(layer.built)
        actual = {"trainable_weights": layer.trainable_weights,
                  "non_trainable_weights": layer.non_trainable_weights,
                  "non_trainable_variables": layer.non_trainable_variables,
                  "seed_generators": get_seed_generators(layer)}
        for key, expected in self.counts.items():
            if expected is not None:
                self.case.assertLen(actual[key], expected, msg=f"Unexpected number of {key}")

    def _output_asserts(self, layer, output, eager):
        case, a = self.case, self.a
        if a["expected_output_shape"] is not None:
            def fits(expected, x):
                return len(expected) == len(x.shape) and all(
                    e is None or e == d for e, d in zip(expected, x.shape))
            matches = tree.map_structure_up_to(output, fits, a["expected_output_shape"],
                                               output)
            case.assertTrue(all(tree.flatten(matches)),
                            msg=f"Expected output shapes {a['expected_output_shape']} but "
                                f"received {tree.map_structure(lambda x: x.shape, output)}")
        if a["expected_output_dtype"] is not None:
            same = tree.map_structure(lambda e, x: e == _dtype_name(x),
                                      a["expected_output_dtype"], output)
            case.assertTrue(all(tree.flatten(same)),
                            msg=f"Expected output dtypes {a['expected_output_dtype']} but "
                                f"received {tree.map_structure(lambda x: x.dtype, output)}")
        for x in tree.flatten(output) if a["expected_output_sparse"] else ():
            case.assertSparse(x)
        for x in tree.flatten(output) if a["expected_output_ragged"] else ():
            case.assertRagged(x)
        if eager and a["expected_output"] is not None:
            case.assertEqual(type(a["expected_output"]), type(output))
            for want, got in zip(tree.flatten(a["expected_output"]), tree.flatten(output)):
                case.assertAllClose(want, got, msg="Unexpected output value")
        if eager and a["expected_num_losses"] is not None:
            case.assertLen(layer.losses, a["expected_num_losses"])

    def _build_check(self):
        build_shape = self.shape if self.shape is not None else tree.map_structure(
            lambda x: ops.shape(x), self.data)
        layer = self.cls(**self.init)
        if isinstance(build_shape, dict):
            layer.build(**build_shape)
        else:
            layer.build(build_shape)
        self._build_asserts(layer)

    def _symbolic_check(self):
        if self.shape is None:
            inputs = tree.map_structure(
                lambda x: create_keras_tensors(ops.shape(x), x.dtype, self.a["input_sparse"],
                                               self.a["input_ragged"]), self.data)
        else:
            inputs = create_keras_tensors(self.shape, self.dtype, self.a["input_sparse"],
                                          self.a["input_ragged"])
        layer = self.cls(**self.init)
        outputs = self._call(layer, inputs)
        self._build_asserts(layer)
        self._output_asserts(layer, outputs, eager=False)
        if self.a["expected_mask_shape"] is not None:
            self.case.assertEqual(self.a["expected_mask_shape"],
                                  layer.compute_mask(inputs).shape)
        if self.a["assert_built_after_instantiation"]:
            self.case.assertTrue(self.cls(**self.init).built,
                                 msg=f"{self.cls} is stateless, so it should be built after "
                                     "instantiation.")

            class OwnBuild(self.cls):
                def build(self, *args, **kwargs):
                    pass
            self.case.assertFalse(OwnBuild(**self.init).built,
                                  msg=f"the build of {self.cls} is overridden, so it should "
                                      "not be built after instantiation.")
        return inputs

    def _eager_check(self, symbolic_inputs):
        layer = self.cls(**self.init)
        output = self._call(layer, self.data)
        self._output_asserts(layer, output, eager=True)
        if self.a["run_training_check"]:
            _train_one_step(layer, self.data, output)
        if self.a["run_mixed_precision_check"]:
            self._mixed_precision_check(symbolic_inputs)

    def _mixed_precision_check(self, symbolic_inputs):
        layer = self.cls(**{**self.init, "dtype": "mixed_float16"})
        specs = tree.map_structure(
            lambda s: lamina.KerasTensor(s.shape, dtype=(
                layer.compute_dtype if layer.autocast and
                lamina.backend.is_float_dtype(s.dtype) else s.dtype)), symbolic_inputs)
        if isinstance(self.data, dict):
            output = layer(**self.data, **self.call_kwargs)
            spec = layer.compute_output_spec(**specs)
        else:
            output = layer(self.data, **self.call_kwargs)
            spec = layer.compute_output_spec(specs)
        for tensor, expected in zip(tree.flatten(output), tree.flatten(spec)):
            self.case.assertEqual(_dtype_name(tensor), expected.dtype,
                                  f"expected output dtype {expected.dtype}, got "
                                  f"{_dtype_name(tensor)}")
        for weight in layer.weights:
            if lamina.backend.is_float_dtype(weight.dtype):
                self.case.assertEqual(_dtype_name(weight), "float32")


def _train_one_step(layer, input_data, output_data):
    """One ``fit`` step of a model wrapping the layer, on a loss summing its output."""

    class TestModel(lamina.Model):
        def __init__(self, inner):
            super().__init__()
            self.layer = inner

        def call(self, x, training=False):
            return self.layer(x, training=training)

    class SumLoss(lamina.losses.Loss):
        def __call__(self, y_true, y_pred, sample_weight=None):
            return ops.sum(y_pred)

    def batches():
        while True:
            yield input_data, output_data

    model = TestModel(layer)
    model.compile(optimizer="sgd", loss=SumLoss(), jit_compile="auto")
    model.fit(batches(), steps_per_epoch=1, verbose=0)


def create_keras_tensors(input_shape, dtype, sparse, ragged):
    if isinstance(input_shape, dict):
        return {k.removesuffix("_shape"): lamina.KerasTensor(v, dtype=dtype[k], sparse=sparse,
                                                              ragged=ragged)
                for k, v in input_shape.items()}
    return map_shape_dtype_structure(
        lambda shape, dt: lamina.KerasTensor(shape, dtype=dt, sparse=sparse, ragged=ragged),
        input_shape, dtype)


def create_eager_tensors(input_shape, dtype, sparse=False, ragged=False):
    if set(tree.flatten(dtype)) - _FLOATS_AND_INTS:
        raise ValueError(f"dtype must be a standard float or int dtype. Received: dtype={dtype}")
    if sparse or ragged:
        raise ValueError("Lamina has no sparse or ragged tensors")

    def make(shape, dt):
        return ops.cast(lamina.random.uniform(shape, dtype="float32") * 3, dtype=dt)
    if isinstance(input_shape, dict):
        return {k.removesuffix("_shape"): make(v, dtype[k]) for k, v in input_shape.items()}
    return map_shape_dtype_structure(make, input_shape, dtype)


def is_shape_tuple(x):
    return isinstance(x, (list, tuple)) and all(isinstance(e, (int, type(None))) for e in x)


def map_shape_dtype_structure(fn, shape, dtype):
    if is_shape_tuple(shape):
        return fn(tuple(shape), dtype)
    if isinstance(shape, (list, tuple)):
        return type(shape)(map_shape_dtype_structure(fn, s, d) for s, d in zip(shape, dtype))
    if isinstance(shape, dict):
        return {k: map_shape_dtype_structure(fn, v, dtype[k]) for k, v in shape.items()}
    raise ValueError(f"Cannot map function to unknown objects {shape} and {dtype}")


def get_seed_generators(layer):
    """Every SeedGenerator held by the layer or the layers inside it, once each."""
    found, seen_layers, seen = [], set(), set()

    def visit(value):
        if isinstance(value, lamina.random.SeedGenerator):
            if id(value) not in seen:
                seen.add(id(value))
                found.append(value)
        elif isinstance(value, lamina.layers.Layer):
            if id(value) not in seen_layers:
                seen_layers.add(id(value))
                for item in vars(value).values():
                    visit(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                visit(item)
        elif isinstance(value, dict):
            for item in value.values():
                visit(item)
    visit(layer)
    return found


def to_json_with_tuples(value):
    def mark(obj):
        if isinstance(obj, tuple):
            return {"__class__": "tuple", "__value__": [mark(e) for e in obj]}
        if isinstance(obj, list):
            return [mark(e) for e in obj]
        if isinstance(obj, dict):
            return {k: mark(v) for k, v in obj.items()}
        return obj
    return json.dumps(mark(value), sort_keys=True, indent=4)


def from_json_with_tuples(value):
    def unmark(obj):
        if isinstance(obj, dict) and "__class__" in obj and "__value__" in obj:
            return tuple(obj["__value__"])
        return obj
    return json.loads(value, object_hook=unmark)
