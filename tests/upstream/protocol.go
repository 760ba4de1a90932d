// The protocol of stsedu-oracle, shared by every release's program: tests/upstream/main.go
// (k8s.io/kubernetes v1.37.2, and v1.36.3 with v136/go.mod) and tests/upstream/v116/main.go
// (v1.16.15). tests/upstream_oracle.py copies this file beside the release's main.go into
// one build folder, so it is compiled against each release's API; everything here uses only
// what is the same in all of them: the requests and answers, the fake API server's reactor,
// loading and dumping objects, the informer caches, the event buffer and the line loop.
//
// Protocol: one JSON object per line on stdin, one JSON object per line on stdout.
//
//	{"op": "hello"}
//	  -> {"ok": true, "kubernetes": "v1.37.2", "gates": {...}}
//	{"op": "sync", "name": "web", "namespace": "default", "now": 12.5,
//	 "objects": {"StatefulSet": {...}, "Pod": {...}, "PersistentVolumeClaim": {...},
//	             "ControllerRevision": {...}},
//	 "faults": [{"verb": "create", "kind": "Pod", "after": 0, "count": 1, "reason": "InternalError"}],
//	 "gates": {"MaxUnavailableStatefulSet": true}}
//	  -> {"ok": true, "writes": [...], "status": {...} | null, "written": bool,
//	      "error": "..." | null, "requeue_after": seconds | null, "objects": {...}}
//
// "objects" are the cluster's objects as stsedu's Cluster.dump() gives them (API shapes,
// with times as seconds on stsedu's clock). The oracle loads them into a fresh fake
// clientset, fills the listers' indexers from it (the informer cache a sync reads), and
// runs what StatefulSetController.sync does: adopt orphan revisions, claim pods
// (controller.NewPodControllerRefManager), then UpdateStatefulSet with the same now.
// The writes are the fake clientset's create/update/patch/delete requests, in the order
// they reached it, failed ones included. Times on stsedu's clock t map to epoch+t.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	appsinternal "k8s.io/kubernetes/pkg/apis/apps"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"

	// The API server's defaults and status validation for apps/v1, as kube-apiserver has them.
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

var setKind = apps.SchemeGroupVersion.WithKind("StatefulSet")

func at(seconds float64) time.Time {
	return epoch.Add(time.Duration(math.Round(seconds * 1e9)))
}

func seconds(t time.Time) float64 { return t.Sub(epoch).Seconds() }

// ---------------------------------------------------------------- requests

type fault struct {
	Verb   string `json:"verb"`
	Kind   string `json:"kind"`
	After  int    `json:"after"`
	Count  int    `json:"count"`
	Reason string `json:"reason"`
}

type request struct {
	Op        string                                `json:"op"`
	Name      string                                `json:"name"`
	Namespace string                                `json:"namespace"`
	Now       float64                               `json:"now"`
	Objects   map[string]map[string]json.RawMessage `json:"objects"`
	Faults    []fault                               `json:"faults"`
	Gates     map[string]bool                       `json:"gates"`
	// Conflicts turns on the API server's optimistic concurrency: an update whose
	// resourceVersion is stale fails with Conflict. On in the differential suite unless
	// STSEDU_UPSTREAM_CONFLICTS=0 (docs/upstream-oracle.md, "Resource-version conflicts").
	Conflicts bool `json:"conflicts"`
	// PodOrder is the order in which the kit lists the namespace's pods. The informer's
	// list order is random upstream (a Go map); the sync takes the kit's, so that of two
	// pods of one ordinal (web-01, web-1) the same one takes the slot on both sides.
	PodOrder []string `json:"pod_order"`
}

