"""What the controller uses to watch the cluster (client-go's part of the flow).

* :mod:`.informers` -- the cached view fed by a watch of every write, and its listers
  (``cache.SharedIndexInformer``, ``cache.ResourceEventHandlerFuncs``);
* :mod:`.workqueue` -- the rate-limited work queue of ``namespace/name`` keys
  (``workqueue.TypedRateLimitingInterface``).

They sit between the simulated cluster (:mod:`stsedu.sim`) and the controller
(:mod:`stsedu.controller`), as client-go sits between kube-apiserver and
kube-controller-manager.
"""
