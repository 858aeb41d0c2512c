"""Drives the multi-round tools of an mcp-rounds stdio server with the reference Python client,
answering elicitations and sampling requests through the client's own callbacks.

Usage: interop_rounds.py SERVER_BINARY [ARGS...]
Prints one JSON object describing what the client saw; exits non-zero on any failure.
"""

import json
import sys

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters

seen: dict = {"elicitations": [], "samplings": []}


async def elicit(context, params):
    schema = params.requested_schema
    if not isinstance(schema, dict):
        schema = schema.model_dump(by_alias=True, exclude_none=True)
    seen["elicitations"].append({"message": params.message, "schema": schema})
    first = schema["properties"]["note"]["oneOf"][0]["const"]
    return types.ElicitResult(action="accept", content={"note": first, "confirm": True})


async def sample(context, params):
    prompt = params.messages[-1].content.text
    seen["samplings"].append(prompt)
    text = '["q1"]' if "JSON array" in prompt else "Quarterly numbers."
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text=text), model="python-test-model"
    )


async def main() -> None:
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with Client(params, mode="auto", elicitation_callback=elicit, sampling_callback=sample) as client:
        deleted = await client.call_tool("notes_delete", {"title": "tps report"})
        seen["deleted"] = deleted.model_dump(by_alias=True, exclude_none=True)
        summary = await client.call_tool("notes_summarize", {})
        seen["summary"] = summary.model_dump(by_alias=True, exclude_none=True)
    async with Client(params, mode="auto") as plain:
        try:
            await plain.call_tool("notes_delete", {"title": "tps report"})
            seen["without_elicitation"] = "no error"
        except Exception as exc:
            error = getattr(exc, "error", None)
            seen["without_elicitation"] = {"code": getattr(error, "code", None), "data": getattr(error, "data", None)}
    print(json.dumps(seen))


anyio.run(main)
