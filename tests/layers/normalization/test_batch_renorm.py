"""BatchNormalization(renorm=True): batch renormalization, checked against Keras 3.15.1's
numbers (computed with the JAX backend: a (6, 4) batch, then the batch times 0.5, with
momentum 0.9, renorm_momentum 0.8, epsilon 1e-3 and the gamma / beta / renorm statistics
set below)."""
import numpy as np
import pytest

from lamina import initializers, layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.BatchNormalization, dict(renorm=True), (2, 3), (2, 3),
              trainable_weights=2, non_trainable_weights=5, params=21,
              weight_shapes={name: (3,) for name in (
                  "gamma", "beta", "moving_mean", "moving_variance", "moving_stddev",
                  "renorm_mean", "renorm_stddev")}),
    LayerCase(layers.BatchNormalization,
              dict(renorm=True, renorm_clipping={"rmax": 3.0, "rmin": 0.3, "dmax": 5.0},
                   renorm_momentum=0.9, momentum=0.8),
              (2, 4, 4, 3), (2, 4, 4, 3), trainable_weights=2, non_trainable_weights=5,
              params=21),
    LayerCase(layers.BatchNormalization, dict(renorm=True, center=False, scale=False),
              (3, 4), (3, 4), trainable_weights=0, non_trainable_weights=5, params=20),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_batch_renorm_harness(case, backend):
    run_layer_case(case)


KERAS = {
    'none': {
        'y1': [[-1.6333329677581787, 5.300000190734863, 1.149999976158142, 0.0], [0.23333300650119781, 1.7000000476837158, -0.25, -4.199999809265137], [-1.1666669845581055, -0.4000000059604645, 0.800000011920929, 1.399999976158142], [0.699999988079071, 2.4000000953674316, 1.850000023841858, -2.799999952316284], [-0.699999988079071, 0.30000001192092896, 0.44999998807907104, 2.799999952316284], [1.166666030883789, -1.7999999523162842, 1.5, -1.399999976158142]],
        'y2': [[-0.8650580048561096, 1.3874210119247437, 0.8880820274353027, 0.13472199440002441], [0.06672199815511703, 0.33304500579833984, 0.1418749988079071, -1.8861039876937866], [-0.632112979888916, -0.28200700879096985, 0.7015299797058105, 0.8083299994468689], [0.29966700077056885, 0.5380629897117615, 1.2611850500106812, -1.212496042251587], [-0.3991680145263672, -0.07699000090360641, 0.5149790048599243, 1.4819389581680298], [0.5326120257377625, -0.6920419931411743, 1.0746339559555054, -0.5388870239257812]],
        'moving_mean': [0.0, 0.13300000131130219, -0.032666999846696854, -0.04899999871850014],
        'moving_variance': [1.0430749654769897, 1.2703529596328735, 1.0057380199432373, 0.9544829726219177],
        'moving_stddev': [1.0218000411987305, 1.1275429725646973, 1.0033639669418335, 0.9774879813194275],
        'renorm_mean': [0.3199999928474426, -0.0729999989271164, 0.5793330073356628, -0.09099999815225601],
        'renorm_stddev': [1.353350043296814, 0.9097279906272888, 1.6391119956970215, 0.9510579705238342],
        'inf': [[-1.9551960229873657, 1.958232045173645, 0.9650959968566895, 0.10025700181722641], [0.7850660085678101, 0.36184099316596985, -1.8255170583724976, -4.196469783782959], [-1.27013099193573, -0.5693870186805725, 0.2674430012702942, 1.5324989557266235], [1.4701310396194458, 0.672249972820282, 2.360403060913086, -2.764228105545044], [-0.585066020488739, -0.258978009223938, -0.43021100759506226, 2.9647419452667236], [2.155195951461792, -1.1902060508728027, 1.662750005722046, -1.3319859504699707]],
    },
    'clipped': {
        'y1': [[-1.6333329677581787, 1.3893280029296875, 1.0703779458999634, 0.0], [0.23333300650119781, 0.1988140046596527, -0.5518919825553894, -4.199999809265137], [-1.1666669845581055, -0.4956519901752472, 0.6648110151290894, 1.399999976158142], [0.699999988079071, 0.43030300736427307, 1.8815139532089233, -2.799999952316284], [-0.699999988079071, -0.26416298747062683, 0.2592430114746094, 2.799999952316284], [1.166666030883789, -0.9586300253868103, 1.4759459495544434, -1.399999976158142]],
        'y2': [[-1.2762360572814941, 1.2361719608306885, 1.0338799953460693, 0.2656950056552887], [0.20378200709819794, 0.18179699778556824, -0.587116003036499, -2.5409719944000244], [-0.9062319993972778, -0.43325600028038025, 0.6286309957504272, 1.2012510299682617], [0.5737860202789307, 0.3868139982223511, 1.8443779945373535, -1.6054160594940186], [-0.5362269878387451, -0.22823800146579742, 0.22338199615478516, 2.1368069648742676], [0.9437909722328186, -0.8432899713516235, 1.4391289949417114, -0.6698600053787231]],
        'moving_mean': [0.0, 0.13300000131130219, -0.032666999846696854, -0.04899999871850014],
        'moving_variance': [1.0430749654769897, 1.2703529596328735, 1.0057380199432373, 0.9544829726219177],
        'moving_stddev': [1.0218000411987305, 1.1275429725646973, 1.0033639669418335, 0.9774879813194275],
        'renorm_mean': [0.3199999928474426, -0.0729999989271164, 0.5793330073356628, -0.09099999815225601],
        'renorm_stddev': [1.353350043296814, 0.9097279906272888, 1.6391119956970215, 0.9510579705238342],
        'inf': [[-1.9551960229873657, 1.958232045173645, 0.9650959968566895, 0.10025700181722641], [0.7850660085678101, 0.36184099316596985, -1.8255170583724976, -4.196469783782959], [-1.27013099193573, -0.5693870186805725, 0.2674430012702942, 1.5324989557266235], [1.4701310396194458, 0.672249972820282, 2.360403060913086, -2.764228105545044], [-0.585066020488739, -0.258978009223938, -0.43021100759506226, 2.9647419452667236], [2.155195951461792, -1.1902060508728027, 1.662750005722046, -1.3319859504699707]],
    },
}


