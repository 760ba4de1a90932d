"""The API server's answers as typed errors: ``stsedu.api.errors`` reads them as
``k8s.io/apimachinery/pkg/api/errors`` reads a ``StatusError`` (reason, then code)."""

from __future__ import annotations

import pytest

from stsedu.api.errors import (APIError, WrappedError, is_already_exists, is_conflict, is_invalid, is_not_found,
                               is_too_many_requests)


def test_an_answer_keeps_its_reason_and_code():
    """NewConflict, NewNotFound, NewAlreadyExists, NewInvalid: the reason and the HTTP code."""
    got = {reason: APIError("update", "Pod", "web-0", reason=reason).code
           for reason in ("Conflict", "NotFound", "AlreadyExists", "Invalid", "InternalError")}
    assert got == {"Conflict": 409, "NotFound": 404, "AlreadyExists": 409, "Invalid": 422, "InternalError": 500}


@pytest.mark.parametrize("predicate, reason, code", [
    (is_conflict, "Conflict", 409), (is_not_found, "NotFound", 404), (is_invalid, "Invalid", 422)])
def test_predicates_read_the_reason_then_the_code_of_an_unknown_reason(predicate, reason, code):
    """IsConflict/IsNotFound/IsInvalid: the reason, or the code when the reason is not one
    apimachinery knows; never for another known reason of the same code, nor for None."""
    assert predicate(APIError("update", "Pod", "web-0", reason=reason))
    assert predicate(APIError("update", "Pod", "web-0", reason="SomethingNew", code=code))
    assert not predicate(APIError("update", "Pod", "web-0", reason="InternalError", code=code))
    assert not predicate(None)


def test_already_exists_is_read_by_its_reason_only():
    """IsAlreadyExists compares the reason alone: a Conflict (409 too) is not AlreadyExists."""
    assert is_already_exists(APIError("create", "Pod", "web-0", reason="AlreadyExists"))
    assert not is_already_exists(APIError("create", "Pod", "web-0", reason="Conflict"))
    assert not is_conflict(APIError("create", "Pod", "web-0", reason="AlreadyExists"))


def test_too_many_requests_is_read_by_its_reason_or_any_429():
    """IsTooManyRequests: the reason TooManyRequests, or code 429 whatever the reason (apimachinery reads
    the status code itself there, not only for reasons it does not know); through a wrap too."""
    assert is_too_many_requests(APIError("create", "Pod", "web-0", reason="TooManyRequests"))
    assert is_too_many_requests(APIError("create", "Pod", "web-0", reason="InternalError", code=429))
    assert is_too_many_requests(WrappedError("could not create", APIError("create", "Pod", "web-0",
                                                                          reason="TooManyRequests")))
    assert not is_too_many_requests(APIError("create", "Pod", "web-0", reason="Forbidden",
                                             message="TooManyRequests in the words only"))
    assert not is_too_many_requests(WrappedError("TooManyRequests")) and not is_too_many_requests(None)


def test_a_wrapped_answer_is_still_read_and_the_message_is_not():
    """errors.As sees through %w (Python's ``raise ... from``); the text of a message is never read."""
    try:
        try:
            raise APIError("update", "PersistentVolumeClaim", "data-web-0", reason="Conflict")
        except APIError as e:
            raise RuntimeError("could not update claim data-web-0 for delete policy ownerRefs") from e
    except RuntimeError as wrapped:
        assert is_conflict(wrapped)
    worded = APIError("update", "Pod", "web-0", reason="InternalError",
                      message="Operation cannot be fulfilled on pods \"web-0\"")
    assert not is_conflict(worded)
    client_side = APIError("update", "ControllerRevision", "", reason="", message="resource name may not be empty")
    assert client_side.code == 0 and not is_conflict(client_side) and not is_not_found(client_side)



def test_a_refused_row_keeps_the_answer_without_where_it_was_raised():
    """A decision refused by the API server keeps the answer (reason, code, words) for the
    predicates, not the traceback of the sync that raised it (rows live as long as the trace)."""
    from stsedu.controller.decisions import decision, refused
    row = decision(action="update", pod="web-0", reason="identity", message="Repair web-0.", rule="identity")
    try:
        raise APIError("update", "Pod", "web-0", reason="Conflict")
    except APIError as e:
        row = refused(row, e)
    assert is_conflict(row.cause) and row.cause.code == 409 and str(row.cause) == row.error
    assert row.cause.__traceback__ is None and row.applied is False
