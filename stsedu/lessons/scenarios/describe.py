"""How a scenario step reads in a run's listing: one short line per action (``Step.describe``)."""

from __future__ import annotations

from typing import Any, Callable, Mapping

Step = Any
"""A :class:`stsedu.lessons.scenarios.format.Step` (not imported: format imports this module)."""


def format_value(v: Any) -> str:
    """A value as a scenario file would spell it (flow-style YAML)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(format_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{k}: {format_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _pods_text(s: Step) -> str:
    return ", ".join(s.args["pods"])


def _verb(s: Step, singular: str, plural: str | None = None) -> str:
    """*singular* for one pod; the plural form ("turns" -> "turn", "finishes" -> "finish") for several."""
    if len(s.args["pods"]) == 1:
        return singular
    if plural is not None:
        return plural
    return singular[:-2] if singular.endswith("shes") else singular[:-1]


DESCRIBE: dict[str, Callable[[Step], str]] = {
    "objects": lambda s: "apply " + ", ".join(label for label, _ in s.args["entries"]),
    "sync": lambda s: f"sync {s.set_name}" + (f" {s.args['count']} times" if s.args["count"] > 1 else ""),
    "run": lambda s: f"run {s.set_name} until stable"
                     + "".join(f", {k} {format_value(v)}" for k, v in s.args.items()),
    "run_all": lambda s: "run the whole controller (every set, one work queue) until nothing is queued"
                         + "".join(f", {k} {format_value(v)}" for k, v in s.args.items()),
    "settle": lambda s: f"settle {s.set_name} (sync, then move one pod one stage, until stable)",
    "kubelet_step": lambda s: "move one pod one stage" + (f", {s.args['count']} times"
                                                          if s.args["count"] > 1 else ""),
    "advance": lambda s: f"let {format_value(s.args['seconds'])}s pass",
    "apply": lambda s: "apply " + ", ".join(label for label, _ in s.args["entries"]),
    "scale": lambda s: f"scale {s.set_name} to {s.args['replicas']} "
                       + ("replica" if s.args["replicas"] == 1 else "replicas"),
    "patch": lambda s: f"patch {s.set_name} {format_value(s.args['patch'])}",
    "set_image": lambda s: f"set image of {s.set_name}"
                           + (f" container {s.args['container']}" if s.args["container"] else "")
                           + f" to {s.args['image']}",
    "delete_pod": lambda s: f"delete pod {_pods_text(s)}" + ("" if s.args.get("wait", True) else " --wait=false"),
    "patch_pod": lambda s: f"patch pod {s.args['pod']} {format_value(s.args['patch'])}",
    "start": lambda s: f"kubelet starts {_pods_text(s)}",
    "set_ready": lambda s: f"{_pods_text(s)} {_verb(s, 'turns')} Ready",
    "set_unready": lambda s: f"{_pods_text(s)} {_verb(s, 'turns')} not Ready",
    "fail": lambda s: f"{_pods_text(s)} {_verb(s, 'is', 'are')} evicted (phase Failed, reason Evicted)",
    "succeed": lambda s: f"{_pods_text(s)} {_verb(s, 'succeeds')}",
    "crash": lambda s: f"the container of {_pods_text(s)} exits with an error (restarted after a back-off)",
    "restart": lambda s: f"the kubelet restarts the crashed container of {_pods_text(s)}",
    "evict": lambda s: f"the kubelet evicts {_pods_text(s)}: the node is low on {s.args.get('resource', 'memory')}"
                       " (phase Failed, reason Evicted)",
    "shut_down_node": lambda s: f"the node of {_pods_text(s)} shuts down gracefully (phase Failed, reason Terminated)",
    "finish_termination": lambda s: f"{_pods_text(s)} {_verb(s, 'finishes')} terminating",
    "never_ready": lambda s: "pods " + (f"running {s.args['image']}" if "image" in s.args
                                        else s.args["pod"]) + " never become Ready",
    "crash_loop": lambda s: "the containers of pods " + (f"running {s.args['image']}" if "image" in s.args
                                                          else s.args["pod"])
                            + f" exit with an error {format_value(s.args['seconds'])}s after each start (a crash loop)",
    "fail_after": lambda s: "the containers of pods " + (f"running {s.args['image']}" if "image" in s.args
                                                          else s.args["pod"])
                            + f" exit with an error {format_value(s.args['seconds'])}s after each start (a crash loop)",
    "clear_behaviours": lambda s: "forget never_ready / crash_loop",
    "inject_error": lambda s: f"the API server fails the next {s.args['count']} "
                              f"{s.args['verb']} {s.args['kind']} request(s)",
    "rollout_undo": lambda s: f"rollout undo {s.set_name}"
                              + (f" --to-revision={s.args['to_revision']}" if s.args["to_revision"] else ""),
    "delete": lambda s: f"delete statefulset {s.set_name} --cascade={s.args['cascade']}",
    "expect": lambda s: "check",
}
