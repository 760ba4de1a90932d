"""Issue 29: kubectl against the embedded cluster (stsedu.views.kubectl), its magics and its terminal command.

What a learner checks: the tutorial's lines print what kubectl prints, flag forms kubectl accepts
mean the same, a refused line prints kubectl's message and changes nothing, and the identity
steps (hostname, DNS, a file on the claim) behave as on a real cluster.
"""

from __future__ import annotations

import io
import json

import pytest
import yaml

from stsedu.console.session import Session

WEB = "https://k8s.io/examples/application/web/web.yaml"


def k(s, line, stdin=None):
    r = s.run(line, stdin)
    assert "Traceback" not in r.text
    return r


@pytest.fixture
def web():
    s = Session()
    r = k(s, f"apply -f {WEB}")
    assert r.stdout == "service/nginx created\nstatefulset.apps/web created\n"
    k(s, "get pods")  # catches up: both pods Running and Ready
    return s


def state(s):
    """Everything a refused command must leave as it was."""
    c = s.cluster
    return json.dumps(c.dump(), sort_keys=True, default=str), c.trace.counts(), c.now, json.dumps(
        s.files.data, sort_keys=True)


# ------------------------------------------------------------------ the tutorial's lines


def test_create_then_get_shows_two_ready_pods_and_the_headless_service(web):
    assert k(web, "get statefulset web").stdout.splitlines()[1].split()[:2] == ["web", "2/2"]
    svc = k(web, "get service nginx").stdout.splitlines()
    assert svc[0].split() == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"]
    assert svc[1].split()[:5] == ["nginx", "ClusterIP", "None", "<none>", "80/TCP"]
    pods = k(web, "get pods -l app=nginx").stdout.splitlines()
    assert [line.split()[:3] for line in pods[1:]] == [["web-0", "1/1", "Running"], ["web-1", "1/1", "Running"]]
    again = k(web, f"apply -f {WEB}")
    assert again.stdout == "service/nginx unchanged\nstatefulset.apps/web unchanged\n"


def test_the_watch_shows_the_ordered_start_and_stops_when_stable():
    s = Session()
    k(s, f"apply -f {WEB}")
    r = k(s, "get pods -w -l app=nginx")
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    seen = [(line.split()[0], line.split()[1], line.split()[2]) for line in lines[1:]]
    # web-1 is created only after web-0 is Running and Ready (OrderedReady)
    assert seen.index(("web-0", "1/1", "Running")) < seen.index(("web-1", "0/1", "Pending"))
    assert seen[-1] == ("web-1", "1/1", "Running")
    assert r.settled > 0 and r.end > r.start
    assert k(s, "get pods -w").stdout.count("\n") == 3  # stable: the list, and nothing more


def test_a_watch_with_a_timeout_stops_early_and_the_next_command_catches_up():
    s = Session()
    k(s, f"apply -f {WEB}")
    r = k(s, "get pods -w --request-timeout=2s")
    assert r.end <= r.start + 2 and "web-1" not in r.stdout
    assert "web-1   1/1     Running" in k(s, "get pods").stdout


def test_a_deleted_pod_comes_back_under_the_same_name_and_the_watch_shows_it(web):
    r = k(web, "delete pod -l app=nginx")
    assert r.stdout == ('pod "web-0" deleted from default namespace\n'
                        'pod "web-1" deleted from default namespace\n')
    watch = k(web, "get pod -w -l app=nginx").stdout
    assert "web-0   1/1     Terminating" in watch and watch.rstrip().endswith("Running             0          3s")
    assert [line.split()[0] for line in k(web, "get pods").stdout.splitlines()[1:]] == ["web-0", "web-1"]


def test_exec_hostname_and_cat_etc_hostname(web):
    assert k(web, "exec web-0 -- hostname").stdout == "web-0\n"
    assert k(web, "exec web-1 -- sh -c 'hostname'").stdout == "web-1\n"
    assert k(web, "exec web-1 -- cat /etc/hostname").stdout == "web-1\n"


