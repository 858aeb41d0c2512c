"""A server built on the reference Python SDK (PyPI `mcp`), for the mcp-rounds client to drive.

Its tools ask the client for input through the SDK's resolvers, which follow the protocol the
client chose: at 2026-07-28 each question comes back embedded in an `input_required` result and
the call is retried with the answers; at 2025-11-25 the server sends `elicitation/create`,
`sampling/createMessage` and `roots/list` requests of its own in the middle of the call.

- `order_drink` (argument `customer`): asks which drink (a form), then a second form that
  depends on the first answer (shots for a coffee, leaves for a tea), and returns a sentence
  built from both answers.
- `haiku` (argument `topic`): asks the client's model for a haiku and returns its text.
- `roots` (no arguments): asks the client for its roots and returns their URIs, one a line.
- `sign_in` (argument `service`): sends the user to a URL (URL-mode elicitation) and returns
  what the user did. The SDK's resolvers render forms only, so this tool asks by hand: an
  `input_required` result of its own at 2026-07-28, `ctx.elicit_url` at 2025-11-25.

Usage:
    interop_server.py --stdio [--hold-until-initialize]
    interop_server.py --http [--port N | --listen HOST:PORT]

`--hold-until-initialize` plays a server that is slow to start, without a clock: it reads
nothing until an `initialize` request arrives, then reads everything that came before it too.

Over HTTP it prints `listening on http://HOST:PORT/mcp` to stderr once the socket listens (port
0, the default, picks a free one and prints it).
"""

import argparse
import io
import json
import socket
import sys
from typing import Annotated

import anyio
import mcp_types as types
import uvicorn
from mcp.server.mcpserver import Context, Elicit, ListRoots, MCPServer, Resolve, Sample
from mcp.server.stdio import stdio_server
from mcp_types.version import is_version_at_least
from pydantic import BaseModel, Field

server = MCPServer("python-interop-server", version="2.3.0-test", log_level="WARNING")


class Drink(BaseModel):
    drink: str = Field(description="coffee or tea")


class Shots(BaseModel):
    shots: int = Field(description="How many shots of espresso")


class Leaves(BaseModel):
    leaves: str = Field(description="Which tea leaves")


async def ask_drink(customer: str) -> Elicit[Drink]:
    return Elicit(f"What would you like to drink, {customer}?", Drink)


# The second question depends on the first answer. The return type is left unannotated: the SDK
# refuses a resolver annotated with two different Elicit[...] arms.
async def ask_detail(drink: Annotated[Drink, Resolve(ask_drink)]):
    if drink.drink == "coffee":
        return Elicit("How many shots of espresso in your coffee?", Shots)
    return Elicit(f"Which leaves for your {drink.drink}?", Leaves)


@server.tool()
async def order_drink(
    customer: str,
    drink: Annotated[Drink, Resolve(ask_drink)],
    detail: Annotated[Shots | Leaves, Resolve(ask_detail)],
) -> str:
    """Takes a drink order in two questions."""
    if isinstance(detail, Shots):
        return f"{customer} ordered a {drink.drink} with {detail.shots} shots."
    return f"{customer} ordered a {drink.drink} with {detail.leaves} leaves."


async def ask_model(topic: str) -> Sample:
    prompt = types.TextContent(type="text", text=f"Write a haiku about {topic}.")
    return Sample(
        [types.SamplingMessage(role="user", content=prompt)],
        max_tokens=64,
        system_prompt="You are a poet.",
    )


@server.tool()
async def haiku(topic: str, answer: Annotated[types.CreateMessageResult, Resolve(ask_model)]) -> str:
    """Asks the client's model for a haiku."""
    text = answer.content.text if isinstance(answer.content, types.TextContent) else "(not text)"
    return f"{answer.model} wrote: {text}"


async def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool()
async def roots(listed: Annotated[types.ListRootsResult, Resolve(ask_roots)]) -> str:
    """Lists the client's roots."""
    return "\n".join(str(root.uri) for root in listed.roots)


@server.tool()
async def sign_in(service: str, ctx: Context) -> str | types.InputRequiredResult:
    """Sends the user to the service's sign-in page."""
    message = f"Sign in to {service} to continue."
    url = f"https://auth.example.com/{service}/login"
    if ctx.protocol_version is not None and is_version_at_least(ctx.protocol_version, "2026-07-28"):
        answer = (ctx.input_responses or {}).get("sign_in")
        if answer is None:
            request = types.ElicitRequest(params=types.ElicitRequestURLParams(message=message, url=url))
            return types.InputRequiredResult(input_requests={"sign_in": request}, request_state="sign-in")
        if not isinstance(answer, types.ElicitResult) or ctx.request_state != "sign-in":
            raise ValueError("the answer does not fit the question")
        action = answer.action
    else:
        action = (await ctx.elicit_url(message, url, elicitation_id=f"sign-in-{service}")).action
    return f"Sign-in to {service}: {action}."


class HeldStdin:
    """The process's stdin, held back until an `initialize` request has arrived."""

    def __init__(self) -> None:
        self._file = anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))

    def __aiter__(self):
        return self._lines()

    async def _lines(self):
        held: list[str] | None = []
        async for line in self._file:
            if held is None:
                yield line
                continue
            held.append(line)
            try:
                method = json.loads(line).get("method")
            except (ValueError, AttributeError):
                method = None
            if method == "initialize":
                for kept in held:
                    yield kept
                held = None


async def serve_stdio_held() -> None:
    lowlevel = server._lowlevel_server
    async with stdio_server(stdin=HeldStdin()) as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


def serve_http(host: str, port: int) -> None:
    app = server.streamable_http_app(host=host)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(128)
    bound_host, bound_port = listener.getsockname()[:2]
    # Connections made from now on wait in the backlog until uvicorn accepts them.
    print(f"listening on http://{bound_host}:{bound_port}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    anyio.run(lambda: uvicorn.Server(config).serve(sockets=[listener]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stdio", action="store_true")
    mode.add_argument("--http", action="store_true")
    parser.add_argument("--hold-until-initialize", action="store_true")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--listen", help="HOST:PORT (overrides --port)")
    args = parser.parse_args()
    if args.stdio and args.hold_until_initialize:
        anyio.run(serve_stdio_held)
        return
    if args.stdio:
        server.run("stdio")
        return
    host, port = "127.0.0.1", args.port
    if args.listen:
        host, _, port_text = args.listen.rpartition(":")
        port = int(port_text)
    serve_http(host, port)


if __name__ == "__main__":
    main()