type write struct {
	Verb     string            `json:"verb"`
	Kind     string            `json:"kind"`
	Name     string            `json:"name"`
	Sub      string            `json:"subresource,omitempty"`
	Revision string            `json:"revision,omitempty"`
	Number   int64             `json:"number,omitempty"`
	Owners   []string          `json:"owners,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Error    string            `json:"error,omitempty"`
	Reason   string            `json:"reason,omitempty"`
	// Release: a patch that removes an owner reference (ReleasePod), not one that adds it.
	Release bool `json:"release,omitempty"`
}

// event is one event the controller recorded (a buffered record.FakeRecorder).
type event struct {
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

var kinds = map[string]string{
	"pods":                   "Pod",
	"persistentvolumeclaims": "PersistentVolumeClaim",
	"controllerrevisions":    "ControllerRevision",
	"statefulsets":           "StatefulSet",
}

// ---------------------------------------------------------------- loading stsedu's objects

var timeKeys = map[string]bool{"creationTimestamp": true, "deletionTimestamp": true,
	"lastTransitionTime": true, "lastProbeTime": true, "startTime": true, "lastUpdateTime": true}

// fixTimes turns stsedu's clock seconds into RFC 3339 times (epoch + seconds).
func fixTimes(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		for k, e := range x {
			if f, ok := e.(float64); ok && timeKeys[k] {
				x[k] = at(f).Format(time.RFC3339Nano)
			} else {
				x[k] = fixTimes(e)
			}
		}
	case []interface{}:
		for i := range x {
			x[i] = fixTimes(x[i])
		}
	}
	return v
}

func decode(raw json.RawMessage, into interface{}) error {
	var generic interface{}
	if err := json.Unmarshal(raw, &generic); err != nil {
		return err
	}
	// Re-marshalling writes whole floats as integers (30.0 -> 30), as Go's int fields need.
	clean, err := json.Marshal(fixTimes(generic))
	if err != nil {
		return err
	}
	return json.Unmarshal(clean, into)
}

// ---------------------------------------------------------------- the world of one sync

type world struct {
	mu     sync.Mutex
	client *fake.Clientset
	now    time.Time
	faults []*fault
	writes []write
	uid    int
	rv     int
	// conflicts: see request.Conflicts
	conflicts bool
	// caches are the informer caches of the sync (kind -> indexer, filled by indexer) and the
	// namespace they hold
	caches  map[string]cache.Indexer
	cacheNS string
	// serial admits a Parallel set's pod goroutines one at a time (serial.go); nil in the
	// timing mode
	serial *serializer
}

func (w *world) tracker() k8stesting.ObjectTracker { return w.client.Tracker() }

// apiError is an injected failure in the words stsedu's APIError uses: the API server's own for
// NotFound, AlreadyExists and Conflict, "<reason>: simulated failure to <verb> <kind> '<name>'"
// for the others (so that event messages, which quote the error, compare as text).
func apiError(reason string, gr schema.GroupResource, verb, kind, name string) error {
	switch metav1.StatusReason(reason) {
	case metav1.StatusReasonNotFound:
		return apierrors.NewNotFound(gr, name)
	case metav1.StatusReasonAlreadyExists:
		return apierrors.NewAlreadyExists(gr, name)
	case metav1.StatusReasonConflict:
		return apierrors.NewConflict(gr, name, fmt.Errorf(conflictText))
	}
	codes := map[string]int32{"InternalError": 500, "Invalid": 422, "Forbidden": 403,
		"ServerTimeout": 504, "TooManyRequests": 429, "BadRequest": 400}
	code, ok := codes[reason]
	if !ok {
		code = 500
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: code,
		Reason:  metav1.StatusReason(reason),
		Message: fmt.Sprintf("%s: simulated failure to %s %s '%s'", reason, verb, kind, name)}}
}

const conflictText = "the object has been modified; please apply your changes to the latest version and try again"

// faultFor consumes a matching injected fault, as stsedu's Cluster.inject_error counts them.
func (w *world) faultFor(verb, kind string) string {
	if verb == "patch" {
		verb = "update"
	}
	var hit *fault
	for _, f := range w.faults {
		if f.Verb == verb && f.Kind == kind && f.Count > 0 {
			if f.After > 0 {
				f.After--
			} else if hit == nil {
				hit = f
			}
		}
	}
	if hit == nil {
		return ""
	}
	hit.Count--
	return hit.Reason
}

func (w *world) nextRV() string {
	w.rv++
	return fmt.Sprintf("%d", 1000000+w.rv)
}

func (w *world) nextUID() types.UID {
	w.uid++
	return types.UID(fmt.Sprintf("oracle-%08d", w.uid))
}

func ownerNames(refs []metav1.OwnerReference) []string {
	out := []string{}
	for _, r := range refs {
		s := r.Kind + "/" + r.Name
		if r.Controller != nil && *r.Controller {
			s += "(controller)"
		}
		out = append(out, s)
	}
	return out
}

func describe(obj runtime.Object, wr *write) {
	switch o := obj.(type) {
	case *v1.Pod:
		wr.Name = o.Name
		wr.Revision = o.Labels[apps.StatefulSetRevisionLabel]
		wr.Labels = o.Labels
		wr.Owners = ownerNames(o.OwnerReferences)
	case *v1.PersistentVolumeClaim:
		wr.Name = o.Name
		wr.Owners = ownerNames(o.OwnerReferences)
	case *apps.ControllerRevision:
		wr.Name = o.Name
		wr.Number = o.Revision
	case *apps.StatefulSet:
		wr.Name = o.Name
	}
}

// react is the first reactor of every request: it records writes, injects faults and plays
// the API server's part where the fake tracker does not (uids, creation times, Pending phase
// of new pods, graceful pod deletion, status validation).
func (w *world) react(action k8stesting.Action) (bool, runtime.Object, error) {
	w.serial.gateHolding(&w.client.Fake) // Invokes holds the clientset's lock
	w.mu.Lock()
	defer w.mu.Unlock()
	verb := action.GetVerb()
	if verb != "create" && verb != "update" && verb != "patch" && verb != "delete" {
		return false, nil, nil
	}
	res := action.GetResource()
	kind := kinds[res.Resource]
	wr := write{Verb: verb, Kind: kind, Sub: action.GetSubresource()}
	switch verb {
	case "create":
		describe(action.(k8stesting.CreateAction).GetObject(), &wr)
	case "update":
		describe(action.(k8stesting.UpdateAction).GetObject(), &wr)
	case "patch":
		wr.Name = action.(k8stesting.PatchAction).GetName()
		wr.Release = strings.Contains(string(action.(k8stesting.PatchAction).GetPatch()), `"$patch":"delete"`)
	case "delete":
		wr.Name = action.(k8stesting.DeleteAction).GetName()
	}
	if verb != "create" && wr.Name == "" {
		// client-go's REST client refuses a request for an object without a name before sending
		// it (rest.Request.Name): no request, so no write and no fault; the fake clientset would
		// answer NotFound. UpdateControllerRevision's retry after a Conflict sends such an update.
		return true, newObject(kind), fmt.Errorf("resource name may not be empty")
	}
	gr := res.GroupResource()
	if reason := w.faultFor(verb, kind); reason != "" {
		faultVerb := verb
		if faultVerb == "patch" {
			faultVerb = "update"
		}
		err := apiError(reason, gr, faultVerb, kind, wr.Name)
		wr.Error, wr.Reason = err.Error(), reason
		w.writes = append(w.writes, wr)
		if w.conflicts && apierrors.IsConflict(err) {
			w.catchUp()
		}
		return true, newObject(kind), err
	}
	handled, obj, err := w.serve(action, kind, gr, wr.Name)
	if err != nil {
		wr.Error, wr.Reason = err.Error(), string(apierrors.ReasonForError(err))
		if handled && obj == nil {
			obj = newObject(kind)
		}
	}
	if w.conflicts && apierrors.IsConflict(err) {
		w.catchUp()
	}
	if obj != nil && verb == "patch" {
		describe(obj, &wr)
	}
	w.writes = append(w.writes, wr)
	return handled, obj, err
}

func (w *world) serve(action k8stesting.Action, kind string, gr schema.GroupResource, name string) (bool, runtime.Object, error) {
	t := w.tracker()
	res := action.GetResource()
	ns := action.GetNamespace()
	switch action.GetVerb() {
	case "create":
		obj := action.(k8stesting.CreateAction).GetObject().DeepCopyObject()
		m, _ := meta.Accessor(obj)
		m.SetUID(w.nextUID())
		m.SetCreationTimestamp(metav1.NewTime(w.now.Truncate(time.Second)))
		m.SetResourceVersion(w.nextRV())
		if pod, ok := obj.(*v1.Pod); ok {
			pod.Status = v1.PodStatus{Phase: v1.PodPending}
		}
		if err := t.Create(res, obj, ns); err != nil {
			return true, nil, err
		}
		return true, obj, nil
	case "update":
		// As the API server: a stale resourceVersion is a conflict; uid, creation and
		// deletion times stay; an update of a pod (not its status) keeps its status; a
		// status update changes only the status.
		obj := action.(k8stesting.UpdateAction).GetObject().DeepCopyObject()
		m, _ := meta.Accessor(obj)
		stored, err := t.Get(res, ns, m.GetName())
		if err != nil {
			return true, nil, err
		}
		old, _ := meta.Accessor(stored)
		// The registry's update precondition: a uid in the body must be the stored object's.
		if uid := m.GetUID(); uid != "" && uid != old.GetUID() {
			return true, nil, apierrors.NewConflict(gr, m.GetName(), fmt.Errorf(
				"Precondition failed: UID in precondition: %v, UID in object meta: %v", uid, old.GetUID()))
		}
		if rv := m.GetResourceVersion(); w.conflicts && rv != "" && rv != old.GetResourceVersion() {
			return true, nil, apierrors.NewConflict(gr, m.GetName(), fmt.Errorf(conflictText))
		}
		if kind == "StatefulSet" && action.GetSubresource() == "status" {
			set := obj.(*apps.StatefulSet)
			if msg := validateStatus(set, stored.(*apps.StatefulSet)); msg != "" {
				return true, nil, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure,
					Code: 422, Reason: metav1.StatusReasonInvalid, Message: msg}}
			}
			next := stored.DeepCopyObject().(*apps.StatefulSet)
			next.Status = set.Status
			obj, m = next, next
		} else {
			m.SetUID(old.GetUID())
			m.SetCreationTimestamp(old.GetCreationTimestamp())
			m.SetDeletionTimestamp(old.GetDeletionTimestamp())
			m.SetDeletionGracePeriodSeconds(old.GetDeletionGracePeriodSeconds())
			if pod, ok := obj.(*v1.Pod); ok {
				pod.Status = stored.(*v1.Pod).Status
			}
		}
		m.SetResourceVersion(w.nextRV())
		if err := t.Update(res, obj, ns); err != nil {
			return true, nil, err
		}
		return true, obj, nil
	case "patch":
		handled, obj, err := k8stesting.ObjectReaction(t)(action)
		if err != nil || obj == nil {
			return handled, obj, err
		}
		m, _ := meta.Accessor(obj)
		m.SetResourceVersion(w.nextRV())
		return true, obj, t.Update(res, obj, ns)
	case "delete":
		if kind != "Pod" {
			return false, nil, nil
		}
		obj, err := t.Get(res, ns, name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*v1.Pod).DeepCopy()
		if pod.DeletionTimestamp != nil {
			return true, pod, nil
		}
		grace := int64(30)
		if pod.Spec.TerminationGracePeriodSeconds != nil {
			grace = *pod.Spec.TerminationGracePeriodSeconds
		}
		if grace <= 0 {
			return true, nil, t.Delete(res, ns, name)
		}
		ts := metav1.NewTime(w.now)
		pod.DeletionTimestamp = &ts
		pod.DeletionGracePeriodSeconds = &grace
		pod.ResourceVersion = w.nextRV()
		return true, pod, t.Update(res, pod, ns)
	}
	return false, nil, nil
}

// ---------------------------------------------------------------- one sync

var podNameRE = regexp.MustCompile("(.*)-([0-9]+)$")

func isMember(set *apps.StatefulSet, pod *v1.Pod) bool {
	m := podNameRE.FindStringSubmatch(pod.Name)
	return len(m) == 3 && m[1] == set.Name
}

type response struct {
	OK           bool                              `json:"ok"`
	Error        *string                           `json:"error"`
	Writes       []write                           `json:"writes"`
	Status       *apps.StatefulSetStatus           `json:"status"`
	Written      *apps.StatefulSetStatus           `json:"written"`
	RequeueAfter *float64                          `json:"requeue_after"`
	Events       []event                           `json:"events"`
	Objects      map[string]map[string]interface{} `json:"objects,omitempty"`
	Stage        string                            `json:"stage,omitempty"`
	Kubernetes   string                            `json:"kubernetes,omitempty"`
	Gates        map[string]bool                   `json:"gates,omitempty"`
	Problem      string                            `json:"problem,omitempty"`
	// Unordered: a goroutine of a batch went on before an earlier one had returned (serial.go)
	Unordered bool `json:"unordered,omitempty"`
}

var gvrs = map[string]schema.GroupVersionResource{
	"StatefulSet":           apps.SchemeGroupVersion.WithResource("statefulsets"),
	"Pod":                   v1.SchemeGroupVersion.WithResource("pods"),
	"PersistentVolumeClaim": v1.SchemeGroupVersion.WithResource("persistentvolumeclaims"),
	"ControllerRevision":    apps.SchemeGroupVersion.WithResource("controllerrevisions"),
}

// newObject is a new, empty object of kind. It is also what a typed client returns beside an
// error: client-go's clients (every release) decode the answer into a new, empty object made
// before the request, so a failed request returns that empty object, not nil. v1.16's fake
// clientset returns nil when a reactor does; given this, it returns the empty object too, as the
// real client does. UpdateControllerRevision's retry takes it as its copy (docs/upstream-oracle.md).
func newObject(kind string) runtime.Object {
	switch kind {
	case "StatefulSet":
		return &apps.StatefulSet{}
	case "Pod":
		return &v1.Pod{}
	case "PersistentVolumeClaim":
		return &v1.PersistentVolumeClaim{}
	case "ControllerRevision":
		return &apps.ControllerRevision{}
	}
	return nil
}

func (w *world) load(objects map[string]map[string]json.RawMessage) error {
	for _, kind := range []string{"StatefulSet", "Pod", "PersistentVolumeClaim", "ControllerRevision"} {
		keys := make([]string, 0, len(objects[kind]))
		for k := range objects[kind] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			obj := newObject(kind)
			if err := decode(objects[kind][k], obj); err != nil {
				return fmt.Errorf("%s %s: %w", kind, k, err)
			}
			m, _ := meta.Accessor(obj)
			if err := w.tracker().Add(obj); err != nil {
				return fmt.Errorf("%s %s: %w", kind, m.GetName(), err)
			}
		}
	}
	return nil
}

func (w *world) list(kind, ns string) []runtime.Object {
	obj, err := w.tracker().List(gvrs[kind], gvrs[kind].GroupVersion().WithKind(kind), ns)
	if err != nil {
		return nil
	}
	items, _ := meta.ExtractList(obj)
	return items
}

func (w *world) indexer(kind, ns string, indexers cache.Indexers) cache.Indexer {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, indexers)
	for _, o := range w.list(kind, ns) {
		_ = idx.Add(o)
	}
	if w.caches == nil {
		w.caches = map[string]cache.Indexer{}
	}
	w.caches[kind], w.cacheNS = idx, ns
	return idx
}

// catchUp brings every informer cache up to the fake API server's objects, as the watch
// events of the sync's own writes would have arrived by the time a retry of
// retry.RetryOnConflict reads the cache again (its first backoff is 10 ms). With resource-
// version checks on, the reactor calls it whenever it answers Conflict.
func (w *world) catchUp() {
	for kind, idx := range w.caches {
		items := w.list(kind, w.cacheNS)
		list := make([]interface{}, len(items))
		for i, o := range items {
			list[i] = o
		}
		_ = idx.Replace(list, "")
	}
}

func (w *world) dump(ns string) map[string]map[string]interface{} {
	out := map[string]map[string]interface{}{}
	for kind := range gvrs {
		out[kind] = map[string]interface{}{}
		for _, o := range w.list(kind, ns) {
			m, _ := meta.Accessor(o)
			out[kind][m.GetNamespace()+"/"+m.GetName()] = o
		}
	}
	return out
}

// newWorld is the fake API server of one request: the objects loaded, the injected faults
// armed and the reactor in front of the clientset.
func newWorld(client *fake.Clientset, req request) (*world, error) {
	w := &world{client: client, now: at(req.Now), conflicts: req.Conflicts}
	if err := w.load(req.Objects); err != nil {
		return nil, fmt.Errorf("load: %v", err)
	}
	for i := range req.Faults {
		f := req.Faults[i]
		w.faults = append(w.faults, &f)
	}
	w.client.PrependReactor("*", "*", w.react)
	return w, nil
}

// syncWith answers a "sync" request: a fresh world over client, then the release's sync with a
// buffered event recorder (every event is kept, in order, and answered); a failure at a stage
// is the answer's error, a panic its problem.
func syncWith(req request, client *fake.Clientset,
	sync func(req request, w *world, ns string, recorder *record.FakeRecorder, resp *response) (string, error)) (resp response) {
	resp.OK = true
	resp.Writes = []write{}
	defer func() {
		if r := recover(); r != nil {
			resp.OK = false
			resp.Problem = fmt.Sprintf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	ns := req.Namespace
	if ns == "" {
		ns = "default"
	}
	w, err := newWorld(client, req)
	if err != nil {
		resp.OK, resp.Problem = false, err.Error()
		return
	}
	w.serial = newSerializer()
	recorder := record.NewFakeRecorder(100000)
	defer w.answer(&resp, ns, recorder)
	serially(func() {
		if stage, err := sync(req, w, ns, recorder, &resp); err != nil {
			msg := err.Error()
			resp.Error, resp.Stage = &msg, stage
		}
	})
	return resp
}

// sortClaimCandidates puts the pods to claim in the kit's list order (order: pod names; the
// informer's is random upstream), pods it did not list last, by name.
func sortClaimCandidates(candidates []*v1.Pod, order []string) {
	rank := make(map[string]int, len(order))
	for i, n := range order {
		rank[n] = i + 1
	}
	sort.Slice(candidates, func(i, j int) bool {
		ri, rj := rank[candidates[i].Name], rank[candidates[j].Name]
		if ri != rj && ri != 0 && rj != 0 {
			return ri < rj
		}
		if (ri == 0) != (rj == 0) {
			return rj == 0
		}
		return candidates[i].Name < candidates[j].Name
	})
}

// answer completes resp after a sync: every write in order, the status written, the objects
// after it and every event the recorder holds.
func (w *world) answer(resp *response, ns string, recorder *record.FakeRecorder) {
	w.mu.Lock()
	resp.Writes = append(resp.Writes, w.writes...)
	w.mu.Unlock()
	if w.serial != nil {
		w.serial.mu.Lock()
		resp.Unordered = w.serial.unordered
		w.serial.mu.Unlock()
	}
	for _, wr := range resp.Writes {
		if wr.Kind == "StatefulSet" && wr.Sub == "status" && wr.Error == "" {
			obj, err := w.tracker().Get(gvrs["StatefulSet"], ns, wr.Name)
			if err == nil {
				st := obj.(*apps.StatefulSet).Status
				resp.Written = &st
			}
		}
	}
	resp.Objects = w.dump(ns)
	resp.Events = []event{}
	for {
		select {
		case e := <-recorder.Events:
			// FakeRecorder writes "<type> <reason> <message>"
			parts := strings.SplitN(e, " ", 3)
			for len(parts) < 3 {
				parts = append(parts, "")
			}
			resp.Events = append(resp.Events, event{Type: parts[0], Reason: parts[1], Message: parts[2]})
			continue
		default:
		}
		break
	}
}

// serveLines answers one JSON request per line of stdin on stdout: "hello" and "sync" for
// every release, and the release's own extra operations.
func serveLines(runSync func(request) response, gates func() map[string]bool,
	extra map[string]func(line []byte) interface{}) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<30)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		var req request
		var resp interface{}
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			resp = response{Problem: "bad request: " + err.Error()}
		} else if op, ok := extra[req.Op]; ok {
			resp = op([]byte(line))
		} else {
			switch req.Op {
			case "hello":
				resp = response{OK: true, Kubernetes: kubernetesVersion(), Gates: gates()}
			case "sync":
				resp = runSync(req)
			default:
				resp = response{Problem: "unknown op " + req.Op}
			}
		}
		_ = enc.Encode(resp)
		_ = out.Flush()
	}
}

func kubernetesVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/kubernetes" {
				return d.Version
			}
		}
	}
	return "unknown"
}

// validateStatus runs the API server's ValidateStatefulSetStatusUpdate on a status write.
func validateStatus(set, old *apps.StatefulSet) string {
	var in, was appsinternal.StatefulSet
	if err := legacyscheme.Scheme.Convert(set, &in, nil); err != nil {
		return ""
	}
	if err := legacyscheme.Scheme.Convert(old, &was, nil); err != nil {
		return ""
	}
	errs := appsvalidation.ValidateStatefulSetStatusUpdate(&in, &was)
	if len(errs) == 0 {
		return ""
	}
	return errs.ToAggregate().Error()
}
