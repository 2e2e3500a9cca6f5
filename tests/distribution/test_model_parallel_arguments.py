"""ModelParallel's older ``device_mesh`` argument: accepted as in Keras, and said once to
have no effect (the mesh is the layout map's)."""
import pytest

import lamina


def test_model_parallel_says_once_that_an_older_device_mesh_has_no_effect():
    devices = lamina.distribution.list_devices()
    mesh = lamina.distribution.DeviceMesh((1,), ["batch"], devices)
    layout_map = lamina.distribution.LayoutMap(mesh)
    other = lamina.distribution.DeviceMesh((1,), ["data"], devices)
    with pytest.warns(UserWarning, match=r"ModelParallel: argument 'device_mesh' .* has no "
                                         r"effect in Lamina: the mesh is the layout_map's"):
        lamina.distribution.ModelParallel(layout_map=layout_map, device_mesh=other)
