"""kubectl against the embedded cluster, and kubectl's text.

* kubectl's printers, byte for byte: ``get`` and ``get -w`` (:mod:`.get`), ``rollout
  status/history`` (:mod:`.rollout`), ``describe``'s pod template (:mod:`.describe`);
* the command line (issue 29): :mod:`.flags` (cobra/pflag parsing), :mod:`.session` (a
  :class:`~.session.Session` runs a line against a cluster), the verbs (:mod:`.verbs`,
  :mod:`.reads`, :mod:`.shell`), :mod:`.magic` (``%kubectl``) and :mod:`.cli` (``stsedu kubectl``).
  See docs/kubectl.md.
"""
