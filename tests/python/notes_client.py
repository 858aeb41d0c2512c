"""Drives the notes example server through its whole user-facing scenario with the reference
Python client (PyPI `mcp`), over stdio or Streamable HTTP.

Usage:
    notes_client.py WORKSPACE_URI stdio SERVER_COMMAND [ARGS...]
    notes_client.py WORKSPACE_URI http URL        (bearer token in the NOTES_TOKEN variable)

NOTES_MODEL_SUMMARY is the text the sampling callback answers the summary round with.

Prints one JSON object describing what the client saw; the caller judges it. Exits non-zero
when the scenario cannot run to its end (a call raised, or a listen event never came).
"""

import json
import os
import re
import sys
from contextlib import asynccontextmanager

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated

# Long enough for a slow CI machine, short enough that a lost event fails the test quickly.
EVENT_TIMEOUT_SECONDS = 10
CALL_TIMEOUT_SECONDS = 20

# The test chooses what the model says, so that it can recognise it in the tool's result.
SUMMARY_TEXT = os.environ["NOTES_MODEL_SUMMARY"]

seen: dict = {"elicitations": [], "samplings": [], "notifications": []}


def dump(model) -> dict:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def error_of(exc: BaseException) -> dict:
    error = getattr(exc, "error", None)
    return {
        "code": getattr(error, "code", None),
        "message": getattr(error, "message", str(exc)),
        "data": getattr(error, "data", None),
    }


def form_answer(action: str):
    """An elicitation callback that records the form and answers with `action`; an accept
    picks the second offered note, so that the test can tell a real choice from a default."""

    async def elicit(context, params):
        schema = params.requested_schema
        if not isinstance(schema, dict):
            schema = schema.model_dump(by_alias=True, exclude_none=True)
        offered = [option["const"] for option in schema["properties"]["note"]["oneOf"]]
        record = {"key": context.request_id, "message": params.message, "schema": schema, "action": action}
        seen["elicitations"].append(record)
        if action != "accept":
            return types.ElicitResult(action=action)
        record["picked"] = offered[1]
        return types.ElicitResult(action="accept", content={"note": offered[1], "confirm": True})

    return elicit


async def sample(context, params):
    """Answers the picks round with two of the offered ids (taken from the prompt) and the
    summary round with a fixed text; the round is told apart by its inputRequests key."""
    prompt = params.messages[-1].content.text
    record = {
        "key": context.request_id,
        "prompt": prompt,
        "systemPrompt": params.system_prompt,
        "maxTokens": params.max_tokens,
    }
    seen["samplings"].append(record)
    if context.request_id == "picks":
        offered = re.findall(r"^- ([a-z0-9-]+): ", prompt, flags=re.MULTILINE)
        record["offered"] = offered
        text = json.dumps(offered[-2:])
    else:
        text = SUMMARY_TEXT
    record["answer"] = text
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text=text), model="python-test-model"
    )


async def record_notification(message) -> None:
    if isinstance(message, types.ServerNotification):
        seen["notifications"].append(dump(message))


@asynccontextmanager
async def connection():
    """Yields a factory of what `Client` connects to: a stdio command line, or a fresh
    Streamable HTTP transport (each is single-use) over one HTTP client carrying the token."""
    kind = sys.argv[2]
    if kind == "stdio":
        params = StdioServerParameters(command=sys.argv[3], args=sys.argv[4:])
        yield lambda: params
    elif kind == "http":
        token = os.environ["NOTES_TOKEN"]
        # As the SDK documents for custom headers: our own client, with a read timeout long
        # enough for a listen stream that is quiet for a while.
        timeout = httpx2.Timeout(CALL_TIMEOUT_SECONDS, read=300)
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=timeout) as http:
            yield lambda: streamable_http_client(sys.argv[3], http_client=http)
    else:
        raise SystemExit(f"unknown transport {kind!r}")


async def delete_with(server, workspace: str, action: str) -> dict:
    async with Client(
        server(), read_timeout_seconds=CALL_TIMEOUT_SECONDS, elicitation_callback=form_answer(action)
    ) as client:
        result = await client.call_tool("notes_delete", {"workspaceUri": workspace, "title": "tps report"})
    return dump(result)


