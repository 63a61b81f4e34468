// client.mjs drives `herd mcp` with the official TypeScript MCP SDK over
// stdio: it lists the tools, checks their annotations, calls list_worlds,
// a run and a refused run, and prints one JSON line of what it saw for
// the Go test (TestMCPTypeScriptClient) to judge.
//
//   node client.mjs SDK_DIR HERD_BINARY RESULTS_DIR
//
// SDK_DIR is the folder npm installed @modelcontextprotocol/sdk into
// (npm install --prefix SDK_DIR @modelcontextprotocol/sdk); the SDK is
// imported from there, so nothing is installed beside the repository.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [sdkDir, herd, resultsDir] = process.argv.slice(2);
if (!sdkDir || !herd || !resultsDir) {
  console.error("usage: node client.mjs SDK_DIR HERD_BINARY RESULTS_DIR");
  process.exit(2);
}
const sdk = join(sdkDir, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm");
const { Client } = await import(pathToFileURL(join(sdk, "client", "index.js")).href);
const { StdioClientTransport } = await import(pathToFileURL(join(sdk, "client", "stdio.js")).href);

const transport = new StdioClientTransport({
  command: herd,
  args: ["mcp", "--world", "mock:crm", "--results-dir", resultsDir, "--max-agents", "5000", "--workers", "1", "--log-level", "warn"],
  stderr: "inherit",
});
const client = new Client({ name: "herd-ts-test", version: "1.0.0" });
await client.connect(transport);

const out = {};
const { tools } = await client.listTools();
out.tools = Object.fromEntries(tools.map((t) => [t.name, t.annotations ?? null]));

const worlds = await client.callTool({ name: "list_worlds", arguments: {} });
out.worlds = worlds.structuredContent.worlds.map((w) => w.name);

let progress = 0;
const run = await client.callTool(
  { name: "run_swarm", arguments: { world: "crm", agents: 300, seed: 5 } },
  undefined,
  { onprogress: () => { progress++; } },
);
out.run = {
  isError: run.isError ?? false,
  seed: run.structuredContent.seed,
  command: run.structuredContent.command,
  episodes: run.structuredContent.episodes,
  run_id: run.structuredContent.run_id,
  text: run.content[0].text.split("\n")[0],
};

const refused = await client.callTool({ name: "run_swarm", arguments: { world: "crm", agents: 5001 } });
out.refused = { isError: refused.isError ?? false, text: refused.content[0].text };

const res = await client.readResource({ uri: run.structuredContent.resource });
out.resource = JSON.parse(res.contents[0].text).run.seed;

console.log(JSON.stringify(out));
await client.close();