def _batch():
    x = (np.arange(24, dtype="float32").reshape(6, 4) % 7 - 3.0) * 0.7
    x[0, 1] = 5.0
    return x


@pytest.mark.parametrize("clipping", ["none", "clipped"])
def test_training_steps_match_keras(clipping, backend):
    clip = None if clipping == "none" else {"rmax": 1.5, "rmin": 0.8, "dmax": 0.5}
    bn = layers.BatchNormalization(momentum=0.9, renorm=True, renorm_momentum=0.8,
                                   renorm_clipping=clip, epsilon=1e-3)
    bn.build((None, 4))
    bn.gamma.assign(np.array([1.0, 0.5, -1.0, 2.0], "float32"))
    bn.beta.assign(np.array([0.1, -0.2, 0.3, 0.0], "float32"))
    bn.renorm_mean.assign(np.array([0.5, -0.5, 1.0, 0.0], "float32"))
    bn.renorm_stddev.assign(np.array([1.5, 0.5, 2.0, 1.0], "float32"))
    expected = KERAS[clipping]
    x = _batch()
    np.testing.assert_allclose(bn(x, training=True), expected["y1"], atol=2e-5)
    np.testing.assert_allclose(bn(x * 0.5, training=True), expected["y2"], atol=2e-5)
    for name in ("moving_mean", "moving_variance", "moving_stddev", "renorm_mean",
                 "renorm_stddev"):
        np.testing.assert_allclose(getattr(bn, name).numpy(), expected[name], atol=2e-6,
                                   err_msg=name)
    np.testing.assert_allclose(bn(x, training=False), expected["inf"], atol=2e-5)
    assert [w.name for w in bn.weights] == ["gamma", "beta", "moving_mean", "moving_variance",
                                            "moving_stddev", "renorm_mean", "renorm_stddev"]


def test_stddevs_start_at_the_root_of_the_variance_initializer():
    bn = layers.BatchNormalization(renorm=True,
                                   moving_variance_initializer=initializers.Constant(4.0))
    bn.build((None, 5))
    np.testing.assert_allclose(bn.moving_stddev.numpy(), np.full(5, 2.0))
    np.testing.assert_allclose(bn.renorm_stddev.numpy(), np.full(5, 2.0))


def test_inference_is_plain_batch_normalization():
    plain, renorm = layers.BatchNormalization(), layers.BatchNormalization(renorm=True)
    plain.build((None, 4))
    renorm.build((None, 4))
    rng = np.random.default_rng(0)
    for name in ("gamma", "beta", "moving_mean", "moving_variance"):
        value = rng.uniform(0.5, 2.0, 4).astype("float32")
        getattr(plain, name).assign(value)
        getattr(renorm, name).assign(value)
    x = rng.standard_normal((3, 4)).astype("float32")
    np.testing.assert_allclose(renorm(x, training=False), plain(x, training=False),
                               rtol=1e-6)


@pytest.mark.parametrize("clipping, message", [
    ({"random_key": 1.0}, "Received invalid keys for `renorm_clipping`"),
    ({"rmax": 0.0, "rmin": 1.0}, "rmax should be greater than rmin"),
    ({"rmax": 1.0, "dmax": -1.0}, "dmax should be non-negative"),
    ([1.0], "argument 'renorm_clipping' must be a dict"),
])
def test_bad_clipping_raises(clipping, message):
    with pytest.raises(ValueError, match=message):
        layers.BatchNormalization(renorm=True, renorm_clipping=clipping)


def test_config_round_trip():
    layer = layers.BatchNormalization(renorm=True, renorm_momentum=0.95,
                                      renorm_clipping={"rmax": 3.0, "rmin": 0.3, "dmax": 5.0})
    config = layer.get_config()
    assert config["renorm"] is True and config["renorm_momentum"] == 0.95
    assert layers.BatchNormalization.from_config(config).get_config() == config


def test_mask_of_size_one_on_an_axis_counts_every_position():
    # Keras 3.15.1: a (1, 2, 1) mask on a (1, 2, 3, 4) input broadcasts over axis 2
    layer = layers.BatchNormalization(momentum=0.0, epsilon=1e-3)
    x = np.ones((1, 2, 3, 4), "float32")
    x[0, 0, :, 0] = 3.0
    y = layer(x, training=True, mask=np.ones((1, 2, 1), "float32"))
    np.testing.assert_allclose(layer.moving_mean.numpy(), [2.0, 1.0, 1.0, 1.0], rtol=1e-5)
    np.testing.assert_allclose(layer.moving_variance.numpy(), [1.0, 0.0, 0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(np.asarray(y)[0, 0, 0, 0], 1.0 / np.sqrt(1.0 + 1e-3), rtol=1e-5)
