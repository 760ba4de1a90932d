"""Controller history: hashing and naming, reuse and rollback, collisions, truncation,
and the kubectl views of it (rollout undo, rollout history).

Upstream: ``pkg/controller/history/controller_history.go``, ``getStatefulSetRevisions``
and ``truncateHistory`` in ``stateful_set_control.go``, kubectl's
``StatefulSetRollbacker`` and ``StatefulSetHistoryViewer`` (polymorphichelpers).
"""

import dataclasses

import pytest

import stsedu
from helpers import acts, web
from rollout_helpers import kinds, move_all, numbers, pod_revisions, ready_set, revs
from stsedu.api.profiles import CURRENT
from stsedu.api.objects import HASH_LABEL, ControllerRevision, OwnerReference
from stsedu.controller.history import (equal_revision, fnv1_32, history_to_truncate, revision_hash,
                                       revision_name, safe_encode)
from stsedu.controller.stateful_set_utils import get_patch
from stsedu.views.tables import rollout_history_text


# ------------------------------------------------------------- hash and name


@pytest.mark.parametrize("text,value", [("", 0x811C9DC5), ("a", 0x050C5D7E), ("ab", 0x70772D38),
                                        ("abc", 0x439C2F4B), ("0123456789abcdef", 0x9E1B6F41),
                                        ("The quick brown fox jumps over the lazy dog!", 0x7482B10B),
                                        ('{"spec":{"template":{"$patch":"replace"}}}', 0x0A51F018)])
def test_fnv1_32_matches_go_golden_values(text, value):
    """HashControllerRevision uses hash/fnv.New32 (FNV-1, not FNV-1a): Go's golden values, and Go's
    sums of inputs of 16, 44 and 42 bytes (whole eight-byte steps, and steps with bytes left over)."""
    assert fnv1_32(text.encode()) == value


def test_safe_encode_maps_digits_onto_the_vowel_free_alphabet():
    """rand.SafeEncodeString: byte mod 27 into "bcdfghjklmnpqrstvwxz2456789"."""
    assert safe_encode("0123456789") == "456789bcdf"


def test_revision_hash_is_data_then_collision_count():
    """HashControllerRevision: FNV-1 over the data, then the decimal collision count."""
    data = get_patch({"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": []}})
    for count in (0, 1, 12):
        expected = safe_encode(str(fnv1_32((data + str(count)).encode())))
        assert revision_hash(data, count) == expected
        assert set(expected) <= set("456789bcdf")
    assert revision_hash(data, 0) != revision_hash(data, 1)


def test_revision_name_cuts_long_set_names():
    """ControllerRevisionName: the set name is cut to 223 characters before -<hash>."""
    assert revision_name("web", "5c7") == "web-5c7"
    assert revision_name("x" * 300, "5c7") == "x" * 223 + "-5c7"


def test_revision_data_holds_only_the_template_as_a_replace_patch():
    """getPatch: data is {"spec": {"template": {..., "$patch": "replace"}}}, keys sorted."""
    assert get_patch({"spec": {"b": 1, "a": 2}}) == \
        '{"spec":{"template":{"$patch":"replace","spec":{"a":2,"b":1}}}}'


def rev(name, data="{}", label=None):
    labels = {} if label is None else {HASH_LABEL: label}
    return ControllerRevision(name=name, labels=labels, data=data)


@pytest.mark.parametrize("la,lb,same_data,equal", [
    ("123", "124", True, False),          # both parse as int32 and differ: not equal
    ("123", "123", True, True),
    ("5c7", "5c8", True, True),           # letters: labels ignored, data decides
    ("9999999999", "4444444444", True, True),   # beyond int32: ignored, like strconv.ParseInt(s,10,32)
    ("123", "123", False, False),
    (None, "123", True, True),
])
def test_equal_revision(la, lb, same_data, equal):
    """EqualRevision: hash labels must agree when both parse as 32-bit integers, then the data."""
    a = rev("a", '{"x":1}', la)
    b = rev("b", '{"x":1}' if same_data else '{"x":2}', lb)
    assert equal_revision(a, b) is equal


# ------------------------------------------------------- reuse and rollback