def test_nslookup_answers_from_the_dns_model_and_the_pod_ip(web):
    ip = k(web, "get pod web-0 -o jsonpath={.status.podIP}").stdout
    r = k(web, "run -i --tty --image busybox:1.28 dns-test --restart=Never --rm -- nslookup web-0.nginx")
    assert r.status == 0
    assert r.stdout.endswith(f"Name:      web-0.nginx\nAddress 1: {ip}\n"
                             'pod "dns-test" deleted from default namespace\n')
    bad = k(web, "run -i --tty --image busybox:1.28 dns-test --restart=Never --rm -- nslookup web-7.nginx")
    assert bad.status == 1 and "nslookup: can't resolve 'web-7.nginx'" in bad.stdout
    assert bad.stderr == "pod default/dns-test terminated (Error)\n"


def test_a_file_on_the_claim_survives_the_pods_deletion(web):
    k(web, """exec web-0 -- sh -c 'echo "$(hostname)" > /usr/share/nginx/html/index.html'""")
    k(web, "exec web-0 -- sh -c 'echo scratch > /tmp/note'")
    assert k(web, "exec -i -t web-0 -- curl http://localhost/").stdout == "web-0\n"
    assert "403 Forbidden" in k(web, "exec web-1 -- curl http://localhost/").stdout
    uid = web.cluster.pod("web-0").uid
    k(web, "delete pod web-0")
    assert web.cluster.pod("web-0").uid != uid  # a new pod, the same claim
    assert k(web, "exec -i -t web-0 -- curl http://localhost/").stdout == "web-0\n"
    gone = k(web, "exec web-0 -- cat /tmp/note")  # the container's own filesystem went with the pod
    assert gone.status == 1 and "No such file or directory" in gone.stdout


def test_scale_up_and_down_and_the_claims_stay(web):
    assert k(web, "scale sts web --replicas=5").stdout == "statefulset.apps/web scaled\n"
    assert k(web, "get sts web -o jsonpath={.status.readyReplicas}").stdout == "5"
    assert k(web, """patch sts web -p '{"spec":{"replicas":3}}'""").stdout == "statefulset.apps/web patched\n"
    assert k(web, "get pods -o name").stdout == "pod/web-0\npod/web-1\npod/web-2\n"
    assert len(k(web, "get pvc -l app=nginx").stdout.splitlines()) == 6  # header and five claims
    assert k(web, """patch sts web -p '{"spec":{"replicas":3}}'""").stdout == \
        "statefulset.apps/web patched (no change)\n"


def test_rollout_status_right_after_a_change_starts_from_what_the_controller_observed(web):
    """StatefulSetStatusViewer prints "spec update to be observed" only while
    observedGeneration < generation; a real controller observes a change within milliseconds,
    before the kubectl binary has started (the real kubectl, tests/views/test_kubectl_corpus.py),
    so the watch starts from the set the controller has already synced."""
    k(web, "set image sts/web nginx=registry.k8s.io/nginx-slim:0.24")
    lines = k(web, "rollout status sts/web").stdout.splitlines()
    assert "Waiting for statefulset spec update to be observed..." not in lines
    assert lines[0].startswith("Waiting for partitioned roll out to finish: 0 out of 2")
    assert lines[-1] == "partitioned roll out complete: 2 new pods have been updated..."


def test_rolling_update_with_a_json_patch_then_the_template_shows_the_image(web):
    k(web, "scale sts web --replicas=3")
    r = k(web, """patch statefulset web --type='json' -p='[{"op": "replace", "path": """
                 """"/spec/template/spec/containers/0/image", "value":"registry.k8s.io/nginx-slim:0.24"}]'""")
    assert r.stdout == "statefulset.apps/web patched\n"
    status = k(web, "rollout status sts/web").stdout.splitlines()
    assert status[-1] == "partitioned roll out complete: 3 new pods have been updated..."
    template = "{{range $i, $c := .spec.containers}}{{$c.image}}{{end}}"
    for p in ("web-0", "web-1", "web-2"):
        assert k(web, f"get pod {p} --template '{template}'").stdout == "registry.k8s.io/nginx-slim:0.24"
    hist = k(web, "rollout history sts/web").stdout
    assert hist == "statefulset.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n"
    assert k(web, "rollout undo sts/web").stdout == "statefulset.apps/web rolled back\n"
    assert k(web, "get pod web-0 -o jsonpath={.spec.containers[0].image}").stdout == \
        "registry.k8s.io/nginx-slim:0.21"


