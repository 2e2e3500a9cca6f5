"""Lamina writes ``.weights.h5`` files laid out exactly as Keras 3 writes them (checked
against the files Keras 3.15.1 wrote in tests/fixtures/keras_files)."""
import numpy as np
import pytest

import lamina
from lamina import layers

from .helpers import BUILDERS, FIXTURES, h5_group_names, h5_layout


def trained(builder):
    """A model compiled with Adam and one step taken, as the fixtures were written."""
    model = builder()
    x0 = np.load(FIXTURES / f"{builder.__name__}_k3_ref.npz")["x0"][:4]
    y = np.zeros(4, dtype="int32")
    model.compile(optimizer=lamina.optimizers.Adam(0.01),
                  loss="sparse_categorical_crossentropy")
    model.train_on_batch(x0, y)
    return model


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_layout_equals_keras_file(name, tmp_path):
    model = trained(BUILDERS[name])
    path = tmp_path / "m.weights.h5"
    model.save_weights(path)
    ours, keras = h5_layout(path), h5_layout(FIXTURES / f"{name}_k3.weights.h5")
    assert ours == keras         # every group, dataset name, shape and dtype (int64 step)


def test_vars_groups_carry_the_object_names(tmp_path):
    model = trained(BUILDERS["gru_text"])
    model.save_weights(tmp_path / "m.weights.h5")
    names = h5_group_names(tmp_path / "m.weights.h5")
    gru = model.layers[1]
    assert names["layers/gru/vars"] == gru.name
    assert names["layers/gru/cell/vars"] == gru.cell.name
    assert names["optimizer/vars"] == model.optimizer.name
    assert names["vars"] == model.name


def test_functional_paths_use_class_names_not_layer_names(tmp_path):
    inputs = lamina.Input((3,), name="features")
    hidden = layers.Dense(4, name="hidden")(inputs)
    model = lamina.Model(inputs, layers.Dense(2, name="out")(hidden))
    model.save_weights(tmp_path / "f.weights.h5")
    layout = h5_layout(tmp_path / "f.weights.h5")
    names = h5_group_names(tmp_path / "f.weights.h5")
    assert names["layers/input_layer/vars"] == "features"     # functional lists its Input
    assert names["layers/dense_1/vars"] == "out"
    assert layout["layers/dense_1/vars/0"] == ((4, 2), "<f4")
    assert "optimizer" not in layout                           # not compiled


class Net(lamina.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.head = layers.Dense(2)
        self.blocks = [layers.Dense(4), layers.Dense(4)]
        self._first = layers.Dense(4)
        self.bn = layers.BatchNormalization()

    def call(self, x):
        x = self._first(x)
        for block in self.blocks:
            x = block(x)
        return self.head(self.bn(x))


def test_subclassed_paths_follow_attribute_names(tmp_path):
    # Keras 3: attributes in sorted order, private ones last; lists get class-name keys.
    # `_first` is private, so the model's public `layers` list reaches it first: it is
    # stored as the 4th Dense of that list (Keras 3.15.1 writes the same path).
    net = Net()
    net(np.zeros((2, 3), dtype="float32"))
    net.save_weights(tmp_path / "s.weights.h5")
    layout = h5_layout(tmp_path / "s.weights.h5")
    datasets = {path: value for path, value in layout.items() if value is not None}
    assert datasets == {
        "blocks/dense/vars/0": ((4, 4), "<f4"), "blocks/dense/vars/1": ((4,), "<f4"),
        "blocks/dense_1/vars/0": ((4, 4), "<f4"), "blocks/dense_1/vars/1": ((4,), "<f4"),
        "bn/vars/0": ((4,), "<f4"), "bn/vars/1": ((4,), "<f4"), "bn/vars/2": ((4,), "<f4"),
        "bn/vars/3": ((4,), "<f4"),
        "head/vars/0": ((4, 2), "<f4"), "head/vars/1": ((2,), "<f4"),
        "layers/dense_3/vars/0": ((3, 4), "<f4"), "layers/dense_3/vars/1": ((4,), "<f4")}


def test_batch_normalization_stores_gamma_beta_then_moving_statistics(tmp_path):
    model = BUILDERS["dense_bn"]()
    bn = model.layers[1]
    bn.gamma.assign(np.full(12, 2.0, "float32"))
    bn.moving_variance.assign(np.full(12, 5.0, "float32"))
    model.save_weights(tmp_path / "bn.weights.h5")
    import h5py
    with h5py.File(tmp_path / "bn.weights.h5", "r") as f:
        group = f["layers/batch_normalization/vars"]
        assert [float(group[k][0]) for k in "0123"] == [2.0, 0.0, 0.0, 5.0]


def test_recurrent_wrappers_nest_as_keras_does(tmp_path):
    # Paths and shapes as Keras 3.15.1 writes them for the same model.
    model = lamina.Sequential([lamina.Input((5, 3)),
                               layers.Bidirectional(layers.LSTM(4, return_sequences=True)),
                               layers.TimeDistributed(layers.Dense(2)), layers.SimpleRNN(3)])
    model.save_weights(tmp_path / "r.weights.h5")
    shapes = {path: value[0] for path, value in h5_layout(tmp_path / "r.weights.h5").items()
              if value is not None}
    lstm = {"0": (3, 16), "1": (4, 16), "2": (16,)}
    expected = {f"layers/bidirectional/{side}/cell/vars/{i}": shape
                for side in ("forward_layer", "backward_layer") for i, shape in lstm.items()}
    expected.update({"layers/simple_rnn/cell/vars/0": (2, 3),
                     "layers/simple_rnn/cell/vars/1": (3, 3),
                     "layers/simple_rnn/cell/vars/2": (3,),
                     "layers/time_distributed/layer/vars/0": (8, 2),
                     "layers/time_distributed/layer/vars/1": (2,)})
    assert shapes == expected


def test_nested_sequential_inside_functional(tmp_path):
    inner = lamina.Sequential([lamina.Input((3,)), layers.Dense(4), layers.Dense(4)])
    inputs = lamina.Input((3,))
    model = lamina.Model(inputs, layers.Dense(2, name="out")(inner(inputs)))
    model.save_weights(tmp_path / "n.weights.h5")
    layout = h5_layout(tmp_path / "n.weights.h5")
    assert {p for p, v in layout.items() if v is not None} == {
        "layers/dense/vars/0", "layers/dense/vars/1",
        "layers/sequential/layers/dense/vars/0", "layers/sequential/layers/dense/vars/1",
        "layers/sequential/layers/dense_1/vars/0", "layers/sequential/layers/dense_1/vars/1"}
    assert "layers/input_layer/vars" in layout and "layers/sequential/vars" in layout