def test_get_set_revisions_table(manual_cluster):
    """getStatefulSetRevisions (upstream's table): first sync -> one revision, current = update,
    number 1; new template -> number 2, current stays; same set again -> unchanged; going back to
    an older template with newer ones present renumbers that old revision (max + 1), same name."""
    c = manual_cluster
    c.apply(web(1))
    r = c.sync("web")
    [(r1, n1)] = numbers(c)
    assert n1 == 1 and revs(r) == (r1, r1) and kinds(r, "create-revision") == [("new-template", r1)]
    c.set_image("web", "nginx:2")
    r = c.sync("web")
    r2 = r.status.update_revision
    assert numbers(c) == [(r1, 1), (r2, 2)] and revs(r) == (r1, r2)
    r = c.sync("web")
    assert numbers(c) == [(r1, 1), (r2, 2)] and not kinds(r, "create-revision")
    c.set_image("web", "nginx:3")
    r = c.sync("web")
    r3 = r.status.update_revision
    assert numbers(c) == [(r1, 1), (r2, 2), (r3, 3)]
    c.set_image("web", "nginx:2")
    r = c.sync("web")
    assert kinds(r, "update-revision") == [("rollback", r2)]
    assert not kinds(r, "create-revision")
    assert numbers(c) == [(r1, 1), (r3, 3), (r2, 4)] and r.status.update_revision == r2


def test_reapplying_the_same_template_reuses_the_newest_revision(manual_cluster):
    """getStatefulSetRevisions: a template equal to the newest revision makes nothing; so does an
    edit that is undone before the controller saw it."""
    c = manual_cluster
    ready_set(c, 2)
    before = numbers(c)
    c.apply(web(2))
    c.set_image("web", "nginx:9")
    c.set_image("web", "nginx:1")
    r = c.sync("web")
    assert numbers(c) == before and acts(r) == []
    assert not [d for d in r.decisions if d.step == "revisions"]


def test_rollback_renumbers_and_the_trace_says_so(manual_cluster):
    """Rollback reuses the old ControllerRevision (same name, so pods get their old label back)
    with a bumped number; the trace has RevisionCreated and RevisionReused events."""
    c = manual_cluster
    old = ready_set(c, 3)
    c.set_image("web", "nginx:2")
    for _ in range(16):
        c.sync("web")
        move_all(c)
    new = c.statefulset("web").status.current_revision
    assert new != old and numbers(c) == [(old, 1), (new, 2)]
    c.set_image("web", "nginx:1")
    for _ in range(16):
        r = c.sync("web")
        move_all(c)
    assert revs(r) == (old, old) and set(pod_revisions(c).values()) == {old}
    assert numbers(c) == [(new, 2), (old, 3)]
    events = c.trace.events()
    created = events[events.reason == "RevisionCreated"].object.tolist()
    reused = events[events.reason == "RevisionReused"]
    assert created == [f"controllerrevision/{old}", f"controllerrevision/{new}"]
    assert reused.object.tolist() == [f"controllerrevision/{old}"]
    assert "renumbered 3" in reused.message.iloc[0]


# ------------------------------------------------------------- collisions


def test_name_collision_bumps_collision_count(manual_cluster):
    """CreateControllerRevision: a name already taken by different data counts a collision and
    retries with the next count (twice here); status.collisionCount keeps the count; the new
    revision keeps the hash label newRevision computed first; the foreign object is untouched."""
    c = manual_cluster
    old = ready_set(c, 2)
    c.set_image("web", "nginx:2")
    data = get_patch(c.statefulset("web").spec.template)
    names = [revision_name("web", revision_hash(data, n)) for n in range(3)]
    for name in names[:2]:   # not matching the selector, owned by nobody: never adopted
        c.store.create("ControllerRevision", ControllerRevision(
            name=name, labels={"app": "other"}, data='{"spec":{"template":{"$patch":"replace"}}}',
            revision=1))
    r = c.sync("web")
    assert kinds(r, "create-revision") == [("collision", names[0]), ("collision", names[1]),
                                           ("new-template", names[2])]
    assert r.status.collision_count == 2 == c.statefulset("web").status.collision_count
    assert r.status.update_revision == names[2] and numbers(c) == [(old, 1), (names[2], 2)]
    created = c.store.get("ControllerRevision", "default", names[2])
    assert created.labels[HASH_LABEL] == revision_hash(data, 0)
    for name in names[:2]:
        foreign = c.store.get("ControllerRevision", "default", name)
        assert foreign.owner_references == () and foreign.labels == {"app": "other"}
    for _ in range(12):
        r = c.sync("web")
        move_all(c)
    assert revs(r) == (names[2], names[2]) and set(pod_revisions(c).values()) == {names[2]}
    assert not any(d.action == "create-revision" and d.reason == "new-template"
                   for d in c.sync("web").decisions)
    assert len(c.store.list("ControllerRevision", "default")) == 4