def test_staged_update_with_a_partition_updates_only_the_pods_at_or_above_it(web):
    k(web, "scale sts web --replicas=3")
    k(web, """patch statefulset web -p '{"spec":{"updateStrategy":{"type":"RollingUpdate","""
           """"rollingUpdate":{"partition":2}}}}'""")
    k(web, "set image sts/web nginx=registry.k8s.io/nginx-slim:0.24")
    images = k(web, "get pods -o jsonpath='{range .items[*]}{.metadata.name}={.spec.containers[0].image}{\"\\n\"}{end}'")
    assert images.stdout == ("web-0=registry.k8s.io/nginx-slim:0.21\nweb-1=registry.k8s.io/nginx-slim:0.21\n"
                             "web-2=registry.k8s.io/nginx-slim:0.24\n")


def test_on_delete_waits_for_a_deleted_pod_and_rollout_status_refuses(web):
    k(web, """patch statefulset web -p '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null}}}'""")
    k(web, "set image sts/web nginx=registry.k8s.io/nginx-slim:0.24")
    img = "get pod {} -o jsonpath={{.spec.containers[0].image}}"
    assert k(web, img.format("web-1")).stdout.endswith(":0.21")
    r = k(web, "rollout status sts/web")
    assert (r.status, r.stderr) == (1, "error: rollout status is only available for RollingUpdate strategy type\n")
    k(web, "delete pod web-1")
    assert k(web, img.format("web-1")).stdout.endswith(":0.24")


def test_orphan_delete_keeps_the_pods_and_a_new_set_adopts_them(web):
    r = k(web, "delete statefulset web --cascade=orphan")
    assert r.stdout == 'statefulset.apps "web" deleted from default namespace\n'
    pods = web.cluster.pods()
    assert [p.name for p in pods] == ["web-0", "web-1"] and all(p.owner is None for p in pods)
    k(web, f"apply -f {WEB}")
    k(web, "get pods")
    assert [p.owner for p in web.cluster.pods()] == ["web", "web"]


def test_background_delete_removes_the_pods_and_keeps_the_claims(web):
    k(web, "delete sts web")
    assert k(web, "get pods").stderr == "No resources found in default namespace.\n"
    assert len(web.cluster.pvcs()) == 2
    r = k(web, "delete pvc www-web-0 www-web-1")
    assert r.stdout.count("deleted from default namespace") == 2 and web.cluster.pvcs() == []


def test_force_delete_with_grace_period_zero_removes_the_pod_at_once(web):
    uid = web.cluster.pod("web-1").uid
    r = web.run("delete pod web-1 --grace-period=0 --force --wait=false")
    assert r.stdout == 'pod "web-1" force deleted from default namespace\n'
    assert r.stderr.startswith("Warning: Immediate deletion does not wait")
    assert "web-1" not in [p.name for p in web.cluster.pods()] or web.cluster.pod("web-1").uid != uid


def test_parallel_creates_both_pods_without_waiting():
    s = Session()
    k(s, "apply -f https://k8s.io/examples/application/web/web-parallel.yaml")
    watch = [line.split()[:3] for line in k(s, "get pods -w").stdout.splitlines()[1:]]
    assert watch.index(["web-1", "0/1", "Pending"]) < watch.index(["web-0", "1/1", "Running"])


# ------------------------------------------------------------------ parser forms


