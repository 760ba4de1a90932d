"""kubectl's text and verbs, byte for byte, on the kit's objects.

* kubectl's printers: ``get`` and ``get -w`` (:mod:`.get`), ``rollout status/history``
  (:mod:`.rollout`), ``describe`` (:mod:`.describe`, :mod:`.describe_objects`), ``-o`` formats
  (:mod:`.printers`, :mod:`.templates`);
* what a command line does once parsed (issue 29): :mod:`.flags` (cobra/pflag parsing), the verbs
  (:mod:`.verbs`, :mod:`.reads`, :mod:`.shell`), their arguments (:mod:`.args`) and files
  (:mod:`.objects_io`).

Nothing here makes or imports the ``Cluster`` facade: the session that runs a line against a cluster,
``%kubectl`` and ``stsedu kubectl`` are in :mod:`stsedu.console`.  See docs/kubectl.md.
"""
