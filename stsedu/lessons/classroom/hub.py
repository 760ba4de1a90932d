"""A student's identity from JupyterHub, for ``stsedu class serve`` running as a hub service.

On a JupyterHub each student's server (and so their kernel) holds its own API token in
``JUPYTERHUB_API_TOKEN``; the answer cell sends it instead of a roster token.  The service asks
the hub who owns it, as JupyterHub's own ``HubAuth.user_for_token`` does: ``GET <api>/user`` with
``Authorization: token <the student's token>``, the hub's answer naming the owner.  The service
needs no token or scope of its own for that question: any valid token may ask who owns it.

The check is this module (the standard library's ``urllib``), not ``jupyterhub.services.auth``:
that is one HTTP GET, while the ``jupyterhub`` package would bring the hub itself (tornado,
alembic, oauthlib, its own event-loop thread) into every teacher's install for it.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import urllib.error
import urllib.request

CACHE_SECONDS = 300
"""How long an answer of the hub is kept (``HubAuth.cache_max_age``'s default): a student posts
many times, the hub is asked once."""
TIMEOUT = 5


class HubError(Exception):
    """The hub could not be asked (not running, not reachable, a server error): one line."""


class HubIdentity:
    """``who(token)``: the hub user (name) who owns *token*, or None for a token the hub does not know."""

    def __init__(self, api_url: str) -> None:
        self.api_url = api_url.rstrip("/")
        self._cache: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_environment(cls) -> HubIdentity | None:
        """The hub this process runs under (``JUPYTERHUB_API_URL``, set by JupyterHub for its services)."""
        url = os.environ.get("JUPYTERHUB_API_URL", "")
        return cls(url) if url else None

    def who(self, token: str) -> str | None:
        key = hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()
        with self._lock:
            hit = self._cache.get(key)
        if hit is not None and time.monotonic() - hit[0] < CACHE_SECONDS:
            return hit[1]
        name = self._ask(token)
        if name is not None:                 # (a refusal is not kept: guesses fill no memory)
            with self._lock:
                self._cache[key] = (time.monotonic(), name)
        return name

    def _ask(self, token: str) -> str | None:
        req = urllib.request.Request(f"{self.api_url}/user", headers={"Authorization": f"token {token}"})
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
                model = json.loads(resp.read(1024 * 1024).decode("utf-8"))
        except urllib.error.HTTPError as e:
            if e.code in (401, 403, 404):       # a token the hub does not know (or an expired one)
                return None
            raise HubError(f"JupyterHub at {self.api_url} answered {e.code} {e.reason}") from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise HubError(f"cannot ask JupyterHub at {self.api_url} ({getattr(e, 'reason', None) or e})") from None
        if not isinstance(model, dict) or not isinstance(model.get("name"), str):
            raise HubError(f"JupyterHub at {self.api_url} answered without a user name")
        if model.get("kind", "user") != "user":      # a service's token identifies no student
            return None
        return model["name"]