def test_existing_revision_with_the_same_data_is_used_as_it_is(manual_cluster):
    """CreateControllerRevision: when the name exists with byte-equal data, that object is
    returned and used (no collision), even if it is not in the set's own list."""
    c = manual_cluster
    ready_set(c, 1)
    c.set_image("web", "nginx:2")
    data = get_patch(c.statefulset("web").spec.template)
    name = revision_name("web", revision_hash(data, 0))
    c.store.create("ControllerRevision", ControllerRevision(name=name, labels={"app": "other"},
                                                            data=data, revision=1))
    r = c.sync("web")
    assert kinds(r, "reuse-revision") == [("already-exists", name)] and not kinds(r, "create-revision")
    assert r.status.update_revision == name and r.status.collision_count == 0
    assert acts(r) == [("delete", "web-0", "update")]
    # the create was sent and answered AlreadyExists, as the controller expects
    assert [d.applied for d in r.decisions if d.action == "reuse-revision"] == [True]


def test_reused_revision_name_is_a_request_an_injected_error_fails():
    """CreateControllerRevision always POSTs first; only an AlreadyExists answer leads to reading
    and reusing the existing revision.  So an injected create error fails the sync even when the
    name is taken by equal data (upstream: getStatefulSetRevisions returns the error).  Minimised
    from the differential run of issue 27 (divergence 2): GC lag, set deleted and re-applied."""
    c = stsedu.Cluster(kubelet="manual", gc_delay=5)
    m = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"},
         "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "web"}},
                  "template": {"metadata": {"labels": {"app": "web"}},
                               "spec": {"containers": [{"name": "nginx", "image": "nginx:1"}]}}}}
    c.apply(m)
    c.sync("web")
    c.delete("web")  # background: the revision waits for the garbage collector (5 s)
    c.apply(m)
    c.inject_error("create", "ControllerRevision")
    r = c.sync("web")
    assert r.error is not None and "simulated failure to create ControllerRevision" in r.error
    assert [(d.action, d.applied) for d in r.decisions if d.step == "revisions"] == [("reuse-revision", False)]
    c.clear_errors()
    r = c.sync("web")
    assert r.error is None and kinds(r, "reuse-revision")


# -------------------------------------------------------------- truncation


def roll(c, image, sizes=None):
    """Set the image and drive the rollout to its promotion; return the SyncResults.

    If *sizes* is a list, the number of revisions after each sync is appended to it."""
    c.set_image("web", image)
    results = []
    for _ in range(30):
        r = c.sync("web")
        results.append(r)
        if sizes is not None:
            sizes.append(len(c.revisions("web")))
        move_all(c)
        if revs(r)[0] == revs(r)[1] and revs(r)[0] != revs(results[0])[0]:
            return results
    raise AssertionError("rollout did not finish")


def truncated(r):
    return [d.target for d in r.decisions if d.action == "delete-revision"]


def test_history_limit_2_truncates_one_sync_after_promotion(manual_cluster):
    """truncateHistory: non-live revisions beyond revisionHistoryLimit are deleted, oldest first,
    judged on the sync-start snapshot, so a promotion frees the old current revision only in the
    next sync; upstream's bound #revisions <= limit + 2 holds after every sync."""
    c = manual_cluster
    first = ready_set(c, 3, history=2)
    names = {1: first}
    for n, image in enumerate(["nginx:2", "nginx:3", "nginx:4", "nginx:5"], 2):
        sizes = []
        results = roll(c, image, sizes)
        names[n] = results[-1].status.current_revision
        assert all(not truncated(r) for r in results)        # not even in the promotion sync
        after = c.sync("web")                                 # the sync after the promotion
        expected = [names[n - 3]] if n >= 4 else []
        assert truncated(after) == expected
        kept = [num for num in sorted(names) if num > n - 3]
        assert [num for _, num in numbers(c)] == kept
        assert max(sizes) <= 2 + 2
        assert max(sizes) == min(n, 4)                        # 4 = limit + 2 once there is history
    events = c.trace.events()
    gone_objects = events[events.reason == "RevisionTruncated"].object.tolist()
    assert gone_objects == [f"controllerrevision/{names[1]}", f"controllerrevision/{names[2]}"]


