// The host page: it frames the sandbox proxy (another origin), hands the view its HTML through
// the official AppBridge, then the tool input and the tool's real result, and forwards the
// view's tool calls to the backend. The backend holds the MCP client; this page never talks to
// the server itself.
import { AppBridge, PostMessageTransport } from "/app-bridge.js";

const state = (text) => {
  document.getElementById("state").textContent = text;
  document.body.dataset.state = text;
};

async function callTool(params, signal) {
  const response = await fetch("/api/tools/call", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name: params.name, arguments: params.arguments ?? {} }),
    signal,
  });
  if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
  return response.json();
}

async function main() {
  const config = await (await fetch("/api/config")).json();
  const render = await (await fetch("/api/render")).json();
  document.getElementById("tool").textContent = `Result of a tool call, with its view`;

  const frame = document.createElement("iframe");
  frame.id = "frame";
  if (render.prefersBorder) frame.className = "bordered";
  // The specification asks for exactly these on the proxy's frame.
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  document.getElementById("slot").append(frame);

  const bridge = new AppBridge(
    null,
    { name: "mcp-rounds-test-host", version: "1.0.0" },
    { serverTools: {}, logging: {} },
    { hostContext: { theme: "light", displayMode: "inline", availableDisplayModes: ["inline"], platform: "web",
                     locale: "en-US", containerDimensions: { width: 640, maxHeight: 800 } } },
  );
  bridge.oncalltool = (params, extra) => callTool(params, extra.mcpReq.signal);
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${Math.min(height, 800)}px`;
  };
  bridge.onsandboxready = () => {
    bridge.sendSandboxResourceReady({ html: render.html, csp: render.csp ?? undefined,
                                      permissions: render.permissions ?? undefined });
  };
  bridge.oninitialized = () => {
    state("view initialized");
    bridge.sendToolInput(render.toolInput);
    bridge.sendToolResult(render.toolResult);
    state("tool result sent");
  };
  // Connected before the proxy loads, so that its ready notification is not missed.
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.src = config.sandbox;
  state("proxy loading");
}

main().catch((error) => {
  console.error("[host]", error);
  state(`error: ${error?.message ?? error}`);
});
