"""``stsedu live ...``: build, start, stop and use a real control plane (docs/live.md).

* ``stsedu live build``: build etcd, kube-apiserver, kube-controller-manager and kubectl
  into the cache (about 9 minutes the first time on two cores; needs Go);
* ``stsedu live up`` / ``status`` / ``down``: a local control plane in the background;
  ``up`` prints the ``export KUBECONFIG=...`` line for kubectl and runs node ``node-1`` with the
  kit's API kubelet, so pods run (``--no-kubelet``: neither);
* ``stsedu live run SCENARIO [--kubeconfig FILE] [--context NAME] [--kubelet kwok]``: play a
  scenario's steps on the running local control plane, or on the cluster a kubeconfig names, and
  print what the real controller wrote; ``--kubelet kwok`` runs the pods with KWOK instead of the
  kit's kubelet model (:mod:`.kwok`).

Exit status: 0 done; 1 the scenario's run differed from the kit's (``run --compare``);
2 a bad scenario; 4 no control plane (not built, not running, no Go, an unusable kubeconfig);
5 the control plane stopped during ``run`` (one line names what stopped and where its logs are kept).
This module imports nothing heavy: the Kubernetes client loads only when a command needs it.
"""

from __future__ import annotations

import sys
from typing import TextIO

EXIT_UNAVAILABLE = 4
EXIT_STOPPED = 5


def add_parser(sub) -> None:
    live = sub.add_parser("live", help="a real control plane (etcd, kube-apiserver, kube-controller-manager) "
                                       "beside the kit")
    lsub = live.add_subparsers(dest="live_command")
    lsub.add_parser("build", help="build the control plane's binaries into the cache (needs Go; 10+ min the first time)")
    up = lsub.add_parser("up", help="start a local control plane in the background and print its kubeconfig")
    up.add_argument("--no-kubelet", action="store_true",
                    help="no node and no kubelet: pods stay Pending (the kit's API kubelet runs them otherwise)")
    up.add_argument("--kubelet", choices=("kit", "kwok"), default="kit",
                    help="what runs node-1's pods: the kit's API kubelet (default) or KWOK")
    lsub.add_parser("down", help="stop the local control plane; removes every process and file it started")
    lsub.add_parser("status", help="is a local control plane running? where is its kubeconfig?")
    lsub.add_parser("kubectl-path", help="print the path of the built kubectl (nothing, status 4, if not built)")
    run = lsub.add_parser("run", help="play a scenario on the local control plane (or --kubeconfig's cluster)")
    run.add_argument("scenario", help="a scenario .yaml, or the name of a shipped one")
    run.add_argument("--kubeconfig", metavar="FILE", help="a user's cluster instead of the local control plane")
    run.add_argument("--context", metavar="NAME", help="the kubeconfig context to use")
    run.add_argument("--namespace", metavar="NS", help="namespace to run in (default: a new stsedu-live-... one)")
    run.add_argument("--trace", metavar="FILE", help="write the real cluster's trace to FILE (.jsonl)")
    run.add_argument("--kit-kubelet", action="store_true",
                     help="drive the pods with the kit's kubelet model also on --kubeconfig's cluster "
                          "(for a cluster without a kubelet, like another stsedu live control plane)")
    run.add_argument("--kubelet", choices=("kit", "kwok"), default="kit",
                     help="what runs the pods: the kit's kubelet model (default) or KWOK, a kubelet the kit did "
                          "not write (a node of its own; no readiness probes, no crash loop: docs/live.md)")
    run.add_argument("--compare", action="store_true", help="also run it on the kit and compare what a learner observes")


def _run_keeping_thread_errors(args, out: TextIO) -> int:
    """``live run``, with the errors of its background threads (watches, the kubelet) held back: when
    the plane stops during the run they are its echo, and the one line of PlaneStopped says it all;
    otherwise they are printed after the run."""
    import threading
    import traceback
    held: list[str] = []
    previous = threading.excepthook
    threading.excepthook = lambda a: held.append("".join(traceback.format_exception(a.exc_type, a.exc_value, a.exc_traceback)))
    try:
        code = run_cli(args, out)
    finally:
        threading.excepthook = previous
    for text in held:
        sys.stderr.write(f"Exception in a background thread of the run:\n{text}")
    return code


