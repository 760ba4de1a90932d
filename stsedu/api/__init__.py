"""The API server: what it does with a request before anything is stored.

* :mod:`.objects` -- the stored objects (StatefulSet, Pod, claims, revisions, Service);
* :mod:`.errors` and :mod:`.field_errors` -- errors and field errors, worded as the API server words them;
* :mod:`.load` -- YAML/JSON text in, plain dicts out; :mod:`.schema` -- strict decoding, unknown fields;
  :mod:`.formats`, :mod:`.quantities`, :mod:`.selectors` -- the value formats it checks;
* :mod:`.defaults` -- defaulting; :mod:`.validation` -- one module per validator family;
* :mod:`.admission` -- ONE pipeline (load, default, prune, validate) for apply, edits and ``check``;
  :mod:`.profile_rules` -- what an older release's API server accepts;
* :mod:`.merge_patch` -- JSON merge patch; :mod:`.arguments` -- checks of plain call arguments.
"""
