// Command stsedu-oracle runs the real StatefulSet controller code of k8s.io/kubernetes
// (pkg/controller/statefulset, pkg/controller/history) over client-go's fake clientset,
// one sync at a time, for stsedu's differential tests (tests/controller/test_upstream.py).
// This file is the sync of v1.37.2 (and of v1.36.3, built with v136/go.mod); the protocol,
// shared with v116/main.go, is in protocol.go, the timing mode in timing.go.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes/fake"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/history"
	"k8s.io/kubernetes/pkg/controller/statefulset"
	"k8s.io/kubernetes/pkg/controller/util/consistency"
	clocktesting "k8s.io/utils/clock/testing"
)

// syncer is what StatefulSetController holds for a sync: informer caches filled from the fake
// clientset once, the listers over them and the real control built from those.
type syncer struct {
	podIdx     cache.Indexer
	setLister  appslisters.StatefulSetLister
	control    statefulset.StatefulSetControlInterface
	podControl controller.RealPodControl
	recorder   *record.FakeRecorder
	ctx        context.Context
}

// newSyncer sets the request's feature gates and builds the controller over w's objects.
func newSyncer(w *world, ns string, gates map[string]bool, recorder *record.FakeRecorder) (*syncer, error) {
	if len(gates) > 0 {
		if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(gates); err != nil {
			return nil, fmt.Errorf("gates: %v", err)
		}
	}
	podIdx := w.indexer("Pod", ns, cache.Indexers{controller.PodControllerIndex: func(obj interface{}) ([]string, error) {
		pod := obj.(*v1.Pod)
		return []string{controller.PodControllerIndexKey(pod.Namespace, metav1.GetControllerOf(pod))}, nil
	}})
	setIdx := w.indexer("StatefulSet", ns, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	pvcIdx := w.indexer("PersistentVolumeClaim", ns, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	revIdx := w.indexer("ControllerRevision", ns, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		history.ControllerRevisionControllerIndex: func(obj interface{}) ([]string, error) {
			cr := obj.(*apps.ControllerRevision)
			return []string{history.ControllerRevisionControllerIndexKey(cr.Namespace, metav1.GetControllerOfNoCopy(cr))}, nil
		},
	})
	s := &syncer{podIdx: podIdx, setLister: appslisters.NewStatefulSetLister(setIdx),
		recorder: recorder, ctx: klog.NewContext(context.Background(), klog.Background())}
	store := consistency.NewNoopConsistencyStore()
	s.control = statefulset.NewDefaultStatefulSetControl(
		statefulset.NewStatefulPodControl(w.client, serialPodLister{corelisters.NewPodLister(podIdx), w.serial.gate},
			serialClaimLister{corelisters.NewPersistentVolumeClaimLister(pvcIdx), w.serial.gate}, s.recorder, store),
		statefulset.NewRealStatefulSetStatusUpdater(w.client, s.setLister, store),
		history.NewHistory(w.client, appslisters.NewControllerRevisionLister(revIdx), revIdx),
	)
	s.podControl = controller.RealPodControl{KubeClient: w.client, Recorder: s.recorder}
	return s, nil
}

// claimPods is getPodsForStatefulSet: the pods the set owns or may adopt, in the kit's list
// order, claimed (canAdopt nil: adoption is not re-checked).
func (s *syncer) claimPods(set *apps.StatefulSet, order []string,
	canAdopt func(context.Context) error) ([]*v1.Pod, error) {
	selector, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		return nil, err
	}
	candidates, err := controller.FilterPodsByOwner(s.podIdx, &set.ObjectMeta, "StatefulSet", true)
	if err != nil {
		return nil, err
	}
	sortClaimCandidates(candidates, order)
	cm := controller.NewPodControllerRefManager(s.podControl, set, selector, setKind, canAdopt)
	return cm.ClaimPods(s.ctx, candidates, func(p *v1.Pod) bool { return isMember(set, p) })
}

func runSync(req request) response {
	return syncWith(req, fake.NewClientset(), syncSet)
}

// syncSet is StatefulSetController.sync and syncStatefulSet of v1.37.2 (v1.36.3).
func syncSet(req request, w *world, ns string, recorder *record.FakeRecorder, resp *response) (string, error) {
	s, err := newSyncer(w, ns, req.Gates, recorder)
	if err != nil {
		resp.OK, resp.Problem = false, err.Error()
		return "", nil
	}
	// StatefulSetController.sync
	set, err := s.setLister.StatefulSets(ns).Get(req.Name)
	if err != nil {
		return "get", err
	}
	if _, err := metav1.LabelSelectorAsSelector(set.Spec.Selector); err != nil {
		return "selector", err
	}
	canAdopt := controller.RecheckDeletionTimestamp(func(ctx context.Context) (metav1.Object, error) {
		fresh, err := w.client.AppsV1().StatefulSets(set.Namespace).Get(ctx, set.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		if fresh.UID != set.UID {
			return nil, fmt.Errorf("original StatefulSet %v/%v is gone: got uid %v, wanted %v", set.Namespace, set.Name, fresh.UID, set.UID)
		}
		return fresh, nil
	})
	// adoptOrphanRevisions
	revisions, err := s.control.ListRevisions(set)
	if err != nil {
		return "adopt-revisions", err
	}
	orphans := []*apps.ControllerRevision{}
	for _, r := range revisions {
		if metav1.GetControllerOf(r) == nil {
			orphans = append(orphans, r)
		}
	}
	if len(orphans) > 0 {
		if err := canAdopt(s.ctx); err != nil {
			return "adopt-revisions", fmt.Errorf("can't adopt ControllerRevisions: %v", err)
		}
		if err := s.control.AdoptOrphanRevisions(set, orphans); err != nil {
			return "adopt-revisions", err
		}
	}
	// getPodsForStatefulSet
	pods, err := s.claimPods(set, req.PodOrder, canAdopt)
	if err != nil {
		return "claim-pods", err
	}
	// syncStatefulSet
	status, err := s.control.UpdateStatefulSet(s.ctx, set, pods, w.now)
	if err != nil {
		return "update", err
	}
	resp.Status = status
	if set.Spec.MinReadySeconds > 0 && status != nil && status.ReadyReplicas != status.AvailableReplicas {
		next := time.Duration(set.Spec.MinReadySeconds) * time.Second
		if d := controller.FindMinNextPodAvailabilityCheck(pods, set.Spec.MinReadySeconds, w.now, clocktesting.NewFakePassiveClock(w.now)); d != nil {
			next = *d
		}
		s := next.Seconds()
		resp.RequeueAfter = &s
	}
	return "", nil
}

func main() {
	// The controller logs through klog; keep stdout for the protocol.
	klog.SetOutput(os.Stderr)
	klog.LogToStderr(false)
	serveLines(runSync, gates, map[string]func([]byte) interface{}{
		"time": func(line []byte) interface{} { return runTiming(line) }, // timing.go
	})
}

func gates() map[string]bool {
	out := map[string]bool{}
	for _, g := range []string{"MaxUnavailableStatefulSet", "StatefulSetRecreateStrategy", "StatefulSetSemanticRevisionComparison", "StaleControllerConsistencyStatefulSet"} {
		func() {
			defer func() { _ = recover() }()
			out[g] = utilfeature.DefaultFeatureGate.Enabled(featureName(g))
		}()
	}
	return out
}

func featureName(g string) featuregate.Feature { return featuregate.Feature(g) }
