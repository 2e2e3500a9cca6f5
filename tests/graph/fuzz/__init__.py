"""The differential fuzzer's generator (issue 9): random models and ``lamina.jit``
programs, run eagerly and as graphs, compared.

- ``catalogue.py``: the layers, each with a shape rule giving constructor code for an input
  shape (or None when it does not fit), plus the layer-harness cases walked generically;
  ``catalogue_3d.py`` (volumes), ``catalogue_recurrent.py`` (RNN over cells),
  ``catalogue_merges.py`` (two-input layers), ``catalogue_inputs.py`` (first layers on ids
  or floats: Embedding, CategoryEncoding, Discretization);
- ``featured.py``: seed k starts its model with the k-th exported layer class, so the CI
  seeds cover every class (tests/graph/test_fuzz_coverage.py);
- ``shapes.py``: a layer tried on symbolic tensors gives its output shape;
- ``models.py``: a seed -> a :class:`ModelSpec` (kind, layer statements, optimizer, loss,
  batches, dtype), and the spec -> standalone Python source;
- ``programs.py``: a seed -> a random ``lamina.jit`` program of views and in-place assigns;
- ``catalogue_ops.py``: ops between layers of functional models (op nodes in their config,
  which both twins round-trip through) and image inputs of unknown height and width;
- ``dynamic.py`` / ``dynamic_checks.py``: a seed -> an op program on inputs of unknown
  sizes (resize, pad_images, elastic_transform, extract_sequences, stft/istft,
  scatter_update, map_coordinates, refused results) or image layers on bounding-box dicts,
  run eagerly, as a functional model and through ``lamina.jit``: same values, or an error
  of the same type;
- ``checks.py``: standalone comparison code (imports only numpy and lamina) that the test
  runs and a reproduction script embeds verbatim;
- ``repro.py``: shrinking (drop statements while the failure persists) and the script
  printed for a failing seed.
"""