def test_history_limit_2_bound_during_a_rollout(manual_cluster):
    """truncateHistory during a rollout: current and update are live, so 4 = limit + 2 exist."""
    c = manual_cluster
    ready_set(c, 2, history=2)
    for image in ("nginx:2", "nginx:3"):
        roll(c, image)
        c.sync("web")
    c.set_image("web", "nginx:4")
    c.sync("web")
    assert len(c.revisions("web")) == 4


def test_live_revisions_are_never_truncated(manual_cluster):
    """truncateHistory: the current revision, the update revision and every pod's revision are
    live, even with revisionHistoryLimit 0; a revision goes only when no pod uses it any more."""
    c = manual_cluster
    r1 = ready_set(c, 3, history=0, strategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}})
    c.set_image("web", "nginx:2")
    for _ in range(8):
        c.sync("web")
        move_all(c)
    r2 = c.statefulset("web").status.update_revision
    assert pod_revisions(c) == {"web-0": r1, "web-1": r1, "web-2": r2}
    c.set_image("web", "nginx:3")
    r = c.sync("web")
    r3 = r.status.update_revision
    assert revs(r) == (r1, r3) and truncated(r) == []            # r2 still runs web-2
    assert acts(r) == [("delete", "web-2", "update")]
    move_all(c)
    r = c.sync("web")                                              # web-2 gone, recreated at r3
    assert truncated(r) == [r2]
    assert [name for name, _ in numbers(c)] == [r1, r3]


def test_negative_limit_keeps_everything():
    """truncateHistory (newest): a negative limit disables truncation."""
    revisions = [rev(f"web-{i}") for i in range(5)]
    assert history_to_truncate(revisions, {"web-4"}, -1) == []
    assert [r.name for r in history_to_truncate(revisions, {"web-4"}, 1)] == ["web-0", "web-1", "web-2"]


# ------------------------------------------------------------ rollout undo


def test_rollout_undo_goes_back_and_reuses_the_old_revision(manual_cluster):
    """StatefulSetRollbacker + getStatefulSetRevisions: undo writes the previous revision's
    template back; the controller renumbers that revision instead of creating one."""
    c = manual_cluster
    old = ready_set(c, 2)
    roll(c, "nginx:2")
    new = c.statefulset("web").status.current_revision
    assert c.rollout_undo("web") == "statefulset.apps/web rolled back"
    assert c.statefulset("web").spec.template["spec"]["containers"][0]["image"] == "nginx:1"
    r = c.sync("web")
    assert kinds(r, "update-revision") == [("rollback", old)] and not kinds(r, "create-revision")
    assert numbers(c) == [(new, 2), (old, 3)]
    for _ in range(10):
        r = c.sync("web")
        move_all(c)
    assert revs(r) == (old, old) and {p.images() for p in c.pods("web")} == {("nginx:1",)}
    # undo again: back to the second highest number, which is now the nginx:2 revision
    assert c.rollout_undo("web") == "statefulset.apps/web rolled back"
    c.sync("web")
    assert numbers(c) == [(old, 3), (new, 4)]


def test_rollout_undo_to_a_revision_number(manual_cluster):
    """findHistory with --to-revision: the revision with that number; undoing to the template the
    set already has is skipped, quoting the number as given (0 when none was given)."""
    c = manual_cluster
    ready_set(c, 1)
    roll(c, "nginx:2")
    roll(c, "nginx:3")
    assert c.rollout_undo("web", to_revision=3) == (
        "statefulset.apps/web skipped rollback (current template already matches revision 3)")
    assert c.rollout_undo("web", to_revision=1) == "statefulset.apps/web rolled back"
    assert c.statefulset("web").spec.template["spec"]["containers"][0]["image"] == "nginx:1"
    # not synced yet: the template now equals the second highest revision, number 2
    c.set_image("web", "nginx:2")
    assert c.rollout_undo("web") == (
        "statefulset.apps/web skipped rollback (current template already matches revision 0)")


