"""``kubectl rollout history statefulset/<name> --revision=N``: the revision's pod template.

Upstream (kubectl): ``RolloutHistoryOptions.Validate`` and ``Run`` (cmd/rollout/rollout_history.go),
``StatefulSetHistoryViewer.ViewHistory`` / ``printHistory`` / ``printTemplate``
(polymorphichelpers/history.go), ``DescribePodTemplate`` and its helpers (describe/describe.go),
the name printer (cli-runtime printers/name.go).  ``printTemplate`` writes through a
``PrefixWriter`` into a plain buffer, so the expected texts keep their tab characters.
"""

import pytest

import stsedu
from helpers import web
from stsedu import examples
from stsedu.views.kubectl.describe import describe_pod_template, describe_probe, format_label_selector, quantity_string
from stsedu.api.errors import RolloutError
from stsedu.views.tables import rollout_history_text


@pytest.fixture
def rolled():
    """The concept page's set (stsedu/data/web.yaml) after ``kubectl set image`` and its rollout."""
    c = stsedu.Cluster(seed=0)
    c.apply(examples.load("web"))
    c.run("web")
    c.set_image("web", "registry.k8s.io/nginx-slim:0.25")
    c.run("web")
    return c


def test_revision_1_of_the_concept_page_set(rolled):
    """StatefulSetHistoryViewer.ViewHistory -> printHistory -> printTemplate -> DescribePodTemplate:
    the name printer's line ``statefulset.apps/web with revision #1`` (Run's operation), then the
    template: printLabelsMultiline, describeContainers (describeContainerBasicInfo with the named
    port, describeContainerEnvVars, describeContainerVolumes), describeVolumes (the claim template
    is not a template volume), Node-Selectors and Tolerations; the name printer's newline after
    the text leaves an empty last line."""
    assert rollout_history_text(rolled, "web", revision=1) == (
        "statefulset.apps/web with revision #1\n"
        "Pod Template:\n"
        "  Labels:\tapp=nginx\n"
        "  Containers:\n"
        "   nginx:\n"
        "    Image:\tregistry.k8s.io/nginx-slim:0.24\n"
        "    Port:\t80/TCP (web)\n"
        "    Host Port:\t0/TCP (web)\n"
        "    Environment:\t<none>\n"
        "    Mounts:\n"
        "      /usr/share/nginx/html from www (rw)\n"
        "  Volumes:\t<none>\n"
        "  Node-Selectors:\t<none>\n"
        "  Tolerations:\t<none>\n"
        "\n")


def test_each_revision_shows_its_own_template_and_the_table_is_unchanged(rolled):
    """printHistory: revision N prints history N's template (applyStatefulSetHistory replaces the
    set's template with the revision's); revision None or 0 still prints the REVISION table."""
    one = rollout_history_text(rolled, "web", revision=1).splitlines()
    two = rollout_history_text(rolled, "web", revision=2).splitlines()
    assert two[0] == "statefulset.apps/web with revision #2"
    assert [(a, b) for a, b in zip(one[1:], two[1:]) if a != b] == [
        ("    Image:\tregistry.k8s.io/nginx-slim:0.24", "    Image:\tregistry.k8s.io/nginx-slim:0.25")]
    table = "statefulset.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n"
    assert rollout_history_text(rolled, "web") == table
    assert rollout_history_text(rolled, "web", revision=0) == table


def test_unknown_and_negative_revisions_are_kubectl_errors(rolled):
    """printHistory: ``unable to find the specified revision``; RolloutHistoryOptions.Validate:
    ``revision must be a positive integer: -1``, checked before the set is even fetched; a
    non-integer is the flag parser's error.  Nothing changes."""
    before = rolled.dump()
    with pytest.raises(RolloutError) as err:
        rollout_history_text(rolled, "web", revision=3)
    assert str(err.value) == "unable to find the specified revision"
    with pytest.raises(RolloutError) as err:
        rollout_history_text(rolled, "no-such-set", revision=-1)
    assert str(err.value) == "revision must be a positive integer: -1"
    with pytest.raises(RolloutError) as err:
        rollout_history_text(rolled, "web", revision="2")
    assert str(err.value) == ('invalid argument "2" for "--revision" flag: '
                              'strconv.ParseInt: parsing "2": invalid syntax')
    with pytest.raises(KeyError):
        rollout_history_text(rolled, "no-such-set", revision=1)
    assert rolled.dump() == before


