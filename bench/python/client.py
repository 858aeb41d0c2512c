"""The bench client written with the official MCP Python SDK's client (PyPI `mcp` 2.3.0).

The same work as `bench/src/bin/rounds-client.rs` and `rmcp-client.rs`: start the server
given after `--` as a child process, settle on 2026-07-28, and call `echo` one at a time
(`sequential`), 256 at a time (`concurrent`), or `confirm_echo` one exchange at a time
(`two-round`), its `input_required` round answered by the client's own loop. Every answer is
checked. Prints one JSON line: the calls (or exchanges) completed, the wall-clock seconds
they took and this process's CPU seconds (user and system, all threads) in that stretch.

    python client.py --mode sequential --seconds 3 -- target/release/rounds-server --stdio

SDK surface used, all public:
- `Client(StdioServerParameters(...), mode="auto", elicitation_callback=...)`: the SDK's
  documented client over a child process; `auto` probes `server/discover` and stays on
  2026-07-28 with a modern server.
- `client.call_tool(name, arguments)`, which answers `InputRequiredResult` rounds (MRTR) by
  itself through the `elicitation_callback` and retries with the answers and the state.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import INVALID_PARAMS, ElicitRequestFormParams, ElicitResult, ErrorData, Implementation

WINDOW = 256
"""Calls in flight in the `concurrent` mode, as in the server rows."""


class Confirmer:
    """Answers `confirm_echo`'s form ("Echo it?") with `{"confirm": true}`, counting the forms."""

    def __init__(self) -> None:
        self.asked = 0

    async def __call__(self, context, params):  # type: ignore[no-untyped-def]
        if not isinstance(params, ElicitRequestFormParams):
            return ErrorData(code=INVALID_PARAMS, message="forms only")
        assert params.message == "Echo it?", f"the server asked another form: {params.message!r}"
        self.asked += 1
        return ElicitResult(action="accept", content={"confirm": True})


async def call(client: Client, tool: str) -> None:
    result = await client.call_tool(tool, {"text": "hi"})
    text = result.content[0].text if result.content else None
    assert text == "hi" and not result.is_error, f"{tool} answered {result!r}"


async def one_at_a_time(client: Client, tool: str, deadline: float | None, count: int | None) -> int:
    done = 0
    while (count is not None and done < count) or (count is None and time.perf_counter() < deadline):
        await call(client, tool)
        done += 1
    return done


async def in_flight(client: Client, deadline: float | None, count: int | None) -> int:
    """Echo calls from WINDOW tasks, each sending its next when its last is answered, until the
    deadline (then the calls in flight are drained) or until `count` were sent."""
    sent = 0
    done = 0

    async def worker() -> None:
        nonlocal sent, done
        while True:
            if count is not None:
                if sent >= count:
                    return
                sent += 1
            elif time.perf_counter() >= deadline:
                return
            await call(client, "echo")
            done += 1

    async with anyio.create_task_group() as tasks:
        for _ in range(WINDOW):
            tasks.start_soon(worker)
    return done


async def run(client: Client, mode: str, deadline: float | None, count: int | None) -> int:
    if mode == "sequential":
        return await one_at_a_time(client, "echo", deadline, count)
    if mode == "two-round":
        return await one_at_a_time(client, "confirm_echo", deadline, count)
    return await in_flight(client, deadline, count)


async def main(args: argparse.Namespace) -> None:
    confirmer = Confirmer()
    server = StdioServerParameters(command=args.server[0], args=args.server[1:])
    with open(os.devnull, "w") as devnull:
        # Where the server's stderr goes is `stdio_client`'s to say; `Client` takes the
        # transport it makes as it takes `StdioServerParameters`.
        async with Client(
            stdio_client(server, errlog=devnull),
            mode="auto",
            client_info=Implementation(name="bench-python-client", version="1.0.0"),
            elicitation_callback=confirmer,
        ) as client:
            if args.count is None and args.warm_up > 0:
                # Warm up: first calls pay for lazy initialization in every framework.
                await run(client, args.mode, time.perf_counter() + args.warm_up, None)
            asked = confirmer.asked
            started, cpu = time.perf_counter(), time.process_time()
            deadline = None if args.count is not None else started + (args.seconds or 3.0)
            completed = await run(client, args.mode, deadline, args.count)
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
            if args.mode == "two-round":
                forms = confirmer.asked - asked
                assert forms == completed, f"{completed} exchanges asked {forms} forms"
    line = {"client": "Python SDK", "mode": args.mode, "completed": completed, "elapsed": elapsed, "cpu": cpu}
    print(json.dumps(line), flush=True)


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["sequential", "concurrent", "two-round"], required=True)
    parser.add_argument("--seconds", type=float, help="Measure for this many seconds (after the warm-up).")
    parser.add_argument("--count", type=int, help="Measure exactly this many calls, without a warm-up.")
    parser.add_argument("--warm-up", type=float, default=0.4, help="Seconds of the same load first.")
    parser.add_argument("server", nargs="+", help="The server's command line, after --.")
    return parser.parse_args()


if __name__ == "__main__":
    anyio.run(main, parse())
    sys.exit(0)