@pytest.mark.parametrize("to_revision,message", [
    (9, "unable to find specified revision 9 in history"),
    ("two", 'invalid argument "two" for "--to-revision" flag: strconv.ParseInt: parsing "two": '
            "invalid syntax"),
    (-1, "unable to find specified revision -1 in history"),
])
def test_rollout_undo_errors_change_nothing(manual_cluster, to_revision, message):
    """StatefulSetRollbacker errors, worded as kubectl prints them; the cluster is unchanged."""
    c = manual_cluster
    ready_set(c, 1)
    roll(c, "nginx:2")
    before = c.dump()
    with pytest.raises(stsedu.RolloutError) as e:
        c.rollout_undo("web", to_revision=to_revision)
    assert str(e.value) == message and isinstance(e.value, stsedu.ValidationError)
    assert c.dump() == before


def test_rollout_undo_needs_a_previous_revision(manual_cluster):
    """StatefulSetRollbacker: with one revision (or none yet) there is nothing to go back to."""
    c = manual_cluster
    c.apply(web(1))
    with pytest.raises(stsedu.RolloutError, match="^no last revision to roll back to$"):
        c.rollout_undo("web")
    c.sync("web")
    with pytest.raises(stsedu.RolloutError, match="^no last revision to roll back to$"):
        c.rollout_undo("web")
    with pytest.raises(KeyError):
        c.rollout_undo("nope")


# --------------------------------------------------------- rollout history


def test_rollout_history_text(manual_cluster):
    """StatefulSetHistoryViewer (printHistory): name line with kubectl's trailing space, then a
    tabwriter table of revision numbers and change causes (<none> when unset), blank last line."""
    c = manual_cluster
    c.apply(web(1))
    assert rollout_history_text(c, "web") == "statefulset.apps/web \nNo rollout history found.\n"
    c.sync("web")
    c.patch("web", {"metadata": {"annotations": {
        "kubernetes.io/change-cause": "kubectl set image sts/web nginx=nginx:2"}}})
    c.set_image("web", "nginx:2")
    c.sync("web")
    assert rollout_history_text(c, "web") == (
        "statefulset.apps/web \n"
        "REVISION  CHANGE-CAUSE\n"
        "1         <none>\n"
        "2         kubectl set image sts/web nginx=nginx:2\n"
        "\n")


def test_rollout_history_lists_only_revisions_the_set_controls(manual_cluster):
    """controlledHistoryV1: a revision matching the selector but controlled by another object is
    not in the set's history (kubectl), nor in the controller's list."""
    c = manual_cluster
    c.apply(web(1))
    c.sync("web")
    other = OwnerReference(kind="StatefulSet", name="other", uid="uid-of-other")
    c.store.create("ControllerRevision", ControllerRevision(
        name="other-123", labels={"app": "nginx"}, owner_references=(other,),
        data='{"spec":{"template":{"$patch":"replace"}}}', revision=7))
    c.sync("web")
    text = rollout_history_text(c, "web")
    assert text.splitlines()[2:] == ["1         <none>", ""]
    assert [n for _, n in numbers(c)] == [1]
    with pytest.raises(KeyError):
        rollout_history_text(c, "nope")


def test_set_image_errors_change_nothing(manual_cluster):
    """kubectl set image: an unknown container name is an error; nothing changes."""
    c = manual_cluster
    c.apply(web(1))
    before = c.dump()
    with pytest.raises(stsedu.ValidationError, match='unable to find container named "php"'):
        c.set_image("web", "php:8", container="php")
    with pytest.raises(stsedu.ValidationError):
        c.set_image("web", "")
    assert c.dump() == before
    c.set_image("web", "nginx:2", container="nginx")
    assert c.statefulset("web").spec.template["spec"]["containers"][0]["image"] == "nginx:2"
    assert c.statefulset("web").generation == 2


