"""Lessons: what learners and teachers run, built on the cluster and its views.

* :mod:`.examples` -- example manifests (``load("web")``, ``web(replicas, ...)``);
* :mod:`.scenarios` -- scenario files: the format, the runner, expectations, the shipped library;
* :mod:`.exercises` -- predict-then-check exercises, answer sheets, grading, hand-outs;
* :mod:`.compare` -- one scenario under two profiles, side by side.

Learners reach them as ``stsedu.examples``, ``stsedu.scenarios``, ``stsedu.exercises`` and
``stsedu.compare`` (see ``stsedu/__init__.py``).
"""
