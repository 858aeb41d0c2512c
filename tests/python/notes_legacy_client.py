"""Drives the notes example server as a legacy client would: the reference Python client (PyPI
`mcp`) forced to the handshake era (protocol 2025-11-25: `initialize`, then
`notifications/initialized`; over HTTP an `Mcp-Session-Id` session, a GET stream, a DELETE at
the end), over stdio or Streamable HTTP.

Usage:
    notes_legacy_client.py WORKSPACE_URI stdio SERVER_COMMAND [ARGS...]
    notes_legacy_client.py WORKSPACE_URI http URL [TOKEN]   (else the token is in NOTES_TOKEN)

The scenario, on one legacy session: initialize, list the tools, then for each answer (accept,
decline, cancel) create a note of its own and call `notes_delete` on it; the server asks for
confirmation with a live `elicitation/create` request, which the callback answers with that
action (an accept picks the created note and confirms, with the form's `note` and `confirm`
fields).

Prints one JSON object describing what the client saw (over HTTP also every HTTP exchange, the
closing DELETE included); the caller judges it. Exits non-zero when the scenario cannot run to
its end (the handshake or a call raised).
"""

import json
import os
import sys
from contextlib import asynccontextmanager

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

# Long enough for a slow CI machine, short enough that a lost answer fails the test quickly.
CALL_TIMEOUT_SECONDS = 20

# One note per answer; each title matches only its own note, so each form offers exactly one.
ACTIONS = {
    "accept": "Legacy probe accept",
    "decline": "Legacy probe decline",
    "cancel": "Legacy probe cancel",
}

seen: dict = {"elicitations": [], "notifications": [], "http": []}

# What the elicitation callback answers next, and the id of the note it should pick.
answer: dict = {"action": None, "note": None}


def dump(model) -> dict:
    """The fields the server actually sent: defaults the SDK fills in (a `resultType` of
    "complete", an `isError` of false) are left out unless they were on the wire."""
    return model.model_dump(by_alias=True, mode="json", exclude_unset=True)


async def elicit(context, params):
    """Records the request as sent (unset defaults left out) and answers with the current action;
    an accept picks the note just created and confirms it."""
    action = answer["action"]
    record = {
        "request_id": context.request_id,
        "params": params.model_dump(by_alias=True, mode="json", exclude_unset=True),
        "action": action,
    }
    seen["elicitations"].append(record)
    if action != "accept":
        return types.ElicitResult(action=action)
    schema = getattr(params, "requested_schema", None) or {}
    offered = [option.get("const") for option in schema.get("properties", {}).get("note", {}).get("oneOf", [])]
    record["offered"] = offered
    picked = answer["note"] if answer["note"] in offered else (offered[0] if offered else answer["note"])
    record["picked"] = picked
    return types.ElicitResult(action="accept", content={"note": picked, "confirm": True})


async def record_message(message) -> None:
    if isinstance(message, types.ServerNotification):
        seen["notifications"].append(message.model_dump(by_alias=True, mode="json", exclude_none=True))
    elif isinstance(message, Exception):
        seen["notifications"].append({"transport_error": repr(message)})


# The HTTP headers worth reporting, lower-case (never Authorization).
REQUEST_HEADERS = ("accept", "content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id")
RESPONSE_HEADERS = ("content-type", "mcp-session-id")


async def on_request(request: httpx2.Request) -> None:
    body = None
    if request.method == "POST":
        try:
            message = json.loads(request.content)
            body = {k: message[k] for k in ("id", "method") if k in message}
            if "result" in message or "error" in message:
                body["kind"] = "result" if "result" in message else "error"
        except (ValueError, TypeError):
            body = None
    request.extensions["mcp_log"] = {
        "method": request.method,
        "message": body,
        "request_headers": {k: request.headers[k] for k in REQUEST_HEADERS if k in request.headers},
    }


async def on_response(response: httpx2.Response) -> None:
    entry = dict(response.request.extensions.get("mcp_log", {"method": response.request.method}))
    entry["status"] = response.status_code
    entry["response_headers"] = {k: response.headers[k] for k in RESPONSE_HEADERS if k in response.headers}
    seen["http"].append(entry)


@asynccontextmanager
async def connection():
    """Yields what `Client` connects to: a stdio command line, or a Streamable HTTP transport
    over an HTTP client that carries the bearer token and logs every exchange."""
    kind = sys.argv[2]
    if kind == "stdio":
        yield StdioServerParameters(command=sys.argv[3], args=sys.argv[4:])
    elif kind == "http":
        token = sys.argv[4] if len(sys.argv) > 4 else os.environ["NOTES_TOKEN"]
        # As the SDK documents for custom headers: our own client. The GET stream may stay
        # quiet for the whole scenario, hence the long read timeout.
        timeout = httpx2.Timeout(CALL_TIMEOUT_SECONDS, read=300)
        async with httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"},
            timeout=timeout,
            event_hooks={"request": [on_request], "response": [on_response]},
        ) as http:
            # terminate_on_close (the default) sends DELETE with the session id at the end.
            yield streamable_http_client(sys.argv[3], http_client=http)
    else:
        raise SystemExit(f"unknown transport {kind!r}")


async def main() -> None:
    workspace = sys.argv[1]
    async with connection() as server:
        async with Client(
            server,
            mode="legacy",  # initialize handshake at 2025-11-25, no server/discover probe
            read_timeout_seconds=CALL_TIMEOUT_SECONDS,
            elicitation_callback=elicit,  # declares {"elicitation": {"form": {}, "url": {}}}
            message_handler=record_message,
            cache=None,  # no 2026 response cache: every listing goes to the server
            client_info=types.Implementation(name="notes-legacy-client", version="1.0.0"),
        ) as client:
            init = client.session.initialize_result
            seen["protocol_version"] = client.protocol_version
            seen["legacy"] = init is not None and client.session.discover_result is None
            seen["initialize_result"] = dump(init) if init else None
            seen["server_info"] = dump(client.server_info) if client.server_info else None
            seen["capabilities"] = dump(client.server_capabilities)
            seen["instructions"] = client.instructions
            listing = dump(await client.list_tools())
            seen["tools"] = listing.pop("tools")
            seen["tools_result"] = listing  # the listing's other fields, as sent

            deletes: dict = {}
            for action, title in ACTIONS.items():
                created = await client.call_tool(
                    "notes_create", {"workspaceUri": workspace, "title": title, "body": f"Made to be deleted, answering {action}."}
                )
                created_seen = dump(created)
                note_id = (created.structured_content or {}).get("id")
                answer.update(action=action, note=note_id)
                before = len(seen["elicitations"])
                result = await client.call_tool("notes_delete", {"workspaceUri": workspace, "title": title})
                deletes[action] = {
                    "created": created_seen,
                    "elicitations": seen["elicitations"][before:],
                    "result": dump(result),
                }
            seen["deletes"] = deletes
            answer.update(action=None, note=None)
    # Over HTTP the transport has sent its DELETE by now; the log above shows it.
    if sys.argv[2] != "http":
        del seen["http"]
    print(json.dumps(seen))


anyio.run(main)