@pytest.mark.parametrize("line", [
    "scale sts web --replicas=4", "scale sts web --replicas 4", "scale statefulset/web --replicas=4",
    "scale statefulsets.apps web --replicas=4", "scale --replicas=4 sts web", "-n default scale sts web --replicas 4",
    "kubectl scale sts/web --replicas=4 --namespace=default",
])
def test_every_flag_form_means_the_same(web, line):
    r = k(web, line)
    assert (r.status, r.stdout) == (0, "statefulset.apps/web scaled\n")
    assert web.cluster.statefulset("web").spec.replicas == 4


@pytest.mark.parametrize("line", ["get po -lapp=nginx -oname", "get pods -l app=nginx -o name", "get pod -o=name",
                                  "get pods/web-0 pods/web-1 -o name", "get pods web-0 web-1 --output=name"])
def test_short_flags_and_names(web, line):
    assert k(web, line).stdout == "pod/web-0\npod/web-1\n"


def test_output_formats(web):
    doc = yaml.safe_load(k(web, "get sts web -o yaml").stdout)
    assert (doc["kind"], doc["metadata"]["name"], doc["spec"]["replicas"]) == ("StatefulSet", "web", 2)
    assert doc["metadata"]["creationTimestamp"] == "2026-01-01T00:00:00Z"
    listed = json.loads(k(web, "get pods -o json").stdout)
    assert listed["kind"] == "List" and [i["metadata"]["name"] for i in listed["items"]] == ["web-0", "web-1"]
    assert k(web, "get pods -o go-template='{{range .items}}{{.metadata.name}} {{end}}'").stdout == "web-0 web-1 "
    assert k(web, "get sts -o wide").stdout.splitlines()[0].split() == ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"]
    labels = k(web, "get pods -L controller-revision-hash --show-labels").stdout.splitlines()
    assert labels[0].split()[-2:] == ["CONTROLLER-REVISION-HASH", "LABELS"]
    assert "statefulset.kubernetes.io/pod-name=web-0" in labels[1]
    assert k(web, "get controllerrevisions").stdout.splitlines()[1].split()[1:3] == ["statefulset.apps/web", "1"]
    assert k(web, "describe sts web").stdout.startswith("Name:                   web\nNamespace:              default\n")


def test_strategic_merge_keeps_list_items_a_merge_patch_replaces(web):
    body = '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"registry.k8s.io/nginx-slim:0.24"}]}}}}'
    k(web, f"patch sts web -p '{body}'")
    c = web.cluster.statefulset("web").spec.template["spec"]["containers"][0]
    assert c["image"].endswith(":0.24") and c["ports"][0]["containerPort"] == 80
    k(web, f"patch sts web --type merge -p '{body.replace('0.24', '0.21')}'")
    c = web.cluster.statefulset("web").spec.template["spec"]["containers"][0]
    assert c["image"].endswith(":0.21") and "ports" not in c


def test_label_annotate_and_restart(web):
    assert k(web, "label pods web-0 tier=db").stdout == "pod/web-0 labeled\n"
    assert web.cluster.pod("web-0").labels["tier"] == "db"
    assert k(web, "label pods web-0 tier-").stdout == "pod/web-0 unlabeled\n"
    assert k(web, "label pods web-0 tier-").stdout == "pod/web-0 not labeled\n"
    assert k(web, "label pods web-0 a=1 app- --overwrite").stdout == "pod/web-0 modified\n"
    assert "tier" not in web.cluster.pod("web-0").labels
    assert k(web, "annotate sts web owner=me").stdout == "statefulset.apps/web annotated\n"
    assert k(web, "rollout restart sts/web").stdout == "statefulset.apps/web restarted\n"
    k(web, "get pods")
    assert len(web.cluster.revisions("web")) == 2


# ------------------------------------------------------------------ refused lines change nothing

