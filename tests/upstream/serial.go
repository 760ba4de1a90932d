// The serial batch of a sync: a Parallel set's pod work runs in goroutines upstream
// (slowStartBatch starts one per pod of a batch and waits for all of them), so which
// goroutine's write meets which resourceVersion, and which cache copy it reads, is up to
// the Go scheduler. The oracle does not change that code; it admits the goroutines of a
// batch to the fake API server and to the informer caches one at a time, in the order
// slowStartBatch started them (the order of its pod list: ordinals ascending for the
// replicas, descending for the condemned), each until it has returned. That is one real,
// reachable interleaving (the one where the Go scheduler ran each goroutine to the end
// before the next began) and the one the kit documents (docs/upstream-oracle.md). A real
// cluster may show another.
//
// A goroutine is told apart by its id; the sync runs with GOMAXPROCS 1, where the runtime
// hands out goroutine ids in creation order (one P, one id cache). A goroutine waits while a
// goroutine slowStartBatch started before it is alive; the first one never waits, so the
// batch cannot deadlock. Should a wait last longer than serialTimeout (a goroutine blocked
// outside the fake API server, which the controller's code does not do today), the waiter
// goes on unordered and the answer says so (response.Unordered), so the comparison fails
// loudly instead of comparing an interleaving the kit does not claim.
package main

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
)

// batchCreator is the frame a goroutine of slowStartBatch names as its creator.
var batchCreator = []byte("created by k8s.io/kubernetes/pkg/controller/statefulset.slowStartBatch")

const serialTimeout = 5 * time.Second

// serializer admits the goroutines of a batch one at a time (nil: no ordering, as in the
// timing mode).
type serializer struct {
	mu        sync.Mutex
	admitted  map[uint64]bool
	unordered bool
}

func newSerializer() *serializer { return &serializer{admitted: map[uint64]bool{}} }

// goroutines parses a runtime.Stack dump: each goroutine's id and whether slowStartBatch
// started it.
func goroutines(dump []byte) map[uint64]bool {
	out := map[uint64]bool{}
	for _, block := range bytes.Split(dump, []byte("\n\n")) {
		if !bytes.HasPrefix(block, []byte("goroutine ")) {
			continue
		}
		rest := block[len("goroutine "):]
		end := bytes.IndexByte(rest, ' ')
		if end < 0 {
			continue
		}
		id, err := strconv.ParseUint(string(rest[:end]), 10, 64)
		if err != nil {
			continue
		}
		out[id] = bytes.Contains(block, batchCreator)
	}
	return out
}

// gate returns once the calling goroutine may touch the fake API server or a cache: at once
// for a goroutine slowStartBatch did not start, else once every goroutine it started before
// the caller has returned.
func (s *serializer) gate() { s.gateHolding(nil) }

// gateHolding is gate for a caller that holds held: the fake clientset calls its reactors
// with its own lock held (testing.Fake.Invokes), which an earlier goroutine needs for its
// requests, so a waiting reactor lets go of it until its turn.
func (s *serializer) gateHolding(held sync.Locker) {
	if s == nil {
		return
	}
	mine := goroutines(stack(false))
	var me uint64
	batch := false
	for id, b := range mine {
		me, batch = id, b
	}
	if !batch {
		return
	}
	s.mu.Lock()
	if s.admitted[me] {
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	if held != nil && s.earlierAlive(me) {
		held.Unlock()
		defer held.Lock()
	}
	deadline := time.Now().Add(serialTimeout)
	for tries := 0; s.earlierAlive(me); tries++ {
		if time.Now().After(deadline) {
			s.mu.Lock()
			s.unordered = true
			s.mu.Unlock()
			break
		}
		// With one P, yielding runs the earlier goroutines until they return or sleep (a
		// retry's backoff); then wait a little instead of spinning.
		if tries < 50 {
			runtime.Gosched()
		} else {
			time.Sleep(200 * time.Microsecond)
		}
	}
	s.mu.Lock()
	s.admitted[me] = true
	s.mu.Unlock()
}

// earlierAlive says whether a goroutine slowStartBatch started before goroutine me is alive.
func (s *serializer) earlierAlive(me uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, batch := range goroutines(stack(true)) {
		if batch && id < me {
			return true
		}
	}
	return false
}

// stack is runtime.Stack's whole dump (the "created by" line ends each goroutine's part).
func stack(all bool) []byte {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, all)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

// serially runs f with one P (goroutine ids in creation order), then restores GOMAXPROCS.
func serially(f func()) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
}

// The informer caches the pod goroutines read (StatefulPodControl's pod and claim listers),
// behind the gate.

type serialPodLister struct {
	corelisters.PodLister
	gate func()
}

func (l serialPodLister) List(sel labels.Selector) ([]*v1.Pod, error) {
	l.gate()
	return l.PodLister.List(sel)
}

func (l serialPodLister) Pods(ns string) corelisters.PodNamespaceLister {
	return serialPodNamespaceLister{l.PodLister.Pods(ns), l.gate}
}

type serialPodNamespaceLister struct {
	corelisters.PodNamespaceLister
	gate func()
}

func (l serialPodNamespaceLister) List(sel labels.Selector) ([]*v1.Pod, error) {
	l.gate()
	return l.PodNamespaceLister.List(sel)
}

func (l serialPodNamespaceLister) Get(name string) (*v1.Pod, error) {
	l.gate()
	return l.PodNamespaceLister.Get(name)
}

type serialClaimLister struct {
	corelisters.PersistentVolumeClaimLister
	gate func()
}

func (l serialClaimLister) List(sel labels.Selector) ([]*v1.PersistentVolumeClaim, error) {
	l.gate()
	return l.PersistentVolumeClaimLister.List(sel)
}

func (l serialClaimLister) PersistentVolumeClaims(ns string) corelisters.PersistentVolumeClaimNamespaceLister {
	return serialClaimNamespaceLister{l.PersistentVolumeClaimLister.PersistentVolumeClaims(ns), l.gate}
}

type serialClaimNamespaceLister struct {
	corelisters.PersistentVolumeClaimNamespaceLister
	gate func()
}

func (l serialClaimNamespaceLister) List(sel labels.Selector) ([]*v1.PersistentVolumeClaim, error) {
	l.gate()
	return l.PersistentVolumeClaimNamespaceLister.List(sel)
}

func (l serialClaimNamespaceLister) Get(name string) (*v1.PersistentVolumeClaim, error) {
	l.gate()
	return l.PersistentVolumeClaimNamespaceLister.Get(name)
}
