"""MultiOptimizer and OptimizerMap: Keras 3.15.1's numbers for a split model, the lookup
rules of the map, the variables in Keras's order, config round trip and errors."""
import numpy as np
import pytest

import lamina
from lamina import ops, optimizers
from lamina.optimizers import SGD, Adam, MultiOptimizer, OptimizerMap

from .helpers import make_variables, train

# Keras 3.15.1 (jax): the kernel by Adam(0.1), the bias by SGD(0.1, momentum=0.5), 3 steps.
KERAS_WEIGHTS = [[[0.70138514, -1.70060039, 0.2013858], [-0.03020539, 2.70015073, -1.2008549]],
                 [0.32361844, -0.18656248, 1.20869994]]
KERAS_PATHS = ["multi_optimizer/iteration", "multi_optimizer/learning_rate", "adam/iteration",
               "adam/learning_rate", "adam/dense_kernel_momentum", "adam/dense_kernel_velocity",
               "sgd/iteration", "sgd/learning_rate", "sgd/dense_bias_momentum"]


def _split():
    return MultiOptimizer(OptimizerMap(SGD(0.1, momentum=0.5), {".*kernel": Adam(0.1)}))


def test_three_steps_match_keras(backend):
    opt = _split()
    got = train(opt, make_variables("float32"), 3)
    for g, w in zip(got, KERAS_WEIGHTS):
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-7)
    assert [v.path for v in opt.variables] == KERAS_PATHS
    assert int(opt.iterations) == 3 and [int(o.iterations) for o in opt.optimizers] == [3, 3]


def test_a_callable_picks_the_optimizer():
    adam, sgd = Adam(0.1), SGD(0.1)
    opt = MultiOptimizer(lambda v: adam if "kernel" in v.path else sgd)
    assert opt.optimizers == []
    variables = make_variables("float32")
    train(opt, variables, 1)
    assert opt.optimizers == [adam, sgd] and opt.name == "multi_optimizer"
    np.testing.assert_allclose(variables[1].numpy(),
                               np.array([0.3, -0.7, 2.0]) - 0.1 * np.array([-0.06, -1.55, 2.05]),
                               rtol=1e-6)


def test_map_lookup_rules():
    default, exact, pattern = SGD(), Adam(), SGD()
    mapping = OptimizerMap(default)
    mapping["encoder/layer_0/dense"] = exact
    mapping["encoder/.*"] = pattern
    assert mapping["encoder/layer_0/dense"] is exact
    assert mapping["encoder/layer_0/attention/query"] is pattern
    assert mapping["decoder/dense"] is default and mapping["encoder"] is default
    assert len(mapping) == 2 and list(mapping) == ["encoder/layer_0/dense", "encoder/.*"]
    mapping["enc.*"] = SGD()
    with pytest.raises(ValueError, match=r"OptimizerMap: variable path 'encoder/x' matches "
                                         r"more than one pattern: \['encoder/\.\*', 'enc\.\*'\]"):
        mapping["encoder/x"]
    del mapping["enc.*"]
    assert len(mapping) == 2


def test_map_errors():
    with pytest.raises(TypeError, match=r"OptimizerMap: argument 'default_optimizer' must be "
                                        r"a lamina Optimizer instance; received 'adam'"):
        OptimizerMap("adam")
    with pytest.raises(TypeError, match=r"OptimizerMap: argument 'optimizer_map' must be a "
                                        r"dict"):
        OptimizerMap(SGD(), [("a", Adam())])
    mapping = OptimizerMap(SGD(), {"a": Adam()})
    with pytest.raises(ValueError, match=r"OptimizerMap: key 'a' is already mapped"):
        mapping["a"] = Adam()
    with pytest.raises(TypeError, match=r"OptimizerMap: a key must be a string"):
        mapping[3] = Adam()
    with pytest.raises(ValueError, match=r"OptimizerMap: the optimizer for 'b' is a "
                                         r"MultiOptimizer, and an inner optimizer cannot be "
                                         r"MultiOptimizer\."):
        mapping["b"] = _split()
    with pytest.raises(ValueError, match=r"OptimizerMap: the optimizer for 'b' is a "
                                         r"LossScaleOptimizer, and an inner optimizer cannot be "
                                         r"LossScaleOptimizer\. Wrap the MultiOptimizer in the "
                                         r"LossScaleOptimizer instead"):
        mapping["b"] = optimizers.LossScaleOptimizer(SGD())


def test_multi_optimizer_errors():
    opt = _split()
    with pytest.raises(AttributeError, match=r"MultiOptimizer has no learning_rate"):
        opt.learning_rate
    with pytest.raises(AttributeError, match=r"MultiOptimizer: the learning rate cannot be "
                                             r"set \(received 0.5\)"):
        opt.learning_rate = 0.5
    with pytest.raises(TypeError, match=r"MultiOptimizer: argument 'optimizer_map' must be"):
        MultiOptimizer("adam")
    with pytest.raises(ValueError, match=r"MultiOptimizer.apply: the optimizer is not built"):
        opt.apply([lamina.ops.ones((3,))])
    bad = MultiOptimizer(lambda v: "sgd")
    with pytest.raises(TypeError, match=r"MultiOptimizer: the optimizer chosen for variable "
                                        r"'dense/kernel' must be a lamina Optimizer"):
        bad.build(make_variables("float32"))
    opt.build(make_variables("float32"))
    stranger = lamina.Variable(np.ones(3, "float32"), name="other")
    with pytest.raises(ValueError, match=r"MultiOptimizer.apply: variable 'other' was not in "
                                         r"the list the optimizer was built with"):
        opt.apply([lamina.ops.ones((3,))], [stranger])
    with pytest.raises(ValueError, match=r"MultiOptimizer.set_weights: expected 9 arrays; "
                                         r"received 1"):
        opt.set_weights([np.zeros(())])