REFUSED = [
    # the real kubectl v1.37.2 (tests/views/test_kubectl_corpus.py): cobra suggests in kubectl's order of commands
    ("gett pods", 'error: unknown command "gett" for "kubectl"\n\nDid you mean this?\n\tset\n\tget\n'),
    ("rollout foo sts/web", "error: unknown command \"foo sts/web\"\nSee 'kubectl rollout -h' for help and examples\n"),
    ("scale sts web --replica=3", "error: unknown flag: --replica\nSee 'kubectl scale --help' for usage.\n"),
    ("get pods -z", "error: unknown shorthand flag: 'z' in -z\nSee 'kubectl get --help' for usage.\n"),
    ("scale sts web --replicas", "error: flag needs an argument: --replicas\n"
                                 "See 'kubectl scale --help' for usage.\n"),
    ("scale sts web --replicas=three", 'error: invalid argument "three" for "--replicas" flag: strconv.ParseInt: '
                                       'parsing "three": invalid syntax\nSee \'kubectl scale --help\' for usage.\n'),
    ("get foo", 'error: the server doesn\'t have a resource type "foo"\n'),
    ("get sts webb", 'Error from server (NotFound): statefulsets.apps "webb" not found\n'),
    ("delete sts webb", 'Error from server (NotFound): statefulsets.apps "webb" not found\n'),
    ("delete sts", "error: resource(s) were provided, but no name was specified\n"),
    ("scale sts --replicas=3", "error: resource(s) were provided, but no name was specified\n"),
    ("scale sts web", 'error: required flag(s) "replicas" not set\n'),  # cobra's MarkFlagRequired
    ("scale sts web --replicas=-1",
     "error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0\n"),
    # what looks like JSON goes to the server as it is (yaml.ToJSON), which refuses it
    ("patch sts web -p '{bad'", "Error from server (BadRequest): invalid JSON patch\n"),
    ("patch sts web -p 'a: [b'", "error: unable to parse \"a: [b\": yaml: line 1, column 6: expected ',' or ']', "
                                 "but got '<stream end>'\n"),
    ("set image", "error: You must provide one or more resources by argument or filename.\nExample resource "
                  "specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n"
                  "   '<resource>'\n"),
    ("patch sts web", "error: must specify --patch or --patch-file containing the contents of the patch\n"),
    ("patch sts web --type=foo -p '{}'", 'error: --type must be one of [json merge strategic], not "foo"\n'),
    ("""patch sts web --type json -p '[{"op":"replace","path":"/spec/nope/x","value":1}]'""",
     "The request is invalid: the server rejected our request due to an error in our request\n"),
    ("""patch sts web -p '{"spec":{"replicas":-1}}'""",
     'The StatefulSet "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0\n'),
    ("apply -f nope.yaml", 'error: the path "nope.yaml" does not exist\n'),
    ("delete sts web --cascade=sideways",
     'error: invalid cascade value (sideways). Must be "background", "foreground", or "orphan"\n'),
    ("rollout pause sts/web", 'error: statefulsets.apps "web" pausing is not supported\n'),
    ("rollout resume statefulset web", 'error: statefulsets.apps "web" resuming is not supported\n'),
    ("exec web-0 hostname", "error: exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] "
                            "instead\nSee 'kubectl exec -h' for help and examples\n"),
    ("label pods web-0 app=other", "error: 'app' already has a value (nginx), and --overwrite is false\n"),
    ("set image sts/web nope=x:1", 'error: unable to find container named "nope"\n'),
    ("rollout undo sts/web --to-revision=7", "error: unable to find specified revision 7 in history\n"),
    ("get", 'You must specify the type of resource to get. Use "kubectl api-resources" for a complete list of '
            'supported resources.\n\nerror: Required resource not specified.\nUse "kubectl explain <resource>" for '
            "a detailed description of that resource (e.g. kubectl explain pods).\n"
            "See 'kubectl get -h' for help and examples\n"),
    ("get pods 'unclosed", None),
    ("edit sts web", None),
]


@pytest.mark.parametrize("line,message", REFUSED, ids=[r[0] for r in REFUSED])
def test_a_refused_line_prints_kubectls_message_and_changes_nothing(web, line, message):
    before = state(web)
    r = k(web, line)
    assert r.status == 1 and r.stdout == ""
    if message is not None:
        assert r.stderr == message
    else:
        assert r.stderr.startswith("error: ")
    assert state(web) == before


# ------------------------------------------------------------------ decisions, magics, terminal


