"""The StatefulSet controller, file for file with upstream ``pkg/controller/statefulset``.

* :mod:`.stateful_set` -- the controller (``stateful_set.go``): its loop (workers taking keys from the work queue,
  ``worker``, ``processNextWorkItem``) and the sync of one set: claim, snapshot, ``UpdateStatefulSet``, record;
* :mod:`.stateful_set_control` -- the algorithm (``stateful_set_control.go``): the steps, making their requests through a pod control;
* :mod:`.stateful_pod_control` -- the pod control, its object manager and event recorder: the requests, with events
  (``stateful_pod_control.go``);
* :mod:`.recording_pod_control` -- the object manager ``preview()`` gives the pod control: it writes nothing;
* :mod:`.stateful_set_utils` -- the named predicates (``stateful_set_utils.go``);
* :mod:`.history` -- ControllerRevisions (``controller_history.go``, hashing, truncation);
* :mod:`.decisions` -- the record of each decision;
* :mod:`.stateful_set_control_v116` -- v1.16's ``updateStatefulSet``, which the set control runs for a
  profile whose rule ``update_in_steps`` is off (``v1.16``; :mod:`stsedu.api.profiles`).
"""