def test_loss_scale_factor_overrides_the_inner_optimizers():
    inner = Adam(loss_scale_factor=8.0)
    opt = MultiOptimizer(OptimizerMap(inner), loss_scale_factor=4.0)
    assert inner.loss_scale_factor == 4.0
    opt.loss_scale_factor = 2.0
    assert inner.loss_scale_factor == 2.0 and opt.get_config()["loss_scale_factor"] == 2.0


def test_config_is_keras_and_round_trips():
    opt = _split()
    config = optimizers.serialize(opt)
    assert config["class_name"] == "MultiOptimizer" and config["module"] == "keras.optimizers"
    inner = config["config"]
    assert inner["name"] == "multi_optimizer" and inner["loss_scale_factor"] is None
    mapping = inner["optimizer_map"]
    assert (mapping["module"], mapping["class_name"]) == ("keras.optimizers", "OptimizerMap")
    assert mapping["config"]["default_optimizer"]["class_name"] == "SGD"
    assert mapping["config"]["default_optimizer"]["config"]["momentum"] == 0.5
    assert mapping["config"]["optimizer_map"][".*kernel"]["config"]["name"] == "adam"
    restored = optimizers.deserialize(config)
    assert isinstance(restored, MultiOptimizer)
    assert optimizers.serialize(restored) == config
    got = train(restored, make_variables("float32"), 3)
    np.testing.assert_allclose(got[0], KERAS_WEIGHTS[0], rtol=2e-6, atol=1e-7)


def test_state_save_load_and_set_weights():
    opt = _split()
    train(opt, make_variables("float32"), 2)
    store = {}
    opt.save_own_variables(store)
    assert len(store) == 9 and int(store["0"]) == 2 and int(store["2"]) == 2
    fresh = _split()
    fresh.build(make_variables("float32"))
    fresh.load_own_variables(store)
    for a, b in zip(fresh.variables, opt.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    other = _split()
    other.build(make_variables("float32"))
    other.set_weights([v.numpy() for v in opt.variables])
    np.testing.assert_array_equal(other.variables[8].numpy(), opt.variables[8].numpy())


def _scoped(scope, value):
    with lamina.name_scope(scope):
        return lamina.Variable([[value, value]], name="kernel")


def test_variables_made_in_name_scopes_are_routed_by_their_path():
    # Keras 3.15.1's multi_optimizer_test: Variables made inside name_scope("dense_1") have
    # the path "dense_1/kernel"; SGD(0.1), SGD(1.0) and the default SGD(0.0) each take theirs
    w1, w2, w3 = _scoped("dense_1", 2.0), _scoped("dense_2", 3.0), _scoped("other", 4.0)
    assert [w.path for w in (w1, w2, w3)] == ["dense_1/kernel", "dense_2/kernel",
                                              "other/kernel"]
    sgd_1, sgd_2, default = SGD(0.1), SGD(1.0), SGD(0.0)
    mapping = OptimizerMap(default)
    mapping["^dense_1/.*"] = sgd_1
    mapping["^dense_2/.*"] = sgd_2
    opt = MultiOptimizer(mapping)
    opt.build([w1, w2, w3])
    assert [opt.optimizers[opt._var_to_optimizer_idx[opt._var_key(w)]] for w in (w1, w2, w3)] \
        == [sgd_1, sgd_2, default]
    opt.apply([ops.ones((1, 2))] * 3, [w1, w2, w3])
    np.testing.assert_allclose([w.numpy() for w in (w1, w2, w3)],
                               [[[1.9, 1.9]], [[2.0, 2.0]], [[4.0, 4.0]]], rtol=1e-6)
    assert int(opt.iterations) == 1 and [int(o.iterations) for o in opt.optimizers] == [1] * 3


def test_a_single_optimizer_trains_every_variable():
    sgd = SGD(0.5)
    opt = MultiOptimizer(sgd)
    w = lamina.Variable([1.0])
    opt.apply([ops.ones((1,))], [w])
    assert opt.optimizers == [sgd] and float(w.numpy()[0]) == 0.5


def test_a_wrapper_chosen_while_building_is_refused():
    # Keras: a map filled around __setitem__ is still checked when the optimizer is built
    mapping = OptimizerMap(SGD())
    mapping._optimizer_map = {"dense_1/.*": optimizers.LossScaleOptimizer(SGD()),
                              "dense_2/.*": _split()}
    opt = MultiOptimizer(mapping)
    with pytest.raises(ValueError, match=r"MultiOptimizer: the optimizer chosen for variable "
                                         r"'dense_1/kernel' is a LossScaleOptimizer, and a "
                                         r"LossScaleOptimizer cannot be used inside an "
                                         r"MultiOptimizer\. Wrap the MultiOptimizer"):
        opt.build([_scoped("dense_1", 1.0)])
    with pytest.raises(ValueError, match=r"'dense_2/kernel' is a MultiOptimizer, and a "
                                         r"MultiOptimizer cannot be used inside an "
                                         r"MultiOptimizer\."):
        opt.build([_scoped("dense_2", 1.0)])
    assert not opt.built