def test_last_gives_the_decisions_of_the_syncs_the_last_change_caused(web):
    k(web, "scale sts web --replicas=3")
    k(web, "get pods")
    k(web, "exec web-0 -- hostname")  # reads do not move the mark
    table = web.last()
    assert table.attrs["command"] == "kubectl scale sts web --replicas=3"
    created = table[table["action"] == "create"]
    assert "web-2" in set(created["pod"]) and "web-0" not in set(created["pod"])


def test_the_magics_run_lines_cells_and_stdin(capsys):
    from IPython.core.interactiveshell import InteractiveShell

    import stsedu
    from stsedu.console import magic
    ip = InteractiveShell.instance()
    stsedu._register_magics()  # what import stsedu does inside IPython
    assert ip.find_line_magic("kubectl") is not None and ip.find_cell_magic("kubectl") is not None
    magic.session(reset=True)
    ip.run_line_magic("kubectl", f"apply -f {WEB}")
    ip.run_cell_magic("kubectl", "", "# the pods\n$ kubectl get pods -o name\nget sts -o name\n")
    manifest = "apiVersion: v1\nkind: Service\nmetadata: {name: extra}\nspec: {clusterIP: None}\n"
    ip.run_cell_magic("kubectl", "apply -f -", manifest)
    ip.run_line_magic("kubectl", "get sts webb")
    out = capsys.readouterr()
    assert out.out == ("service/nginx created\nstatefulset.apps/web created\npod/web-0\npod/web-1\n"
                       "statefulset.apps/web\nservice/extra created\n")
    assert out.err == 'Error from server (NotFound): statefulsets.apps "webb" not found\n'
    assert magic.result().status == 1
    assert stsedu.last().attrs["command"] == "kubectl apply -f -"


def test_the_terminal_command_keeps_its_cluster_between_calls(tmp_path, monkeypatch):
    from stsedu.__main__ import main
    monkeypatch.setenv("STSEDU_KUBECTL_STATE", str(tmp_path / "state.json"))

    def run(*argv, stdin=""):
        out, err = io.StringIO(), io.StringIO()
        from stsedu.console.cli import main as kmain
        code = kmain(list(argv), out, err, io.StringIO(stdin))
        return code, out.getvalue(), err.getvalue()

    assert run("apply", "-f", WEB)[1] == "service/nginx created\nstatefulset.apps/web created\n"
    assert run("scale", "sts", "web", "--replicas=3")[0] == 0
    code, out, _ = run("get", "pods", "-o", "name")
    assert (code, out) == (0, "pod/web-0\npod/web-1\npod/web-2\n")
    assert run("scale", "sts", "web", "--replica=3") == (
        1, "", "error: unknown flag: --replica\nSee 'kubectl scale --help' for usage.\n")
    assert main(["kubectl", "reset"], io.StringIO()) == 0
    code, out, err = run("get", "pods")
    assert (code, out, err) == (0, "", "No resources found in default namespace.\n")


# ------------------------------------------------------------------ labs: the line a learner can type


@pytest.mark.parametrize("lab,action", [
    ("ScalingLab", lambda lab: lab.scale(5)),
    ("UpdateLab", lambda lab: lab.set_image("nginx:2")),
    ("UpdateLab", lambda lab: lab.set_strategy("OnDelete")),
    ("PartitionLab", lambda lab: lab.set_partition(2)),
    ("HistoryLab", lambda lab: lab.set_limit(3)),
    ("OnDeleteLab", lambda lab: lab.delete_pod("web-1")),
])
def test_the_command_a_lab_shows_does_what_the_lab_did(lab, action):
    """Typed into %kubectl against the same set, the lab's "You ran kubectl ..." line leaves the set
    with the spec the lab's change gave it (and a pod deletion deletes that pod)."""
    import html
    import re

    from stsedu import Cluster
    from stsedu.widgets import labs
    lab = getattr(labs, lab)()
    s = Session(Cluster(profile=lab.profile))
    s.cluster.apply(lab.manifest)
    k(s, "get pods")
    before = {p.name: p.uid for p in s.cluster.pods()}
    action(lab)
    assert lab.last_error is None
    line = html.unescape(re.search(r"<code>(.*?)</code>", lab.did).group(1))
    r = k(s, line)
    assert r.status == 0, (line, r.stderr)
    assert s.cluster.statefulset(lab.name).spec == lab.cluster.statefulset(lab.name).spec, line
    if line.startswith("kubectl delete pod"):
        assert s.cluster.pod("web-1").uid != before["web-1"]


