"""Drives an mcp-rounds stdio server with the reference Python client (PyPI `mcp`).

Usage: interop_client.py SERVER_BINARY [ARGS...]
Prints one JSON object describing what the client saw; exits non-zero on any failure.
"""

import json
import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def main() -> None:
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with Client(params, mode="auto") as client:
        seen: dict = {
            "protocol_version": client.protocol_version,
            "server_info": client.server_info.model_dump(by_alias=True, exclude_none=True) if client.server_info else None,
            "capabilities": client.server_capabilities.model_dump(by_alias=True, exclude_none=True),
            "instructions": client.instructions,
            "legacy": client.session.initialize_result is not None,
        }
        tools = await client.list_tools()
        seen["tools"] = [t.model_dump(by_alias=True, exclude_none=True) for t in tools.tools]
        seen["tools_cache"] = {"ttlMs": tools.ttl_ms, "cacheScope": tools.cache_scope}

        added = await client.call_tool("add", {"a": 2, "b": 40.5})
        seen["add"] = added.model_dump(by_alias=True, exclude_none=True)
        echoed = await client.call_tool("echo", {"text": "héllo ✓"})
        seen["echo"] = echoed.model_dump(by_alias=True, exclude_none=True)
        failed = await client.call_tool("fail", {})
        seen["fail"] = failed.model_dump(by_alias=True, exclude_none=True)
        try:
            await client.call_tool("no_such_tool", {})
            seen["unknown_tool"] = "no error"
        except Exception as exc:  # the SDK raises MCPError carrying the JSON-RPC error
            error = getattr(exc, "error", None)
            seen["unknown_tool"] = {"code": getattr(error, "code", None), "message": getattr(error, "message", str(exc))}
        resources = await client.list_resources()
        seen["resources"] = [r.model_dump(by_alias=True, exclude_none=True) for r in resources.resources]
        templates = await client.list_resource_templates()
        seen["templates"] = [t.model_dump(by_alias=True, exclude_none=True) for t in templates.resource_templates]
        readme = await client.read_resource("fixture://readme")
        seen["readme"] = readme.model_dump(by_alias=True, exclude_none=True)
        item = await client.read_resource("fixture://items/2")
        seen["item"] = item.model_dump(by_alias=True, exclude_none=True)
        try:
            await client.read_resource("fixture://items/99")
            seen["missing_resource"] = "no error"
        except Exception as exc:
            error = getattr(exc, "error", None)
            seen["missing_resource"] = {"code": getattr(error, "code", None), "data": getattr(error, "data", None)}
        prompts = await client.list_prompts()
        seen["prompts"] = [p.model_dump(by_alias=True, exclude_none=True) for p in prompts.prompts]
        greeting = await client.get_prompt("greet", {"name": "Ada"})
        seen["greeting"] = greeting.model_dump(by_alias=True, exclude_none=True)
    print(json.dumps(seen))


anyio.run(main)
