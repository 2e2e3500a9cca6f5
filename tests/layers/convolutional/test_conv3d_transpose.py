import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.keras11.reference import check_against_keras

CASES = [
    LayerCase(layers.Conv3DTranspose, dict(filters=3, kernel_size=2), (2, 3, 2, 3, 2),
              (2, 4, 3, 4, 3), trainable_weights=2,
              weight_shapes={"kernel": (2, 2, 2, 3, 2), "bias": (3,)}, params=51,
              rtol=1e-4, atol=1e-5),
    LayerCase(layers.Conv3DTranspose, dict(filters=2, kernel_size=3, strides=2,
                                           padding="same"),
              (2, 2, 3, 2, 1), (2, 4, 6, 4, 2), trainable_weights=2, params=56,
              rtol=1e-4, atol=1e-5),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_conv3d_transpose_harness(case):
    run_layer_case(case)


@pytest.mark.parametrize("key, kwargs", [
    ("conv3d_transpose_valid", dict(filters=3, kernel_size=(2, 3, 2))),
    ("conv3d_transpose_same_s2", dict(filters=2, kernel_size=3, strides=(2, 1, 2),
                                      padding="same")),
    ("conv3d_transpose_outpad", dict(filters=2, kernel_size=(3, 2, 2), strides=2,
                                     output_padding=1)),
    ("conv3d_transpose_dilated_cf", dict(filters=2, kernel_size=2, dilation_rate=2,
                                         padding="same", data_format="channels_first")),
])
def test_conv3d_transpose_matches_keras(key, kwargs):
    check_against_keras(key, layers.Conv3DTranspose(**kwargs), rtol=1e-4, atol=1e-5)


def test_alias_and_output_padding_error():
    assert layers.Convolution3DTranspose is layers.Conv3DTranspose
    with pytest.raises(ValueError, match="output_padding"):
        layers.Conv3DTranspose(2, 3, strides=2, output_padding=2)
