"""The benchmark server written with the official MCP Python SDK (PyPI `mcp` 2.3.0).

Behaviourally equivalent to `bench/src/bin/rounds-server.rs`: the tools `echo` and the
two-round `confirm_echo`, served statelessly at protocol revision 2026-07-28 over stdio
(`--stdio`) or Streamable HTTP (`--listen HOST:PORT`, endpoint `/mcp`).

SDK surface used, all public:
- `MCPServer` with `@mcp.tool(...)` decorators (the documented high-level API). The tools
  are `async def`: the SDK runs a plain `def` tool in a worker thread (`anyio.to_thread`).
- MRTR the way the SDK documents for hand-driven rounds: the tool returns an
  `InputRequiredResult` (its `inputRequests` key chosen here: `confirm`) and reads the
  retry's answers from `ctx.input_responses` and its echoed state from `ctx.request_state`.
  (The SDK's other MRTR style, `Resolve(...)`/`Elicit(...)` resolvers, names the wire key
  after the resolver's `module:qualname`, so it cannot produce the key `confirm`.)
- `RequestStateSecurity(keys=[...])`: the SDK's own `requestState` protection
  (AES-256-GCM, bound to method, tool name, argument digest, audience and a 10-minute
  expiry), installed by `MCPServer` and applied to every `input_required` result, here
  under a fixed key so that state survives a restart, as a multi-worker deployment needs.
- `streamable_http_app(json_response=True, stateless_http=True)` served by uvicorn.
"""

from __future__ import annotations

import argparse
import sys
from typing import Annotated

from mcp.server import CacheHint, MCPServer
from mcp.server.mcpserver import Context, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    ClientCapabilities,
    ElicitationCapability,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    FormElicitationCapability,
    InputRequiredResult,
    MissingRequiredClientCapabilityErrorData,
    ToolAnnotations,
)
from pydantic import BaseModel, ConfigDict, Field, ValidationError

# The same fixed 32-byte key rounds-server uses (`[7u8; 32]`); a deployment would load it
# from its secret store.
STATE_KEY = bytes([7] * 32)

# Same freshness hints as rounds-server puts on `server/discover` and `tools/list`.
LIST_HINT = CacheHint(ttl_ms=300_000, scope="public")

mcp = MCPServer(
    "bench-python",
    version="1.0.0",
    request_state_security=RequestStateSecurity(keys=[STATE_KEY]),
    cache_hints={"server/discover": LIST_HINT, "tools/list": LIST_HINT},
)


class Confirm(BaseModel):
    """The form `confirm_echo` asks the user to fill in."""

    model_config = ConfigDict(strict=True)

    confirm: bool = Field(description="Echo it?")


CONFIRM_SCHEMA = {
    "type": "object",
    "properties": {"confirm": {"type": "boolean", "description": "Echo it?"}},
    "required": ["confirm"],
}

# Plaintext `requestState`; the SDK seals it on the way out and unseals (verifies) it on
# the way back in, so the tool only ever sees a value it minted itself.
ASKED = "confirm_echo:ask"

Text = Annotated[str, Field(description="What to echo.")]
READ_ONLY = ToolAnnotations(read_only_hint=True)


@mcp.tool(annotations=READ_ONLY, structured_output=False)
async def echo(text: Text) -> str:
    """Echoes the text back."""
    return text


@mcp.tool(annotations=READ_ONLY, structured_output=False)
async def confirm_echo(text: Text, ctx: Context) -> str | InputRequiredResult:
    """Echoes the text back once the user confirms."""
    answer = (ctx.input_responses or {}).get("confirm")
    if ctx.request_state == ASKED and answer is not None:
        if not isinstance(answer, ElicitResult):
            raise MCPError(code=INVALID_PARAMS, message="inputResponses.confirm must be an elicitation result")
        if answer.action != "accept":
            return "not confirmed"
        try:
            form = Confirm.model_validate(answer.content or {})
        except ValidationError:
            raise MCPError(
                code=INVALID_PARAMS,
                message="Form answer `confirm` does not match the requested schema",
                data={"field": "inputResponses.confirm"},
            ) from None
        return text if form.confirm else "not confirmed"

    # First round (or a retry without the answer): ask, if this request lets us.
    elicitation = ctx.client_capabilities.elicitation if ctx.client_capabilities else None
    if elicitation is None or (elicitation.form is None and elicitation.url is not None):
        required = ClientCapabilities(elicitation=ElicitationCapability(form=FormElicitationCapability()))
        raise MCPError(
            code=MISSING_REQUIRED_CLIENT_CAPABILITY,
            message="Server requires the elicitation capability for this request",
            data=MissingRequiredClientCapabilityErrorData(required_capabilities=required).model_dump(
                by_alias=True, mode="json", exclude_none=True
            ),
        )
    return InputRequiredResult(
        input_requests={
            "confirm": ElicitRequest(
                params=ElicitRequestFormParams(message="Echo it?", requested_schema=CONFIRM_SCHEMA)
            )
        },
        request_state=ASKED,
    )


def serve_http(address: str) -> None:
    import anyio
    import uvicorn

    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        sys.exit(f"--listen wants HOST:PORT, got {address!r}")
    host = host.strip("[]")

    app = mcp.streamable_http_app(json_response=True, stateless_http=True, host=host)

    class Server(uvicorn.Server):
        """Reports the bound address (port 0 picks a free port) once accepting connections."""

        async def startup(self, sockets=None):  # type: ignore[no-untyped-def]
            await super().startup(sockets=sockets)
            if self.started:
                bound = self.servers[0].sockets[0].getsockname()
                shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
                print(f"listening on http://{shown}:{bound[1]}/mcp", file=sys.stderr, flush=True)

    # uvicorn defaults (h11, asyncio loop, info-level lifecycle messages), minus the
    # per-request access log, as one runs it in production behind a proxy.
    config = uvicorn.Config(app, host=host, port=int(port), access_log=False)
    anyio.run(Server(config).serve)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stdio", action="store_true", help="Serve stdin and stdout.")
    parser.add_argument("--listen", metavar="HOST:PORT", help="Serve Streamable HTTP here (path /mcp).")
    args = parser.parse_args()
    if args.listen and not args.stdio:
        serve_http(args.listen)
    else:
        mcp.run("stdio")


if __name__ == "__main__":
    main()
