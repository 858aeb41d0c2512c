// What the MCP Apps test host loads in the browser: the official AppBridge and its
// postMessage transport, bundled with their dependencies by esbuild (see tests/src/apps_host.rs).
export { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
