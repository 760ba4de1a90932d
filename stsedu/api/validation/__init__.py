"""Validation, one module per validator family (``pkg/apis/{apps,core}/validation``):
:mod:`.meta` (object metadata, labels, selectors), :mod:`.pod` (the pod template), :mod:`.pvc`
(volume claim templates), :mod:`.statefulset` (a set, its updates, its status), :mod:`.service`."""
