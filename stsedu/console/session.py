"""A kubectl session against the embedded cluster: type a line, get what kubectl prints.

``Session().run("get pods -l app=nginx")`` parses the line as kubectl does
(:mod:`stsedu.views.kubectl.flags`), carries it out on a :class:`~stsedu.Cluster`, and returns a :class:`Result`
with kubectl's stdout, stderr and exit status.  A refused line (an unknown verb or flag, a
wrong type, a missing name, a bad patch, a file that is not there) prints kubectl's error and
changes nothing.

**Time.**  A command that changes something returns as soon as the API server has taken the
change, as kubectl does.  Before the next command runs, the cluster catches up: the
controller, the kubelet and the garbage collector run until nothing more is queued or
scheduled (:meth:`~stsedu.Cluster.run`), which is what a real cluster has done by the time a
person types the next command.  How long that took in simulated seconds is in
:attr:`Result.settled` (about 6 s for the tutorial's two-pod create with the default
kubelet stages).  ``get -w`` is the exception that makes the run visible: it prints the list,
then the watch lines while the cluster catches up, and stops when it is stable (or after
``--request-timeout``; the rest happens before the next command).  ``delete`` with the
default ``--wait=true`` returns once the object is gone; ``rollout status`` prints its line at
each change until the rollout is done.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..views.kubectl import printers as P
from ..views.kubectl.flags import MAX_OUTPUT, Help, KubectlError, Parsed, parse, split

__all__ = ["Session", "Result"]


@dataclass
class Result:
    """What one command printed: *stdout*, *stderr*, the exit *status*, and the simulated time
    it started (*start*) and ended (*end*); *settled* is how many simulated seconds the catch-up
    before it took (the previous command's effects playing out); *changed* is whether the command
    itself changed the cluster (an object, the clock or a container's files) after that catch-up."""

    command: str
    stdout: str = ""
    stderr: str = ""
    status: int = 0
    start: float = 0.0
    end: float = 0.0
    settled: float = 0.0
    changed: bool = False
    syncs: list = field(default_factory=list, repr=False)
    warned_first: bool = False
    """kubectl wrote a warning to stderr before its output (a force delete's "Warning: Immediate
    deletion ..." comes before "force deleted"): shown in that order."""

    @property
    def text(self) -> str:
        """stdout and stderr in the order a terminal shows them: stdout first, unless kubectl warned first."""
        return self.stderr + self.stdout if self.warned_first else self.stdout + self.stderr

    def __str__(self) -> str:
        return self.text

    def _repr_pretty_(self, p, cycle) -> None:  # IPython shows the text, not the dataclass
        p.text(self.text.rstrip("\n"))


MAX_STDIN = 1_000_000
CATCH_UP_SYNCS = 1000
"""Syncs one catch-up runs at most (``Cluster.run``'s default)."""
CATCH_UP_CHUNK = 2
"""A catch-up runs syncs in chunks of this many; a chunk in which every sync failed and nothing was
written, with nothing but the work queue's retries scheduled (a create the pod quota refuses,
retried with back-off), ends it: the retries would change nothing, and each sync of a large set
is costly."""
READS = ("get", "describe", "rollout status", "rollout history", "exec", "run")
"""Commands that change nothing (the others may; ``get -w`` after one shows its run from the start)."""


class Session:
    """kubectl against one embedded cluster (made with *seed*, or the *cluster* given).

    :attr:`files` is the per-claim file store ``exec`` writes and reads
    (:class:`~stsedu.views.kubectl.shell.Files`); :attr:`history` the command lines run, in order.
    """

    def __init__(self, cluster=None, seed: int = 0, namespace: str = "default") -> None:
        from ..cluster import Cluster
        from ..views.kubectl.shell import Files
        self.cluster = cluster if cluster is not None else Cluster(seed=seed)
        self.namespace = namespace
        self.files = Files()
        self.history: list[tuple[str, str | None]] = []
        self.files_read: dict[str, str] = {}
        """Path -> text of the ``-f`` files the last command read (set it to replay a command as it ran)."""
        self._dirty = False
        self._change: tuple[str, int] | None = None  # (command line, index of its first sync)
        self._watch_from: dict | None = None  # where `get -w` starts: just before the last change
        self.watch_start: dict | None = None
        self._watch_lines = (0, 0)  # watch lines so far, pod rows they were counted from

    def _watch_mark(self) -> dict:
        """What a watch opened just now would have seen first: the pods, and where the trace's watch lines are."""
        from ..views.kubectl import get as G
        c = self.cluster
        self._watch_lines = G.watch_frame_length(c.trace, self._watch_lines)
        return {"frame": self._watch_lines[0], "time": c.now, "namespace": self.namespace,
                "pods": list(c.store.list("Pod", self.namespace))}

    # ------------------------------------------------------------------ running
    def run(self, line: str, stdin: str | None = None, files: dict[str, str] | None = None) -> Result:
        """Run one kubectl command line (``kubectl`` in front is optional); *stdin* is what ``-f -`` reads;
        *files* (path -> text) are read instead of those paths on the disk."""
        c = self.cluster
        self.files_read = dict(files or {})
        res = Result(line.strip(), start=c.now)
        seen = None
        if stdin is not None and len(stdin) > MAX_STDIN:
            res.stderr, res.status = f"error: standard input is longer than {MAX_STDIN} characters\n", 1
            return res
        try:
            parsed = parse(split(line))
            parsed.line = line.strip()
            streams = (parsed.command == "get" and (parsed["watch"] or parsed["watch-only"])) or \
                (parsed.command == "rollout status" and parsed["watch"])
            if not streams:
                res.settled = self.catch_up()
                res.start = c.now
            seen = self._fingerprint()
            mark = self._watch_mark() if parsed.command not in READS else None
            before = self._change
            self.watch_start, self._watch_from = self._watch_from, None
            out = dispatch(self, parsed, stdin, res)
            if mark is not None and self._change is not before:
                self._watch_from = mark
            res.stdout += out or ""
            if parsed.command == "rollout status":  # it stopped when the rollout was done
                res.settled += self.catch_up()
        except Help as e:
            res.stdout += e.message
        except KubectlError as e:
            res.stderr += e.message if e.message.endswith("\n") else e.message + "\n"
            res.status = e.status
        except RecursionError:
            res.stderr += "error: the input is nested too deeply\n"
            res.status = 1
        except Exception as e:  # never a traceback: say what failed, as kubectl's checkErr would
            res.stderr += f"error: {type(e).__name__}: {e} (a command stsedu could not carry out)\n"
            res.status = 1
        if len(res.stdout) > MAX_OUTPUT:
            res.stdout = cut_output(res.stdout)
        res.end = c.now
        res.changed = seen is not None and self._fingerprint() != seen
        self.history.append((line.strip(), stdin))
        return res

    def _fingerprint(self) -> tuple:
        c = self.cluster
        return c.now, c.store.revision, self.files.writes

    def changed(self, parsed: Parsed) -> None:
        """Called by a verb that changed something: the cluster must catch up before the next command."""
        self._dirty = True
        self._change = (parsed.line, len(self.cluster.trace))

    def catch_up(self, until: float | None = None) -> float:
        """Let the cluster do what it would have done by now: run until nothing is queued or scheduled
        (or until time *until*).  Returns the simulated seconds that took."""
        c = self.cluster
        t0 = c.now
        done = 0
        while done < CATCH_UP_SYNCS:  # cheap when nothing is queued or scheduled
            revision = c.store.revision
            results = c.run(until=until, max_syncs=CATCH_UP_CHUNK)
            done += len(results)
            if len(results) < CATCH_UP_CHUNK:
                break  # nothing more queued or scheduled, or *until* reached
            if c.store.revision == revision and all(r.error for r in results) and all(
                    label.startswith("workqueue:") for _, label in c.clock.pending()):
                break  # only retries of a refused write (a quota) are left: they go on in the background
        if until is None or c.clock.peek() is None:
            self._dirty = False
        return c.now - t0

    def wait_gone(self, kind: str, namespace: str, name: str, uid: str) -> None:
        """Run the cluster until the object with *uid* is gone (``delete --wait=true``)."""
        c = self.cluster
        for _ in range(10_000):
            obj = c.store.get(kind, namespace, name)
            if obj is None or obj.uid != uid:
                return
            nxt = c.clock.peek()
            if nxt is None:
                c.run(max_syncs=50)
                if c.clock.peek() is None:
                    return
                continue
            c.run(until=nxt)

    # ------------------------------------------------------------------ decisions
    def last(self):
        """The decisions of the syncs the last command that changed something caused (a DataFrame,
        one row per decision: sync, time, action, pod, reason, rule, message), after letting the
        cluster catch up.  Empty before any change."""
        from ..views.tables import decisions_frame
        self.catch_up()
        trace = self.cluster.trace
        df = decisions_frame(trace)
        if self._change is None:
            return df.iloc[0:0]
        first = trace.rows()["syncs"][self._change[1]:]
        numbers = {r[0] for r in first}
        out = df[df["sync"].isin(numbers)].reset_index(drop=True)
        out.attrs["command"] = "kubectl " + self._change[0].removeprefix("kubectl ").strip()
        return out

    @property
    def last_command(self) -> str | None:
        """The last command line that changed something (``kubectl scale sts web --replicas=5``)."""
        return None if self._change is None else "kubectl " + self._change[0].removeprefix("kubectl ").strip()

    # ------------------------------------------------------------------ lookups for the verbs
    def objects(self, rtype: P.RType, namespace: str) -> list:
        """Every object of *rtype* in *namespace*, in name order (as the API server lists them)."""
        return sorted(self.cluster.store.list(rtype.kind, namespace), key=lambda o: o.name)

    def get_object(self, rtype: P.RType, namespace: str, name: str):
        obj = self.cluster.store.get(rtype.kind, namespace, name)
        if obj is None:
            raise rtype.not_found(name)
        return obj


def cut_output(text: str) -> str:
    """*text* cut after :data:`~stsedu.views.kubectl.flags.MAX_OUTPUT` characters (at a line's end
    when one is near), with a note saying so."""
    head = text[:MAX_OUTPUT]
    nl = head.rfind("\n", MAX_OUTPUT - 10_000)
    head = head[:nl + 1] if nl >= 0 else head + "\n"
    return head + (f"... (stsedu: the output was cut after {len(head)} characters, as a terminal's "
                   "scrollback would drop the rest)\n")


def dispatch(s, p: Parsed, stdin, res) -> str:
    """Run the verb of *p*; every verb takes (session, parsed, stdin, result)."""
    from ..views.kubectl import reads, shell, verbs
    if p["namespace"] != s.namespace and p.command not in ("get", "describe"):
        if p["namespace"] != "default":
            raise KubectlError(f'Error from server (NotFound): namespaces "{p["namespace"]}" not found')
    table = {
        "apply": verbs.apply, "create": verbs.create, "delete": verbs.delete, "scale": verbs.scale,
        "set image": verbs.set_image, "patch": verbs.patch, "edit": verbs.edit, "label": verbs.label,
        "annotate": verbs.annotate, "rollout undo": verbs.rollout_undo, "rollout restart": verbs.rollout_restart,
        "rollout pause": verbs.rollout_pause, "rollout resume": verbs.rollout_pause,
        "get": reads.get, "describe": reads.describe, "rollout status": reads.rollout_status,
        "rollout history": reads.rollout_history, "exec": shell.exec_, "run": shell.run,
    }
    fn = table.get(p.command)
    if fn is None:
        raise KubectlError(f"error: stsedu does not simulate 'kubectl {p.command}'")
    return fn(s, p, stdin, res)