def main(args, out: TextIO) -> int:
    from .build import LiveUnavailable
    from .daemon import PlaneStopped
    cmd = args.live_command
    try:
        if cmd == "build":
            from . import build
            path = build.build(log=lambda m: out.write(m + "\n") or out.flush())
            out.write(f"built in {path}\n")
            return 0
        if cmd == "kubectl-path":
            from .build import kubectl_path
            path = kubectl_path()
            if path:
                out.write(path + "\n")
                return 0
            return EXIT_UNAVAILABLE
        if cmd == "up":
            from . import daemon
            state = daemon.up(kubelet=False if args.no_kubelet else "kwok" if args.kubelet == "kwok" else True)
            if state.get("already"):
                out.write(f"a control plane is already up at {state['server']}: "
                          f"export KUBECONFIG={state['kubeconfig']}\n")
                return 0
            out.write(f"control plane up at {state['server']} (folder {state['workdir']})\n"
                      + (f"pods run on node {state.get('node', 'node-1')} with {state['kubelet']}; "
                         "`stsedu live up --no-kubelet` for none\n"
                         if state.get("kubelet") else "no kubelet: pods stay Pending (--no-kubelet)\n")
                      + f"export KUBECONFIG={state['kubeconfig']}\n")
            return 0
        if cmd == "down":
            from . import daemon
            out.write("control plane stopped; its processes and folder are gone\n" if daemon.down()
                      else "no local control plane is running\n")
            return 0
        if cmd == "status":
            from . import daemon, build
            st = daemon.status()
            if st is None:
                why = build.missing_reason()
                out.write("no local control plane is running" + (f" ({why})" if why else
                                                                  ": start one with `stsedu live up`") + "\n")
                return EXIT_UNAVAILABLE
            out.write(f"{'running' if st['ready'] else 'NOT running (stale; `stsedu live down` cleans up)'}: "
                      f"{st['server']}\nkubeconfig: {st['kubeconfig']}\n"
                      + "".join(f"{n}: pid {p}\n" for n, p in st["pids"].items()))
            return 0 if st["ready"] else EXIT_UNAVAILABLE
        if cmd == "run":
            return _run_keeping_thread_errors(args, out)
        out.write("usage: stsedu live {build,up,down,status,run,kubectl-path} (see stsedu live --help)\n")
        return 2
    except PlaneStopped as e:
        print(f"stsedu live: {e}", file=sys.stderr)
        return EXIT_STOPPED
    except LiveUnavailable as e:
        print(f"stsedu live: {e}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    except KeyboardInterrupt:
        print("stsedu live: interrupted; everything it started has been stopped", file=sys.stderr)
        return 130


def run_cli(args, out) -> int:
    """``stsedu live run SCENARIO``."""
    from ..lessons import scenarios
    from . import daemon
    from .build import LiveUnavailable
    try:
        sc = scenarios.load(args.scenario)
    except scenarios.ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    kubeconfig = args.kubeconfig
    kubelet = args.kubeconfig is None or args.kit_kubelet  # a user's cluster runs its own kubelet
    st = daemon.status()
    if kubeconfig is None:
        if not st or not st["ready"]:
            raise LiveUnavailable("no local control plane is running: `stsedu live up`, or name a cluster with --kubeconfig")
        kubeconfig = st["kubeconfig"]
    from .kubelet import served_by_background
    if (kubelet and args.namespace and served_by_background(args.namespace) and st and st["ready"]
            and st.get("kubelet") and kubeconfig == st["kubeconfig"]):
        raise LiveUnavailable(f"namespace {args.namespace} is run by `stsedu live up`'s kubelet; a second one would "
                              f"fight it: leave out --namespace (a new stsedu-live-... one), or `stsedu live up --no-kubelet`")
    if kubelet and sc.cluster_options.get("kubelet") == "manual":
        kubelet = "manual"
    if getattr(args, "kubelet", "kit") == "kwok":
        from .build import kwok_missing_reason
        if kwok_missing_reason():
            raise LiveUnavailable(kwok_missing_reason())
        kubelet = "kwok"
    from ..sim.kubelet import StageProfile
    stages = StageProfile.from_dict(sc.cluster_options.get("stages"))
    watchdog = daemon.Watchdog(st) if args.kubeconfig is None else None
    try:
        return _run_session(args, out, sc, kubeconfig, kubelet, stages)
    except BaseException as e:
        import urllib3
        if watchdog is not None and watchdog.stop():
            raise daemon.PlaneStopped(daemon.stopped_reason()) from None
        if isinstance(e, urllib3.exceptions.HTTPError):
            raise daemon.PlaneStopped(f"the cluster stopped answering during the run: "
                                      f"{str(e).splitlines()[0][:200]}") from None
        raise
    finally:
        if watchdog is not None:
            watchdog.stop()


def _run_session(args, out, sc, kubeconfig, kubelet, stages) -> int:
    from .runner import LiveSession, differences, order_free, play, play_kit
    with LiveSession(kubeconfig, args.context, args.namespace, kubelet=kubelet, stages=stages) as s:
        who = {"kwok": "KWOK as the", False: "the cluster's"}.get(kubelet, "the kit's")
        out.write(f"playing {sc.name} in namespace {s.namespace} ({who} kubelet)\n")
        run = play(sc, s)
        for v, k, n, what in run.writes:
            out.write(f"{v:<7}{k:<22}{n}{'  (' + what + ')' if what else ''}\n")
        for line in run.skipped:
            out.write(f"skipped: {line}\n")
        out.write("\n" + s.kubectl("get", "sts,pods,pvc", check=False).stdout)
        if args.trace:
            run.trace.save(args.trace)
            out.write(f"trace written to {args.trace}\n")
        if args.compare:
            kit = play_kit(sc)
            diffs = differences(kit, run, **order_free(sc))
            out.write("".join(f"differs: {d}\n" for d in diffs) + summary(kit, run, diffs) + "\n")
            return 1 if diffs else 0
    return 0


def summary(kit, live, diffs: list[str]) -> str:
    """One line: what the comparison of one run of controller behaviour compared, and its verdict."""
    pairs = list(zip(kit.points, live.points))
    texts = sum(len(set(k.get("texts") or ()) & set(l.get("texts") or ())) for k, l in pairs)
    head = (f"controller behaviour: {len(pairs)} points compared (pods, claims, revisions, set status; "
            f"{len(live.pod_changes)} pod creates/deletes in order; {texts} kubectl outputs)")
    return head + (": the kit and the real control plane agree at every stable point" if not diffs
                   else f": {len(diffs)} difference{'s' if len(diffs) != 1 else ''}")
