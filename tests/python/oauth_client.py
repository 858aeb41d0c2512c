"""Drives the notes server behind an OAuth 2.1 authorization server with the reference Python
client (PyPI `mcp`): its client-credentials provider discovers the protected resource metadata
from the server's 401, gets a token for the server (resource indicator), and steps up when a
403 asks for more scope.

Usage:
    oauth_client.py SERVER_URL ISSUER WORKSPACE_URI

Client ids and secrets come from NOTES_FULL_CLIENT (id:secret, allowed notes:read and
notes:write) and NOTES_READER_CLIENT (id:secret, allowed notes:read only). The authorization
server rotates its signing keys when this script POSTs to ISSUER/__control/rotate.

Prints one JSON object describing what the client saw (every response of the MCP server with
its status and challenge, and each call's outcome); the caller judges it.
"""

import json
import os
import sys

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.auth import TokenStorage
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

CALL_TIMEOUT_SECONDS = 20

SERVER_URL, ISSUER, WORKSPACE = sys.argv[1:4]

seen: dict = {"responses": []}


class MemoryStorage(TokenStorage):
    """Tokens kept in memory, as a short-lived agent would; `granted` records every token's scope."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None
        self.granted: list = []

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.granted.append(tokens.scope)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


def dump(model) -> dict:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def error_of(exc: BaseException) -> dict:
    # Errors raised inside a task group arrive grouped; the first one is the cause.
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    error = getattr(exc, "error", None)
    return {"type": type(exc).__name__, "code": getattr(error, "code", None), "message": str(exc)}


async def record(response: httpx2.Response) -> None:
    """Every answer of the MCP server (not of the authorization server), in order."""
    url = str(response.request.url)
    if url.startswith(ISSUER):
        return
    seen["responses"].append(
        {
            "who": seen.get("who"),
            "method": response.request.method,
            "path": response.request.url.path,
            "name": response.request.headers.get("mcp-name"),
            "status": response.status_code,
            "www_authenticate": response.headers.get("www-authenticate"),
        }
    )


def credentials(variable: str) -> tuple:
    client_id, secret = os.environ[variable].split(":", 1)
    return client_id, secret


def connect(who: str, variable: str, storage: MemoryStorage, **callbacks):
    client_id, secret = credentials(variable)
    provider = ClientCredentialsOAuthProvider(
        server_url=SERVER_URL, storage=storage, client_id=client_id, client_secret=secret, issuer=ISSUER
    )
    http = httpx2.AsyncClient(
        auth=provider, timeout=httpx2.Timeout(CALL_TIMEOUT_SECONDS), event_hooks={"response": [record]}
    )
    seen["who"] = who
    return http, Client(
        streamable_http_client(SERVER_URL, http_client=http), read_timeout_seconds=CALL_TIMEOUT_SECONDS, **callbacks
    )


async def confirm_the_probe(context, params):
    """Accepts the delete of the note this script created (the only one its title matches)."""
    schema = params.requested_schema
    if not isinstance(schema, dict):
        schema = schema.model_dump(by_alias=True, exclude_none=True)
    offered = [option["const"] for option in schema["properties"]["note"]["oneOf"]]
    seen["elicited"] = offered
    return types.ElicitResult(action="accept", content={"note": offered[0], "confirm": True})


async def attempt(outcomes: dict, name: str, call) -> None:
    """Runs `call(client)` on a fresh reader client; what it returned or raised goes in
    `outcomes[name]`. A failed step-up surfaces from the transport's task group when the
    client closes, so the whole connection is inside the try."""
    storage = MemoryStorage()
    http, client = connect("reader", "NOTES_READER_CLIENT", storage, elicitation_callback=confirm_the_probe)
    try:
        async with http, client:
            outcomes[name] = dump(await call(client))
    except Exception as exc:  # noqa: BLE001 - the caller judges what was raised
        outcomes[name] = {"raised": error_of(exc)}
    outcomes.setdefault("granted", []).extend(storage.granted)


async def full_client() -> None:
    """Everything, with a client allowed both scopes: its first token has what the 401 asked for
    (notes:read); the first write steps it up."""
    storage = MemoryStorage()
    out: dict = {}
    http, client = connect("full", "NOTES_FULL_CLIENT", storage, elicitation_callback=confirm_the_probe)
    async with http, client:
        out["tools"] = [tool.name for tool in (await client.list_tools()).tools]
        listed = await client.call_tool("notes_list", {"workspaceUri": WORKSPACE})
        out["list"] = dump(listed)
        out["resources"] = [r.uri for r in (await client.list_resources()).resources]
        out["read"] = dump(await client.read_resource("notes://workspace/roadmap-meeting"))
        created = await client.call_tool(
            "notes_create", {"workspaceUri": WORKSPACE, "title": "OAuth probe", "body": "Written with a token."}
        )
        out["create"] = dump(created)
        out["delete"] = dump(await client.call_tool("notes_delete", {"workspaceUri": WORKSPACE, "title": "oauth probe"}))
    out["granted"] = storage.granted
    seen["full"] = out


async def reader_client() -> None:
    """A client the authorization server allows notes:read only: reads work, writes are refused
    with 403, and its step-up cannot get it more."""
    out: dict = {}
    await attempt(out, "list", lambda client: client.call_tool("notes_list", {"workspaceUri": WORKSPACE}))
    for tool, arguments in [
        ("notes_create", {"workspaceUri": WORKSPACE, "title": "Reader probe", "body": "Must not exist."}),
        ("notes_edit", {"workspaceUri": WORKSPACE, "id": "reading-list", "body": "Must not change."}),
        ("notes_delete", {"workspaceUri": WORKSPACE, "title": "tps report"}),
    ]:
        await attempt(out, tool, lambda client, tool=tool, arguments=arguments: client.call_tool(tool, arguments))
    seen["reader"] = out


async def after_rotation() -> None:
    """The authorization server rotates its keys while the notes server runs; a new client's
    token, signed with a new key, is accepted."""
    async with httpx2.AsyncClient() as http:
        rotated = await http.post(f"{ISSUER}/__control/rotate")
        rotated.raise_for_status()
        seen["rotated_kids"] = [key["kid"] for key in rotated.json()]
    storage = MemoryStorage()
    out: dict = {}
    http, client = connect("rotated", "NOTES_FULL_CLIENT", storage)
    async with http, client:
        out["list"] = dump(await client.call_tool("notes_list", {"workspaceUri": WORKSPACE}))
    out["token"] = storage.tokens.access_token if storage.tokens else None
    seen["rotated"] = out


async def main() -> None:
    await full_client()
    await reader_client()
    await after_rotation()
    print(json.dumps(seen))


anyio.run(main)
