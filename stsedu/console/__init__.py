"""kubectl at a console: command lines run against an embedded cluster.

* :mod:`.session` -- a :class:`~.session.Session` parses a kubectl line (:mod:`stsedu.views.kubectl.flags`),
  carries it out on a :class:`~stsedu.Cluster` (the verbs of :mod:`stsedu.views.kubectl`) and returns
  what kubectl prints;
* :mod:`.magic` -- ``%kubectl`` and ``%%kubectl`` in a notebook (registered by ``import stsedu``);
* :mod:`.cli` -- ``stsedu kubectl ...`` in a terminal, keeping its cluster between calls.

This room sits after the :class:`~stsedu.Cluster` facade, which it makes and drives; kubectl's
printers and verbs (:mod:`stsedu.views.kubectl`) never import the facade.  See docs/kubectl.md.
"""
