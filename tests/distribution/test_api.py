"""keras.distribution's objects in one process (issue 14): devices, meshes, layouts,
DataParallel / ModelParallel, the global distribution, and their errors."""
import sys

import numpy as np
import pytest

import lamina as keras
from lamina import distribution as dist
from lamina.distribution.consistency import first_difference


@pytest.fixture(autouse=True)
def no_distribution():
    yield
    dist.set_distribution(None)


def test_one_device_per_process():
    assert dist.list_devices() == ["cpu:0"]
    assert dist.list_devices("gpu") == ["gpu:0"]
    assert dist.get_device_count() == 1
    with pytest.raises(ValueError, match="argument 'device_type' must be None, 'cpu' or "
                                         "'gpu'; received 'tpu'"):
        dist.list_devices("tpu")


def test_device_mesh():
    mesh = dist.DeviceMesh((1,), ["batch"])
    assert mesh.shape == (1,) and mesh.axis_names == ["batch"] and mesh.devices == ["cpu:0"]
    grid = dist.DeviceMesh((2, 2), ["data", "model"], [f"cpu:{i}" for i in range(4)])
    assert grid.devices == [["cpu:0", "cpu:1"], ["cpu:2", "cpu:3"]]
    with pytest.raises(ValueError, match="'shape' and 'axis_names' must not be empty"):
        dist.DeviceMesh((), [])
    with pytest.raises(ValueError, match="'shape' and 'axis_names' must have the same "
                                         "length; received shape=\\(1,\\), axis_names"):
        dist.DeviceMesh((1,), ["a", "b"])
    with pytest.raises(ValueError, match="shape \\(2,\\) holds 2 devices but 1 were given"):
        dist.DeviceMesh((2,), ["batch"])


def test_tensor_layout():
    mesh = dist.DeviceMesh((1,), ["batch"])
    layout = dist.TensorLayout(["batch", None])
    layout.device_mesh = mesh
    assert layout.axes == ("batch", None) and layout.device_mesh is mesh
    with pytest.raises(ValueError, match="the device mesh is already set"):
        layout.device_mesh = mesh
    with pytest.raises(ValueError, match="axes \\['model'\\] are not axes of the mesh"):
        dist.TensorLayout(["model"], mesh)


def test_layout_map():
    layout_map = dist.LayoutMap(dist.DeviceMesh((1,), ["batch"]))
    layout_map["dense.*kernel"] = (None, "batch")
    assert layout_map["dense/kernel"].axes == (None, "batch")
    assert layout_map["conv/kernel"] is None
    assert len(layout_map) == 1 and list(layout_map) == ["dense.*kernel"]
    with pytest.raises(ValueError, match="key 'dense.\\*kernel' already has the layout"):
        layout_map["dense.*kernel"] = (None, None)
    with pytest.raises(ValueError, match="a value must be a TensorLayout or a tuple"):
        layout_map["bias"] = 3
    layout_map[".*kernel"] = (None, None)
    with pytest.raises(ValueError, match="path 'dense/kernel' matches several keys"):
        layout_map["dense/kernel"]
    del layout_map[".*kernel"]
    assert len(layout_map) == 1


def test_data_parallel_and_the_global_distribution():
    assert dist.distribution() is None
    data_parallel = dist.DataParallel()
    assert data_parallel.num_model_replicas == 1 and data_parallel.batch_dim_name == "batch"
    assert data_parallel.get_data_layout((8, 3)).axes == ("batch", None)
    assert data_parallel.auto_shard_dataset is True
    with data_parallel.scope():
        assert dist.distribution() is data_parallel
    assert dist.distribution() is None
    dist.set_distribution(data_parallel)
    assert dist.distribution() is data_parallel
    mesh = dist.DeviceMesh((1,), ["data"])
    assert dist.DataParallel(device_mesh=mesh).batch_dim_name == "data"
    assert dist.DataParallel(devices=["cpu:0"]).device_mesh.devices == ["cpu:0"]
    with pytest.raises(ValueError, match="argument 'device_mesh' must be a DeviceMesh"):
        dist.DataParallel(device_mesh="mesh")
    with pytest.raises(ValueError, match="the mesh has 2 devices but the world has 1 "
                                         "processes; Lamina runs one process per device"):
        dist.DataParallel(devices=["cpu:0", "cpu:1"])
    with pytest.raises(ValueError, match="set_distribution: argument 'value' must be a "
                                         "Distribution"):
        dist.set_distribution("data")


