// Command stsedu-oracle (v1.16) runs the StatefulSet controller code of k8s.io/kubernetes
// v1.16.15 over client-go's fake clientset, one sync at a time, for stsedu's differential
// tests (tests/controller/test_upstream.py, profile v1.16). It speaks the protocol of
// tests/upstream/protocol.go, which the build copies beside this file (the same reactor,
// loading and answers); this file is v1.16's sync: its API has no contexts, no
// minReadySeconds, no feature gates of stsedu's, no pod-controller index, and
// UpdateStatefulSet returns only an error, so "status" is null and the written status is
// read back from the fake clientset.
package main

import (
	"fmt"
	"os"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/fake"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/history"
	"k8s.io/kubernetes/pkg/controller/statefulset"
)

func runSync(req request) response {
	return syncWith(req, fake.NewSimpleClientset(), syncSet)
}

// syncSet is StatefulSetController.sync and syncStatefulSet of v1.16.15.
func syncSet(req request, w *world, ns string, recorder *record.FakeRecorder, resp *response) (string, error) {
	// The informer caches of this sync: filled once, before it starts.
	byNamespace := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	podLister := corelisters.NewPodLister(w.indexer("Pod", ns, byNamespace))
	setLister := appslisters.NewStatefulSetLister(w.indexer("StatefulSet", ns, byNamespace))
	pvcLister := corelisters.NewPersistentVolumeClaimLister(w.indexer("PersistentVolumeClaim", ns, byNamespace))
	revLister := appslisters.NewControllerRevisionLister(w.indexer("ControllerRevision", ns, byNamespace))

	control := statefulset.NewDefaultStatefulSetControl(
		statefulset.NewRealStatefulPodControl(w.client, setLister, podLister, pvcLister, recorder),
		statefulset.NewRealStatefulSetStatusUpdater(w.client, setLister),
		history.NewHistory(w.client, revLister),
		recorder,
	)
	podControl := controller.RealPodControl{KubeClient: w.client, Recorder: recorder}

	// StatefulSetController.sync
	set, err := setLister.StatefulSets(ns).Get(req.Name)
	if err != nil {
		return "get", err
	}
	selector, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		return "selector", err
	}
	canAdopt := controller.RecheckDeletionTimestamp(func() (metav1.Object, error) {
		fresh, err := w.client.AppsV1().StatefulSets(set.Namespace).Get(set.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		if fresh.UID != set.UID {
			return nil, fmt.Errorf("original StatefulSet %v/%v is gone: got uid %v, wanted %v", set.Namespace, set.Name, fresh.UID, set.UID)
		}
		return fresh, nil
	})
	// adoptOrphanRevisions (v1.16: a fresh read of the set and a uid check, no deletion check)
	revisions, err := control.ListRevisions(set)
	if err != nil {
		return "adopt-revisions", err
	}
	hasOrphans := false
	for _, r := range revisions {
		if metav1.GetControllerOf(r) == nil {
			hasOrphans = true
		}
	}
	if hasOrphans {
		fresh, err := w.client.AppsV1().StatefulSets(set.Namespace).Get(set.Name, metav1.GetOptions{})
		if err != nil {
			return "adopt-revisions", err
		}
		if fresh.UID != set.UID {
			return "adopt-revisions", fmt.Errorf("original StatefulSet %v/%v is gone: got uid %v, wanted %v", set.Namespace, set.Name, fresh.UID, set.UID)
		}
		if err := control.AdoptOrphanRevisions(set, revisions); err != nil {
			return "adopt-revisions", err
		}
	}
	// getPodsForStatefulSet (v1.16: every pod of the namespace is a candidate)
	candidates, err := podLister.Pods(set.Namespace).List(labels.Everything())
	if err != nil {
		return "claim-pods", err
	}
	sortClaimCandidates(candidates, req.PodOrder)
	cm := controller.NewPodControllerRefManager(podControl, set, selector, setKind, canAdopt)
	pods, err := cm.ClaimPods(candidates, func(p *v1.Pod) bool { return isMember(set, p) })
	if err != nil {
		return "claim-pods", err
	}
	// syncStatefulSet (v1.16: no status returned, no minReadySeconds, no requeue)
	if err := control.UpdateStatefulSet(set.DeepCopy(), pods); err != nil {
		return "update", err
	}
	return "", nil
}

func main() {
	// The controller logs through klog; keep stdout for the protocol.
	klog.SetOutput(os.Stderr)
	serveLines(runSync, gates, nil)
}

func gates() map[string]bool { return map[string]bool{} }
