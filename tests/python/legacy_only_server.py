"""A 2025-11-25-only stdio server built on the reference Python SDK (PyPI `mcp`) that exits, as
some real servers of that revision do, when a client sends a request it does not know (such as
the `server/discover` probe of a 2026-07-28 client).

The SDK never exits on an unknown method (it answers -32601, and its stdio transport serves
both eras); a guard in front of the SDK's stdin reader does: any request other than
`initialize`, `ping`, `tools/list` and `tools/call` ends the process with status 1 before the
SDK sees it. Behind the guard, the SDK serves the handshake era only (its `serve_loop`).

Tool `greet` (argument `name`) answers `Hello, <name>!`.

Each start appends one line to the file named by `LEGACY_SERVER_STARTS`, if set, before
reading anything, so that a test can count how many times a client started it.

Usage: legacy_only_server.py
"""

import io
import json
import os
import sys

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server

KNOWN_REQUESTS = {"initialize", "ping", "tools/list", "tools/call"}

server = MCPServer("python-legacy-only-server", version="2.3.0-test", log_level="WARNING")


@server.tool()
def greet(name: str) -> str:
    """Greets someone."""
    return f"Hello, {name}!"


def guard(line: str) -> None:
    """Ends the process on a request whose method this server does not know."""
    try:
        message = json.loads(line)
    except ValueError:
        return
    if isinstance(message, dict) and "id" in message and message.get("method") not in KNOWN_REQUESTS:
        print(f"unknown method {message.get('method')!r}: exiting", file=sys.stderr, flush=True)
        os._exit(1)


class GuardedStdin:
    """The process's stdin, line by line, through `guard`."""

    def __init__(self) -> None:
        self._file = anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))

    def __aiter__(self):
        return self._lines()

    async def _lines(self):
        async for line in self._file:
            guard(line)
            yield line


async def main() -> None:
    lowlevel = server._lowlevel_server
    async with stdio_server(stdin=GuardedStdin()) as (read_stream, write_stream):
        async with lowlevel.lifespan(lowlevel) as state:
            await serve_loop(
                lowlevel,
                read_stream,
                write_stream,
                lifespan_state=state,
                init_options=lowlevel.create_initialization_options(),
            )


if __name__ == "__main__":
    starts = os.environ.get("LEGACY_SERVER_STARTS")
    if starts:
        with open(starts, "a", encoding="utf-8") as log:
            log.write(f"started {os.getpid()}\n")
    anyio.run(main)
