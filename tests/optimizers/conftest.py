"""Each optimizer test starts a fresh session, so automatic names are Keras's first ones
(``adam``, ``sgd``, ...) whatever ran before."""
import pytest

import lamina


@pytest.fixture(autouse=True)
def _fresh_names():
    lamina.backend.clear_session(free_memory=False)
