"""The StatefulSet controller, file for file with upstream ``pkg/controller/statefulset``.

* :mod:`.stateful_set` -- the controller (``stateful_set.go``): its loop (workers taking keys from the work
  queue, ``worker``, ``processNextWorkItem``) and the sync of one set: claim, snapshot, ``UpdateStatefulSet``,
  record;
* :mod:`.stateful_set_control` -- the algorithm (``stateful_set_control.go``): the steps, making their requests
  through a pod control;
* :mod:`.stateful_pod_control` -- the pod control, its object manager and event recorder: the requests, with
  events (``stateful_pod_control.go``);
* :mod:`.stateful_set_status_updater` -- the status write (``stateful_set_status_updater.go``);
* :mod:`.stateful_set_utils` -- the named predicates (``stateful_set_utils.go``);
* :mod:`.history` -- ControllerRevisions (``controller_history.go``: hashing, truncation, and the
  controller history's requests, ``ClusterHistory``);
* :mod:`.controller_ref_manager` -- adopting and releasing pods (``controller_ref_manager.go``);
* :mod:`.recording_pod_control` -- the object manager and history ``preview()`` gives the pod control: they
  write nothing;
* :mod:`.snapshot` -- what a sync reads: the informer caches as it began;
* :mod:`.consistency` -- the ``StaleControllerConsistencyStatefulSet`` store (no sync on caches behind the
  set's own writes);
* :mod:`.decisions` -- the record of each decision;
* :mod:`.stateful_set_control_v116` -- v1.16's ``updateStatefulSet``, which the set control runs for a
  profile whose rule ``update_in_steps`` is off (``v1.16``; :mod:`stsedu.api.profiles`).
"""
