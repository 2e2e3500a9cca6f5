"""Each reshaping layer's ``compute_output_shape`` agrees with what its call returns."""
import pytest

from tests.layers.harness import case_id
from tests.layers.reshaping import (test_cropping, test_flatten, test_permute,
                                    test_repeat_vector, test_reshape, test_up_sampling,
                                    test_zero_padding)

SHAPE_CASES = [case for module in (test_cropping, test_flatten, test_permute, test_repeat_vector,
                             test_reshape, test_up_sampling, test_zero_padding)
         for case in module.CASES]


@pytest.mark.parametrize("case", SHAPE_CASES, ids=case_id)
def test_compute_output_shape_matches_the_call(case):
    layer = case.cls(**case.kwargs)
    assert tuple(layer.compute_output_shape(case.input_shape)) == tuple(case.output_shape)
    unknown_batch = (None, *case.input_shape[1:])
    assert tuple(layer.compute_output_shape(unknown_batch)) == (None, *case.output_shape[1:])