def test_no_history_prints_no_rollout_history_found_whatever_the_revision(manual_cluster):
    """printHistory returns ``No rollout history found.`` before it looks for the revision."""
    c = manual_cluster
    c.apply(web(1))
    assert rollout_history_text(c, "web", revision=4) == (
        "statefulset.apps/web with revision #4\nNo rollout history found.\n")


def _rich_set() -> dict:
    m = web(1)
    tpl = m["spec"]["template"]
    tpl["metadata"]["labels"]["tier"] = "db"
    tpl["metadata"]["annotations"] = {"example.com/owner": "team-a"}
    tpl["spec"] = {
        "serviceAccountName": "db",
        "initContainers": [{"name": "init", "image": "busybox:1.36",
                            "command": ["sh", "-c"], "args": ["echo one\necho two"]}],
        "containers": [{
            "name": "db", "image": "postgres:16",
            "ports": [{"containerPort": 5432, "name": "pg"}, {"containerPort": 9187, "name": "metrics"}],
            "resources": {"limits": {"memory": "1024Mi", "cpu": 1},
                          "requests": {"cpu": "0.5", "memory": "512Mi"}},
            "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "initialDelaySeconds": 5},
            "readinessProbe": {"tcpSocket": {"port": 5432}, "periodSeconds": 5},
            "startupProbe": {"exec": {"command": ["pg_isready", "-U", "postgres"]}, "failureThreshold": 30},
            "env": [{"name": "PGDATA", "value": "/var/lib/postgresql/data"},
                    {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                    {"name": "PASSWORD", "valueFrom": {"secretKeyRef": {"name": "pg", "key": "password"}}},
                    {"name": "MODE", "valueFrom": {"configMapKeyRef": {"name": "pg-config", "key": "mode",
                                                                         "optional": True}}}],
            "volumeMounts": [{"name": "data", "mountPath": "/var/lib/postgresql", "subPath": "pgdata"},
                             {"name": "config", "mountPath": "/etc/pg", "readOnly": True}],
        }],
        "volumes": [{"name": "config", "configMap": {"name": "pg-config"}},
                    {"name": "data", "emptyDir": {"sizeLimit": "2048Mi"}}],
        "nodeSelector": {"disktype": "ssd"},
        "tolerations": [{"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                         "effect": "NoExecute", "tolerationSeconds": 300},
                        {"key": "dedicated", "operator": "Equal", "value": "db", "effect": "NoSchedule"}],
    }
    return m


def test_template_with_env_probes_resources_and_volumes(manual_cluster):
    """DescribePodTemplate over a full template, as the API server stored it (probe, port and
    fieldRef defaults applied): printAnnotationsMultiline, Service Account, Init Containers with
    describeContainerCommand (one line per line of each entry), Ports/Host Ports when there are
    several, describeResources (names sorted, quantities canonical: 1024Mi -> 1Gi, 0.5 -> 500m),
    describeContainerProbe (DescribeProbe: http-get URL, tcp-socket, exec), describeContainerEnvVars
    (fieldRef with no resolver, secretKeyRef, configMapKeyRef), mounts sorted by path with ro/rw
    and subPath, configMap and emptyDir volumes, node selector, tolerations sorted by key."""
    c = manual_cluster
    c.apply(_rich_set())
    c.sync("web")
    assert rollout_history_text(c, "web", revision=1) == (
        "statefulset.apps/web with revision #1\n"
        "Pod Template:\n"
        "  Labels:\tapp=nginx\n"
        "\ttier=db\n"
        "  Annotations:\texample.com/owner: team-a\n"
        "  Service Account:\tdb\n"
        "  Init Containers:\n"
        "   init:\n"
        "    Image:\tbusybox:1.36\n"
        "    Port:\t<none>\n"
        "    Host Port:\t<none>\n"
        "    Command:\n"
        "      sh\n"
        "      -c\n"
        "    Args:\n"
        "      echo one\n"
        "      echo two\n"
        "    Environment:\t<none>\n"
        "    Mounts:\t<none>\n"
        "  Containers:\n"
        "   db:\n"
        "    Image:\tpostgres:16\n"
        "    Ports:\t5432/TCP (pg), 9187/TCP (metrics)\n"
        "    Host Ports:\t0/TCP (pg), 0/TCP (metrics)\n"
        "    Limits:\n"
        "      cpu:\t1\n"
        "      memory:\t1Gi\n"
        "    Requests:\n"
        "      cpu:\t500m\n"
        "      memory:\t512Mi\n"
        "    Liveness:\thttp-get http://:8080/healthz delay=5s timeout=1s period=10s #success=1 #failure=3\n"
        "    Readiness:\ttcp-socket :5432 delay=0s timeout=1s period=5s #success=1 #failure=3\n"
        "    Startup:\texec [pg_isready -U postgres] delay=0s timeout=1s period=10s #success=1 #failure=30\n"
        "    Environment:\n"
        "      PGDATA:\t/var/lib/postgresql/data\n"
        "      POD_NAME:\t (v1:metadata.name)\n"
        "      PASSWORD:\t<set to the key 'password' in secret 'pg'>\tOptional: false\n"
        "      MODE:\t<set to the key 'mode' of config map 'pg-config'>\tOptional: true\n"
        "    Mounts:\n"
        "      /etc/pg from config (ro)\n"
        "      /var/lib/postgresql from data (rw,path=\"pgdata\")\n"
        "  Volumes:\n"
        "   config:\n"
        "    Type:\tConfigMap (a volume populated by a ConfigMap)\n"
        "    Name:\tpg-config\n"
        "    Optional:\tfalse\n"
        "   data:\n"
        "    Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n"
        "    Medium:\t\n"
        "    SizeLimit:\t2Gi\n"
        "  Node-Selectors:\tdisktype=ssd\n"
        "  Tolerations:\tdedicated=db:NoSchedule\n"
        "\tnode.kubernetes.io/unreachable:NoExecute op=Exists for 300s\n"
        "\n")


def test_other_volume_sources_and_spread_constraints():
    """describeVolumes' hostPath (type defaulted to ""), secret, persistentVolumeClaim, projected
    and downwardAPI texts, one line per volume kind; describeTopologySpreadConstraints (by key,
    selector via FormatLabelSelector) before Priority Class Name."""
    text = describe_pod_template({
        "metadata": {},
        "spec": {"containers": [{"name": "c", "image": "i", "env": [{"name": "MULTI", "value": "a\nb"}]}],
                 "volumes": [
                     {"name": "host", "hostPath": {"path": "/srv", "type": ""}},
                     {"name": "tls", "secret": {"secretName": "tls", "optional": True}},
                     {"name": "claim", "persistentVolumeClaim": {"claimName": "shared", "readOnly": True}},
                     {"name": "proj", "projected": {"sources": [
                         {"serviceAccountToken": {"path": "t", "expirationSeconds": 3600}},
                         {"configMap": {"name": "cm"}}]}},
                     {"name": "info", "downwardAPI": {"items": [
                         {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}}],
                 "topologySpreadConstraints": [
                     {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                      "labelSelector": {"matchLabels": {"app": "nginx"}}},
                     {"maxSkew": 2, "topologyKey": "host", "whenUnsatisfiable": "ScheduleAnyway"}],
                 "priorityClassName": "high"}})
    assert text == (
        "Pod Template:\n"
        "  Labels:\t<none>\n"
        "  Containers:\n"
        "   c:\n"
        "    Image:\ti\n"
        "    Port:\t<none>\n"
        "    Host Port:\t<none>\n"
        "    Environment:\n"
        "      MULTI:\ta\n"
        "      \tb\n"
        "    Mounts:\t<none>\n"
        "  Volumes:\n"
        "   host:\n"
        "    Type:\tHostPath (bare host directory volume)\n"
        "    Path:\t/srv\n"
        "    HostPathType:\t\n"
        "   tls:\n"
        "    Type:\tSecret (a volume populated by a Secret)\n"
        "    SecretName:\ttls\n"
        "    Optional:\ttrue\n"
        "   claim:\n"
        "    Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n"
        "    ClaimName:\tshared\n"
        "    ReadOnly:\ttrue\n"
        "   proj:\n"
        "    Type:\tProjected (a volume that contains injected data from multiple sources)\n"
        "    TokenExpirationSeconds:\t3600\n"
        "    ConfigMapName:\tcm\n"
        "    Optional:\tfalse\n"
        "   info:\n"
        "    Type:\tDownwardAPI (a volume populated by information about the pod)\n"
        "    Items:\n"
        "      metadata.labels -> labels\n"
        "  Topology Spread Constraints:\thost:ScheduleAnyway when max skew 2 is exceeded\n"
        "  \tzone:DoNotSchedule when max skew 1 is exceeded for selector app=nginx\n"
        "  Priority Class Name:\thigh\n"
        "  Node-Selectors:\t<none>\n"
        "  Tolerations:\t<none>\n")


def test_long_and_multiline_annotations_and_the_skipped_one():
    """printAnnotationsMultiline: last-applied-configuration is never shown; a value over the
    140-byte limit (with its key) gets ``key:`` and the value cut at 138 bytes plus ``...``;
    a multi-line value gets one ``\\t  line`` per line."""
    text = describe_pod_template({"metadata": {"annotations": {
        "kubectl.kubernetes.io/last-applied-configuration": "{}",
        "long": "x" * 200, "multi": "one\ntwo\n"}}, "spec": {"containers": []}})
    assert text.splitlines()[2:6] == [
        "  Annotations:\tlong:", "\t  " + "x" * 138 + "...", "\tmulti:", "\t  one"]
    assert text.splitlines()[6:8] == ["\t  two", "  Containers: <none>"]
    only_skipped = describe_pod_template({"metadata": {"annotations": {
        "kubectl.kubernetes.io/last-applied-configuration": "{}"}}, "spec": {}})
    assert "  Annotations:\t<none>\n" in only_skipped


@pytest.mark.parametrize("written,printed", [
    ("1Gi", "1Gi"), ("1024Mi", "1Gi"), ("1536Mi", "1536Mi"), ("0.5Ki", "512"), ("0.5", "500m"),
    (0.5, "500m"), (2, "2"), ("2000", "2k"), ("1500", "1500"), ("100m", "100m"), ("1e3", "1e3"),
    ("12e2", "1200"), ("0.0000000001", "1n"), ("0m", "0")])
def test_quantities_print_in_canonical_form(written, printed):
    """Quantity.String (CanonicalizeBytes): binary stays binary only for whole values of at least
    1024, decimal SI takes the largest suffix with an integer mantissa, exponents stay
    exponents, values round up to nano units, zero is 0."""
    assert quantity_string(written) == printed


@pytest.mark.parametrize("probe,text", [
    ({"httpGet": {"path": "/ready", "port": "http", "scheme": "HTTPS", "host": "10.0.0.1"}},
     "http-get https://10.0.0.1:http/ready"),
    ({"httpGet": {"path": "/a b?", "port": 80, "scheme": "HTTP"}}, "http-get http://:80/a%20b%3F"),
    ({"httpGet": {"port": 80, "scheme": "HTTP", "host": "fe80::1"}}, "http-get http://[fe80::1]:80"),
    ({"grpc": {"port": 9000, "service": ""}}, "grpc <pod>:9000 "),
    ({"exec": {"command": ["cat", "/tmp/ok"]}}, "exec [cat /tmp/ok]"),
])
def test_describe_probe_handlers(probe, text):
    """DescribeProbe: the URL as Go's url.URL.String builds it (JoinHostPort, path escaping),
    exec as Go prints a []string, grpc's service after the port."""
    attrs = " delay=0s timeout=1s period=10s #success=1 #failure=3"
    assert describe_probe({**probe, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1,
                           "failureThreshold": 3}) == text + attrs


def test_label_selector_format():
    """metav1.FormatLabelSelector: requirements sorted by key, in/notin values sorted."""
    assert format_label_selector({"matchLabels": {"b": "2"}, "matchExpressions": [
        {"key": "c", "operator": "In", "values": ["y", "x"]}, {"key": "a", "operator": "DoesNotExist"},
        {"key": "d", "operator": "Exists"}, {"key": "e", "operator": "NotIn", "values": ["z"]}]}) == \
        "!a,b=2,c in (x,y),d,e notin (z)"
    assert format_label_selector({}) == "<none>"


def test_env_from_resource_field_ref_and_devices():
    """describeContainerEnvFrom (with and without prefix), a resourceFieldRef resolved from the
    container (ExtractContainerResourceValue: ceiling in divisor units; no cpu limit is
    ``node allocatable``), and describeContainerVolumes' Devices header, which reuses the
    mounts' ``<none>``."""
    text = describe_pod_template({"spec": {"containers": [{
        "name": "c", "image": "i", "resources": {"limits": {"memory": "1Gi"}},
        "envFrom": [{"configMapRef": {"name": "cm"}}, {"secretRef": {"name": "s", "optional": True}, "prefix": "S_"}],
        "env": [{"name": "MEM", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}}},
                {"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}}],
        "volumeDevices": [{"name": "raw", "devicePath": "/dev/xvda"}]}]}})
    lines = text.splitlines()
    start = lines.index("    Environment Variables from:")
    assert lines[start:start + 12] == [
        "    Environment Variables from:",
        "      cm\tConfigMap\tOptional: false",
        "      s\tSecret with prefix 'S_'\tOptional: true",
        "    Environment:",
        "      MEM:\t1024 (limits.memory)",
        "      CPU:\tnode allocatable (limits.cpu)",
        "    Mounts:\t<none>",
        "    Devices:\t<none>",
        "      /dev/xvda from raw",
        "  Volumes:\t<none>",
        "  Node-Selectors:\t<none>",
        "  Tolerations:\t<none>"]


def test_volume_types_not_described_say_so():
    """The volume kinds whose kubectl text prints Go structs (iscsi, rbd, ...) are not simulated: their
    entry says so in one line (no traceback), and the rest of the template is printed as usual."""
    text = describe_pod_template({"spec": {"containers": [], "volumes": [{"name": "v", "iscsi": {}},
                                                                         {"name": "w", "emptyDir": {}}]}})
    lines = text.splitlines()
    i = lines.index("   v:")
    assert lines[i + 1] == "    Type:\tiscsi (stsedu does not print this volume type as kubectl does)"
    assert lines[i + 2] == "   w:" and lines[-1] == "  Tolerations:\t<none>"


def test_ephemeral_and_csi_volumes_keep_kubectls_nested_indentation():
    """printEphemeralVolumeSource prints the claim template with printPersistentVolumeClaim on a
    nestedPrefixWriter, which indents every write (so ``Labels:\\t    a=1``); printCSIVolumeSource's
    attributes are written at LEVEL_2 piece by piece, with the same effect."""
    text = describe_pod_template({"spec": {"containers": [], "volumes": [
        {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {
            "metadata": {"labels": {"a": "1", "b": "2"}},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast", "volumeMode": "Filesystem",
                     "resources": {"requests": {"storage": "1Gi"}}}}}},
        {"name": "secrets", "csi": {"driver": "secrets-store.csi.k8s.io", "readOnly": True,
                                    "volumeAttributes": {"provider": "vault", "role": "db"}}}]}})
    start = text.index("   scratch:\n")
    assert text[start:text.index("  Node-Selectors")] == (
        "   scratch:\n"
        "    Type:\tEphemeralVolume (an inline specification for a volume that gets created and deleted with the pod)\n"
        "    StorageClass:\tfast\n"
        "    Volume:\t\n"
        "    Labels:\t    a=1\n"
        "        \t    b=2\n"
        "    Annotations:\t    <none>\n"
        "    Capacity:\t\n"
        "    Access Modes:\t\n"
        "    VolumeMode:\tFilesystem\n"
        "   secrets:\n"
        "    Type:\tCSI (a Container Storage Interface (CSI) volume source)\n"
        "    Driver:\tsecrets-store.csi.k8s.io\n"
        "    FSType:\t\n"
        "    ReadOnly:\ttrue\n"
        "    VolumeAttributes:\t    provider=vault\n"
        "        \t    role=db\n")
