// Package kwok pins KWOK (sigs.k8s.io/kwok v0.8.0), the second kubelet of `stsedu live`:
// a kubelet the kit did not write, driving the pods by stages. Its own module, beside
// ../controlplane: KWOK requires the k8s.io client libraries at its own versions, and a change
// here must not change the control plane's cache key (stsedu/live/build.py builds both).
package kwok