def test_one_process_data_parallel_fit_equals_plain_fit():
    x = np.random.default_rng(0).normal(size=(50, 4))
    y = x @ np.arange(4.0)

    def fit():
        keras.utils.set_random_seed(3)
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("sgd", "mse")
        model.fit(x, y, batch_size=16, epochs=2, verbose=0)
        return model.get_weights()
    plain = fit()
    dist.set_distribution(dist.DataParallel())
    for a, b in zip(plain, fit()):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_model_parallel_constructs_but_cannot_train():
    mesh = dist.DeviceMesh((1, 1), ["batch", "model"], ["cpu:0"])
    layout_map = dist.LayoutMap(mesh)
    model_parallel = dist.ModelParallel(layout_map=layout_map, batch_dim_name="batch")
    assert model_parallel.num_model_replicas == 1
    with pytest.raises(ValueError, match="argument 'layout_map' is required"):
        dist.ModelParallel()
    with pytest.raises(ValueError, match="argument 'layout_map' must be a LayoutMap; "
                                         "received dict"):
        dist.ModelParallel(layout_map={})
    with pytest.raises(TypeError, match="unrecognized keyword argument\\(s\\) \\['other'\\]"):
        dist.ModelParallel(layout_map=layout_map, other=1)
    dist.set_distribution(model_parallel)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    with pytest.raises(NotImplementedError, match="ModelParallel: training or running a "
                                                  "model under ModelParallel .* not "
                                                  "supported yet in Lamina; use "
                                                  "lamina.distribution.DataParallel\\(\\)"):
        model.fit(np.zeros((4, 2)), np.zeros((4, 1)), verbose=0)


def test_distribute_tensor():
    t = keras.ops.convert_to_tensor(np.arange(6.0).reshape(3, 2))
    assert dist.distribute_tensor(t, dist.TensorLayout([None, None])) is t
    np.testing.assert_array_equal(dist.distribute_tensor(t, dist.TensorLayout(["batch", None]))
                                  .numpy(), t.numpy())
    with pytest.raises(NotImplementedError, match="distribute_tensor \\(a layout that splits "
                                                  "a non-batch axis\\)"):
        dist.distribute_tensor(t, dist.TensorLayout([None, "model"]))


def test_initialize_rejects_job_addresses():
    with pytest.raises(ValueError, match="argument 'job_addresses' is not used with MPI"):
        dist.initialize(job_addresses="10.0.0.1:1234")


def test_a_missing_mpi4py_names_the_extra(monkeypatch):
    from lamina.backend import collectives
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    with pytest.raises(ImportError, match="pip install lamina\\[distributed\\]"):
        collectives.mpi()


def test_config_differences_are_named():
    base = {"weights": [("d/kernel", (2, 3), "float32")], "compile": {"loss": "'mse'"},
            "optimizer": "[('name', 'adam')]"}
    assert first_difference(base, dict(base)) is None
    assert first_difference({**base, "weights": []}, base) == \
        "the model has 1 weights on process 0 and 0 here"
    assert first_difference({**base, "optimizer": "[('name', 'sgd')]"}, base) == \
        "the optimizer config is [('name', 'adam')] on process 0 and [('name', 'sgd')] here"


def test_configs_compare_without_memory_addresses():
    from lamina.distribution.consistency import describe

    def my_loss(y_true, y_pred):
        return keras.ops.mean(keras.ops.square(y_true - y_pred))
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", my_loss)
    text = describe(model)["compile"]["loss"]
    assert text.startswith("<function test_configs_compare_without_memory_addresses.") \
        and "0x" not in text


@pytest.mark.parametrize("masked", [False, True])
def test_synchronized_moments_in_a_world_of_one_equal_the_local_ones(masked):
    from lamina.distribution.batch_stats import synchronized_moments
    from lamina.ops.random_rows import rows_of_step
    layer = keras.layers.BatchNormalization(synchronized=True)
    x = keras.ops.convert_to_tensor(np.random.default_rng(0).normal(size=(5, 4, 3)))
    layer.build(x.shape)
    mask = keras.ops.convert_to_tensor(np.arange(20).reshape(5, 4) % 3 > 0) if masked \
        else None
    assert synchronized_moments(layer, x, mask) is None          # no step running
    data_parallel = dist.DataParallel()
    dist.set_distribution(data_parallel)
    with rows_of_step(data_parallel.offset_variable(), 5):
        mean, variance = synchronized_moments(layer, x, mask)
    expected_mean, expected_variance = layer._moments(x, mask)
    np.testing.assert_allclose(mean.numpy(), expected_mean.numpy(), rtol=1e-12)
    np.testing.assert_allclose(variance.numpy(), expected_variance.numpy(), rtol=1e-12)
