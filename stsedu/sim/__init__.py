"""The simulated cluster around the controller: store, clock, kubelet, garbage collector, writes.

* :mod:`.store` -- the objects, with uids and resource versions;
* :mod:`.clock` -- simulated time and scheduled events;
* :mod:`.writes` -- object writes with their side effects and injected API errors;
* :mod:`.kubelet` -- moves pods through their stages; :mod:`.gc` -- the garbage collector;
* :mod:`.snapshot` -- a whole cluster as signed bytes and back (what `stsedu kubectl` keeps between calls).

Nothing here knows the ``Cluster`` facade: the facade makes these and wires them together.
"""
