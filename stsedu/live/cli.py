"""``stsedu live ...``: build, start, stop and use a real control plane (docs/live.md).

* ``stsedu live build``: build etcd, kube-apiserver, kube-controller-manager and kubectl
  into the cache (about 9 minutes the first time on two cores; needs Go);
* ``stsedu live up`` / ``status`` / ``down``: a local control plane in the background;
  ``up`` prints the ``export KUBECONFIG=...`` line for kubectl and runs node ``node-1`` with the
  kit's API kubelet, so pods run (``--no-kubelet``: neither);
* ``stsedu live run SCENARIO [--kubeconfig FILE] [--context NAME]``: play a scenario's
  steps on the running local control plane, or on the cluster a kubeconfig names, and print
  what the real controller wrote.

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
    run.add_argument("--compare", action="store_true", help="also run it on the kit and compare what a learner observes")


def _run_keeping_thread_errors(args, out: TextIO) -> int:
    """``live run``, with the errors of its background threads (watches, the kubelet) held back: when
    the plane stops during the run they are its echo, and the one line of PlaneStopped says it all;
    otherwise they are printed after the run."""
    import threading
    import traceback
    from .runner import run_cli
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
            state = daemon.up(kubelet=not args.no_kubelet)
            if state.get("already"):
                out.write(f"a control plane is already up at {state['server']}: "
                          f"export KUBECONFIG={state['kubeconfig']}\n")
                return 0
            out.write(f"control plane up at {state['server']} (folder {state['workdir']})\n"
                      + (f"pods run on node node-1 with {state['kubelet']}; `stsedu live up --no-kubelet` for none\n"
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