# ------------------------------------------------------------------ any line: an answer, never a traceback

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_WORDS = ["get", "delete", "scale", "patch", "apply", "create", "describe", "rollout", "status", "undo",
          "history", "pause", "set", "image", "label", "annotate", "exec", "run", "edit", "sts", "pods",
          "po", "pvc", "svc", "controllerrevisions", "web", "web-0", "web-9", "sts/web", "pod/web-1", "-f",
          "-", "-o", "yaml", "json", "name", "wide", "jsonpath={.spec}", "--template={{.x}}", "-l",
          "app=nginx", "-L", "--replicas=2", "--replicas", "-3", "--cascade=orphan", "--force",
          "--grace-period=0", "-p", '{"spec":{"replicas":1}}', "[]", "--type=json", "--type", "merge",
          "--", "hostname", "-n", "default", "-w", "--request-timeout=1s", "nginx=x:1", "a=b", "a-",
          "--overwrite", "-it", "--to-revision=1", "--revision=2", "'", '"', "{{", "}}", "--wait=false"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(_WORDS) | st.text(max_size=8), min_size=0, max_size=7))
def test_any_line_gets_an_answer_and_never_a_traceback(web, words):
    r = web.run(" ".join(words), stdin="")
    assert r.status in (0, 1, 2, 126, 127)
    assert "Traceback" not in r.text and "stsedu could not carry out" not in r.stderr, (words, r.stderr)


@pytest.mark.parametrize("wait,gone", [("", True), (" --wait=true", True), (" --wait=false", False)])
def test_delete_waits_until_the_set_is_gone_unless_told_not_to(web, wait, gone):
    """kubectl delete waits by default (--wait=true): with foreground deletion the set stays until the
    garbage collector has deleted its pods; --wait=false returns while it is still there."""
    r = k(web, f"delete sts web --cascade=foreground{wait}")
    assert r.stdout == 'statefulset.apps "web" deleted from default namespace\n'
    assert (web.cluster.store.get("StatefulSet", "default", "web") is None) is gone
    assert (r.end > r.start) is gone
    k(web, "get pods")
    assert web.cluster.store.get("StatefulSet", "default", "web") is None and web.cluster.pods() == []


