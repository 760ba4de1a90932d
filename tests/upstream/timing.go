// Timing mode of stsedu-oracle: how long the real controller's UpdateStatefulSet takes on a
// set stsedu dumped, for benchmarks/run.py (the kit's sync beside the code it teaches).
//
//	{"op": "time", "name": "web", "namespace": "default", "now": 12.5, "objects": {...},
//	 "gates": {...}, "calls": 200, "repeats": 5}
//	  -> {"ok": true, "pods": 1000, "seconds_per_call": 0.00566, "cpu_seconds_per_call": 0.0061, "writes": 0}
//
// The objects are loaded and the listers' indexers filled once, as for "sync"; the set's pods
// are claimed once (FilterPodsByOwner + ClaimPods); then UpdateStatefulSet runs once to warm up
// and "calls" more times in each of "repeats" rounds. seconds_per_call is the best round's
// mean wall time, cpu_seconds_per_call the best round's mean CPU time of the process (its
// garbage collector's threads included). "writes" counts the requests of the timed calls: 0 for a stable set, whose sync
// only reads (the kit's benchmark checks it, so that both sides time the same work).
package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
)

type timingRequest struct {
	request
	Calls   int `json:"calls"`
	Repeats int `json:"repeats"`
}

type timingResponse struct {
	OK             bool    `json:"ok"`
	Pods           int     `json:"pods"`
	SecondsPerCall float64 `json:"seconds_per_call"`
	CPUPerCall     float64 `json:"cpu_seconds_per_call"`
	Writes         int     `json:"writes"`
	Problem        string  `json:"problem,omitempty"`
}

func runTiming(line []byte) (resp timingResponse) {
	defer func() {
		if r := recover(); r != nil {
			resp = timingResponse{Problem: fmt.Sprintf("panic: %v\n%s", r, debug.Stack())}
		}
	}()
	var req timingRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return timingResponse{Problem: "bad request: " + err.Error()}
	}
	if req.Calls <= 0 || req.Repeats <= 0 {
		return timingResponse{Problem: "calls and repeats must be positive"}
	}
	ns := req.Namespace
	if ns == "" {
		ns = "default"
	}
	w, err := newWorld(fake.NewClientset(), req.request)
	if err != nil {
		return timingResponse{Problem: err.Error()}
	}
	s, err := newSyncer(w, ns, req.Gates, record.NewFakeRecorder(100000))
	if err != nil {
		return timingResponse{Problem: err.Error()}
	}
	set, err := s.setLister.StatefulSets(ns).Get(req.Name)
	if err != nil {
		return timingResponse{Problem: "get: " + err.Error()}
	}
	pods, err := s.claimPods(set, nil, nil)
	if err != nil {
		return timingResponse{Problem: "claim-pods: " + err.Error()}
	}

	if _, err := s.control.UpdateStatefulSet(s.ctx, set, pods, w.now); err != nil {
		return timingResponse{Problem: "update: " + err.Error()}
	}
	before := len(w.writes)
	best, bestCPU := time.Duration(0), time.Duration(0)
	for r := 0; r < req.Repeats; r++ {
		start, startCPU := time.Now(), cpuTime()
		for i := 0; i < req.Calls; i++ {
			if _, err := s.control.UpdateStatefulSet(s.ctx, set, pods, w.now); err != nil {
				return timingResponse{Problem: "update: " + err.Error()}
			}
		}
		d, dCPU := time.Since(start), cpuTime()-startCPU
		if r == 0 || d < best {
			best = d
		}
		if r == 0 || dCPU < bestCPU {
			bestCPU = dCPU
		}
	}
	return timingResponse{OK: true, Pods: len(pods), Writes: len(w.writes) - before,
		SecondsPerCall: best.Seconds() / float64(req.Calls),
		CPUPerCall:     bestCPU.Seconds() / float64(req.Calls)}
}

// cpuTime is the CPU time this process has used (user and system, every thread).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