def test_writing_out_the_template_defaults_is_not_a_change():
    """SetDefaults_PodSpec / SetDefaults_Container / SetDefaults_ResourceList run before the set is
    stored, so an edit that only spells out defaults (imagePullPolicy IfNotPresent for a tagged image,
    restartPolicy Always, terminationGracePeriodSeconds 30) or writes a quantity another way (0.5 and
    500m) leaves the stored spec as it was: generation and revisions stay, no pod is replaced
    (getStatefulSetRevisions finds the same template)."""
    c = stsedu.Cluster(seed=0)
    c.apply(web(2, image="nginx:1"))
    c.run("web")

    def unchanged_by(patch):
        before = c.statefulset("web")
        revisions = [r.name for r in c.revisions("web")]
        c.patch("web", patch)
        after = c.statefulset("web")
        assert after.generation == before.generation and after.spec.template == before.spec.template
        assert not any(r.changed for r in c.run("web"))
        assert [r.name for r in c.revisions("web")] == revisions

    unchanged_by({"spec": {"template": {"spec": {
        "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
        "containers": [{"name": "nginx", "image": "nginx:1", "imagePullPolicy": "IfNotPresent",
                        "terminationMessagePolicy": "File", "resources": {}}]}}}})
    c.patch("web", {"spec": {"template": {"spec": {"containers": [
        {"name": "nginx", "image": "nginx:1", "resources": {"requests": {"cpu": 0.5}}}]}}}})
    c.run("web")
    unchanged_by({"spec": {"template": {"spec": {"containers": [
        {"name": "nginx", "image": "nginx:1", "resources": {"requests": {"cpu": "500m"}}}]}}}})
    generation, count = c.statefulset("web").generation, len(c.revisions("web"))
    c.patch("web", {"spec": {"template": {"spec": {"containers": [
        {"name": "nginx", "image": "nginx:1", "imagePullPolicy": "Always"}]}}}})
    assert c.statefulset("web").generation == generation + 1
    c.run("web")
    assert len(c.revisions("web")) == count + 1


@pytest.mark.parametrize("profile, name", [("current", "test-776999688b"), ("v1.36", "test-776999688b"),
                                           ("v1.16", "test-c77f6d978")])
def test_revision_name_matches_a_real_cluster(profile, name):
    """getPatch + HashControllerRevision over the template as the API server stores it
    (SetDefaults_PodSpec, SetDefaults_Container): the revision upstream's compatibility testdata recorded
    from real clusters for this set (pkg/controller/statefulset/testdata/compatibility_revision_1.34.0.json,
    and _1.33.0.json, whose serialisation, with creationTimestamp: null, is the one of every release
    up to v1.33)."""
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "test"},
             "spec": {"replicas": 1, "serviceName": "", "selector": {"matchLabels": {"app": "foo"}},
                      "template": {"metadata": {"labels": {"app": "foo"}, "annotations": {"test": "value"}},
                                   "spec": {"containers": [{"name": "test", "image": "test"}]}}}})
    c.sync("test")
    (rev,) = c.revisions("test")
    assert rev.name == name and rev.labels[HASH_LABEL] == name.removeprefix("test-")
    assert c.pods("test")[0].labels["controller-revision-hash"] == name


@pytest.mark.parametrize("profile, kept", [("current", True), ("v1.36", True), ("current-without-rule", False)])
def test_a_revision_written_before_v1_34_is_still_the_update_revision(profile, kept):
    """setMatchesLatestExistingRevision (gate StatefulSetSemanticRevisionComparison, kubernetes#134773):
    the newest revision as v1.33 wrote it (``creationTimestamp: null``, compatibility_revision_1.33.0.json)
    is not byte-equal to the template's revision under v1.34+, but applied to the set and written again it
    is: it stays the update revision, no revision is created and the pod carries its name.  Without the
    rule (the profile switch off, as in v1.16's controller) a new revision replaces it."""
    if profile == "current-without-rule":
        profile = dataclasses.replace(CURRENT, semantic_revision_comparison=False)
    c = stsedu.Cluster(kubelet="manual", profile=profile)
    c.apply({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "test"},
             "spec": {"replicas": 1, "serviceName": "", "selector": {"matchLabels": {"app": "foo"}},
                      "template": {"metadata": {"labels": {"app": "foo"}, "annotations": {"test": "value"}},
                                   "spec": {"containers": [{"name": "test", "image": "test"}]}}}})
    sts = c.statefulset("test")
    data = get_patch(sts.spec.template, null_creation_timestamp=True)
    old = revision_name("test", revision_hash(data, 0))
    assert old == "test-c77f6d978"
    c.store.create("ControllerRevision", ControllerRevision(
        name=old, labels={"app": "foo", HASH_LABEL: old.removeprefix("test-")},
        owner_references=(sts.ref(),), data=data, revision=1))
    r = c.sync("test")
    update = old if kept else "test-776999688b"
    assert kinds(r, "create-revision") == ([] if kept else [("new-template", update)])
    assert r.status.update_revision == update
    assert c.pods("test")[0].labels["controller-revision-hash"] == update