async def listen_for_changes(client: Client, workspace: str, subscribed: str) -> dict:
    """Opens a listen stream, changes the workspace through tools, and waits for both events."""
    out: dict = {}
    async with client.listen(resources_list_changed=True, resource_subscriptions=[subscribed]) as sub:
        out["subscription_id"] = sub.subscription_id
        out["honored"] = dump(sub.honored)
        created = await client.call_tool(
            "notes_create", {"workspaceUri": workspace, "title": "Listen probe", "body": "Made while listening."}
        )
        out["created"] = dump(created)
        edited = await client.call_tool(
            "notes_edit", {"workspaceUri": workspace, "id": subscribed.rsplit("/", 1)[1], "body": "Edited while listening."}
        )
        out["edited"] = dump(edited)
        events = []
        wanted = {ResourcesListChanged(), ResourceUpdated(uri=subscribed)}
        with anyio.fail_after(EVENT_TIMEOUT_SECONDS):
            async for event in sub:
                events.append({"type": type(event).__name__, **({"uri": event.uri} if hasattr(event, "uri") else {})})
                wanted.discard(event)
                if not wanted:
                    break
        out["events"] = events
    # The raw frames reach the message handler on a separate task; let them catch up.
    with anyio.fail_after(EVENT_TIMEOUT_SECONDS):
        while not (
            any(n["method"] == "notifications/resources/list_changed" for n in seen["notifications"])
            and any(n["method"] == "notifications/resources/updated" for n in seen["notifications"])
        ):
            await anyio.sleep(0.01)
    return out


async def main() -> None:
    workspace = sys.argv[1]
    async with connection() as server:
        async with Client(server(), read_timeout_seconds=CALL_TIMEOUT_SECONDS) as client:
            discover = client.session.discover_result
            seen["protocol_version"] = client.protocol_version
            seen["legacy"] = client.session.initialize_result is not None
            seen["supported_versions"] = discover.supported_versions if discover else None
            seen["server_info"] = dump(client.server_info) if client.server_info else None
            seen["capabilities"] = dump(client.server_capabilities)
            seen["instructions"] = client.instructions
            seen["tools"] = [dump(t) for t in (await client.list_tools()).tools]
            seen["resources"] = dump(await client.list_resources())
            seen["templates"] = [dump(t) for t in (await client.list_resource_templates()).resource_templates]
            seen["prompts"] = [dump(p) for p in (await client.list_prompts()).prompts]

        # One client per answer, as three separate user sessions would be.
        seen["delete_accept"] = await delete_with(server, workspace, "accept")
        seen["delete_decline"] = await delete_with(server, workspace, "decline")
        seen["delete_cancel"] = await delete_with(server, workspace, "cancel")

        async with Client(
            server(),
            read_timeout_seconds=CALL_TIMEOUT_SECONDS,
            sampling_callback=sample,
            message_handler=record_notification,
        ) as client:
            summary = await client.call_tool("summarize_notes", {"workspaceUri": workspace})
            seen["summary"] = dump(summary)

            listed = seen["resources"]["resources"]
            roadmap = next(r["uri"] for r in listed if r["uri"].endswith("/roadmap-meeting"))
            seen["read_listed"] = dump(await client.read_resource(roadmap))
            # A URI the client builds itself from the template rather than takes from the list.
            template = seen["templates"][0]["uriTemplate"]
            slug = roadmap.split("/")[2]
            templated = template.replace("{workspace}", slug).replace("{id}", "reading-list")
            seen["templated_uri"] = templated
            seen["read_templated"] = dump(await client.read_resource(templated))
            missing = template.replace("{workspace}", slug).replace("{id}", "no-such-note")
            try:
                await client.read_resource(missing)
                seen["read_missing"] = "no error"
            except Exception as exc:
                seen["read_missing"] = error_of(exc)

            # The skills extension's files, read as the resources they are.
            skill = next(r["uri"] for r in listed if r["uri"].startswith("skill://"))
            seen["read_skill"] = dump(await client.read_resource(skill))
            reference = skill.removesuffix("SKILL.md") + "references/cover-sheet.md"
            seen["read_skill_reference"] = dump(await client.read_resource(reference))

            seen["review"] = dump(await client.get_prompt("review_note", {"uri": roadmap}))

            seen["listen"] = await listen_for_changes(client, workspace, roadmap)
            seen["read_after_edit"] = dump(await client.read_resource(roadmap, cache_mode="bypass"))
    print(json.dumps(seen))


anyio.run(main)