def test_a_kind_the_kit_does_not_simulate_is_reported_and_the_rest_applied():
    s = Session()
    manifest = (path_web().read_text() + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n")
    r = k(s, "apply -f -", manifest)
    assert r.status == 1 and r.stdout == "service/nginx created\nstatefulset.apps/web created\n"
    assert r.stderr == ('error: stsedu simulates StatefulSets and Services only: Deployment "d" from "STDIN" '
                        "was not applied\n")


def path_web():
    from pathlib import Path
    return Path(__file__).resolve().parents[2] / "stsedu" / "data" / "tutorial" / "web.yaml"


def test_the_terminal_replays_a_file_as_it_was_when_the_command_ran(tmp_path, monkeypatch):
    from stsedu.console.cli import main as kmain
    monkeypatch.setenv("STSEDU_KUBECTL_STATE", str(tmp_path / "state.json"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "web.yaml").write_text(path_web().read_text())
    out = io.StringIO()
    assert kmain(["apply", "-f", "web.yaml"], out, io.StringIO()) == 0
    (tmp_path / "web.yaml").unlink()  # gone: the next call's replay still has it
    out = io.StringIO()
    assert kmain(["get", "sts", "-o", "name"], out, io.StringIO()) == 0
    assert out.getvalue() == "statefulset.apps/web\n"


@pytest.mark.parametrize("text", ["not json", '{"commands": "x"}', '{"commands": [[1, 2]]}', '[]'])
def test_a_damaged_state_file_is_refused_with_a_way_out(tmp_path, monkeypatch, text):
    from stsedu.console.cli import main as kmain
    state = tmp_path / "state.json"
    state.write_text(text)
    monkeypatch.setenv("STSEDU_KUBECTL_STATE", str(state))
    err = io.StringIO()
    assert kmain(["get", "pods"], io.StringIO(), err) == 1
    assert err.getvalue().startswith(f"error: cannot read the state file {state}: ")
    assert "stsedu kubectl reset" in err.getvalue() and state.read_text() == text


def test_the_simulated_times_docs_kubectl_md_states():
    """docs/kubectl.md: the two-pod create takes about 6 s, the scale to five about 9 s, a three-pod
    rolling update about 12 s (default kubelet stages: Running after 1 s, Ready after 3 s)."""
    s = Session()
    k(s, f"apply -f {WEB}")
    assert k(s, "get pods").settled == pytest.approx(6, abs=1)
    k(s, "scale sts web --replicas=5")
    assert k(s, "get pods").settled == pytest.approx(9, abs=1)
    k(s, "scale sts web --replicas=3")
    k(s, "get pods")
    k(s, "set image sts/web nginx=registry.k8s.io/nginx-slim:0.24")
    assert k(s, "get pods").settled == pytest.approx(12, abs=1.5)


def test_set_image_to_the_image_it_has_prints_nothing_and_changes_nothing(web):
    before = state(web)
    r = k(web, "set image sts/web nginx=registry.k8s.io/nginx-slim:0.21")
    assert (r.status, r.stdout, r.stderr) == (0, "", "")
    assert state(web) == before


def test_a_force_delete_prints_its_warning_before_force_deleted(monkeypatch):
    """kubectl writes "Warning: Immediate deletion ..." before it deletes, so before `pod "web-1" force deleted`;
    %kubectl printed it after (issue #41 item 9).  The magic's streams and Result.text keep kubectl's order."""
    import sys

    from stsedu.console import magic
    written = []

    class Stream:
        def __init__(self, name):
            self.name = name

        def write(self, text):
            written.append((self.name, text))

        def flush(self):
            pass
    s = Session()
    s.run(f"apply -f {WEB}")
    s.run("rollout status sts web")
    res = s.run("delete pod web-1 --grace-period=0 --force --wait=false")
    assert res.text.startswith("Warning: Immediate deletion") and res.text.rstrip().endswith("default namespace")
    monkeypatch.setattr(sys, "stdout", Stream("out"))
    monkeypatch.setattr(sys, "stderr", Stream("err"))
    magic._show(res)
    assert [name for name, _ in written] == ["err", "out"], written
    assert "force deleted" in written[1][1]


def test_explain_shows_a_readable_table(monkeypatch):
    """`%kubectl --explain` displayed the raw DataFrame: `None` cells, "web-\\n3" wrapped, the prose right-aligned
    (issue #41 item 9).  Now: no None, each row on one line with the pod whole, the message left-aligned."""
    import IPython.display

    from stsedu.console import magic
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj))
    magic.session(reset=True)
    magic.run_magic(f"apply -f {WEB}")
    magic.run_magic("rollout status sts web")
    magic.run_magic("--explain scale sts web --replicas=0")
    assert len(shown) == 1
    text, page = repr(shown[0]), shown[0]._repr_html_()
    lines = text.splitlines()
    assert "None" not in text and "None" not in page
    assert lines[0].split() == ["sync", "time", "action", "pod", "message"]
    deletes = [line for line in lines if " delete " in f" {line} "]
    assert [line.split()[3] for line in deletes][:2] == ["web-1", "web-0"], text
    message_at = lines[0].index("message")
    assert all(line[message_at - 1] == " " and line[message_at] != " " for line in deletes), text
    assert "white-space:nowrap" in page and "text-align:left" in page
