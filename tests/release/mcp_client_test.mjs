// The official MCP TypeScript SDK as the client of `tracelint mcp` over stdio
// (tests/release/release_test.sh): it connects and negotiates, lists the
// tools, runs analyze on a corpus trace (or the repo's example when the
// corpus is absent) and validates the structured content against the tool's
// output schema (the SDK's own check, and Ajv's explicitly), and is refused a
// path outside the roots.
//   node mcp_client_test.mjs TRACELINT_BINARY [CORPUS_DIR]
// Prints "ok <check>" per check; exits 1 on the first failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Ajv from "ajv";
import path from "node:path";

const [binary, corpus] = process.argv.slice(2);
const repo = process.env.TRACELINT_ROOT;
const fail = (what) => { console.log(`FAIL ${what}`); process.exit(1); };
const ok = (what) => console.log(`ok ${what}`);

const trace = corpus
  ? path.join(corpus, "pytorch__kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz")
  : path.join(repo, "testdata/example");
const roots = corpus ? [repo, corpus] : [repo];
const transport = new StdioClientTransport({
  command: binary,
  args: ["mcp", ...roots.flatMap((r) => ["--root", r])],
  cwd: repo,
  stderr: "inherit",
});
const client = new Client({ name: "tracelint-release-test", version: "1.0.0" });
await client.connect(transport);
const server = client.getServerVersion();
if (server?.name !== "tracelint") fail(`server name ${JSON.stringify(server)}`);
ok(`connected to ${server.name} ${server.version}`);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
for (const want of ["analyze", "batch", "diff", "explain", "rules"]) {
  if (!names.includes(want)) fail(`tool ${want} missing from ${names}`);
}
for (const t of tools) {
  if (t.inputSchema?.type !== "object") fail(`${t.name} has no object input schema`);
}
ok(`tools/list: ${names.join(", ")}`);
const analyzeTool = tools.find((t) => t.name === "analyze");
if (!analyzeTool.outputSchema) fail("analyze has no output schema");

const result = await client.callTool({ name: "analyze", arguments: { path: trace, top: 5 } });
if (result.isError) fail(`analyze: ${JSON.stringify(result.content)}`);
const report = result.structuredContent;
if (!report || !Array.isArray(report.findings) || report.findings.length === 0) {
  fail(`analyze gave no findings: ${JSON.stringify(result).slice(0, 400)}`);
}
const ajv = new Ajv({ strict: false, allErrors: true });
const validate = ajv.compile(analyzeTool.outputSchema);
if (!validate(report)) fail(`structured content does not validate: ${ajv.errorsText(validate.errors)}`);
const text = result.content.find((c) => c.type === "text");
if (!text || JSON.stringify(JSON.parse(text.text)) !== JSON.stringify(report)) {
  fail("the text content is not the structured content as JSON");
}
ok(`analyze ${path.basename(trace)}: ${report.findings.length} findings, verdict ${report.verdict}, validates against the output schema`);

const outside = await client.callTool({ name: "analyze", arguments: { path: "/etc/passwd" } });
const refusal = outside.content?.map((c) => c.text).join(" ") ?? "";
if (!outside.isError || !/outside the server's roots/.test(refusal)) {
  fail(`a path outside the roots was not refused: ${JSON.stringify(outside)}`);
}
ok(`refused /etc/passwd: ${refusal.slice(0, 100)}`);
const dotdot = await client.callTool({ name: "analyze", arguments: { path: "../../../../etc/passwd" } });
if (!dotdot.isError) fail("a .. path leading out was not refused");
ok("refused ../../../../etc/passwd");

const explain = await client.callTool({ name: "explain", arguments: { rule_id: report.findings[0].rule_id } });
if (explain.isError || !explain.structuredContent?.markdown) fail("explain");
ok(`explain ${report.findings[0].rule_id}`);
await client.close();
