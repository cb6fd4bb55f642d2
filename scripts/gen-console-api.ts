/**
 * `npm run gen:api`: the console's API types, generated from the OpenAPI documents of the control
 * plane and the tracing API (the same documents they serve at /openapi.json and
 * /tracing/openapi.json). The documents are built in-process from the route declarations: no
 * server, no database. test/unit/console-api-types.test.ts fails when the committed files are stale.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { controlPlaneOpenApi } from "../src/control-plane/api/app.js";
import { tracingOpenApi } from "../src/tracing/api/app.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Each generated file (relative to the repository) with its content. */
export async function generateConsoleApiTypes(): Promise<Record<string, string>> {
  return {
    "src/console/api/control-plane.gen.ts": await typesOf(controlPlaneOpenApi(), "the control plane's OpenAPI document (/openapi.json)"),
    "src/console/api/tracing.gen.ts": await typesOf(tracingOpenApi(), "the tracing API's OpenAPI document (/tracing/openapi.json)"),
  };
}

async function typesOf(doc: Record<string, unknown>, source: string): Promise<string> {
  const ast = await openapiTS(doc as unknown as OpenAPI3, { silent: true });
  const header = `/**\n * Generated from ${source} by scripts/gen-console-api.ts: do not edit.\n * Regenerate with \`npm run gen:api\` after changing a route or its schemas.\n */\n\n`;
  return header + astToString(ast);
}

async function main(): Promise<void> {
  for (const [file, content] of Object.entries(await generateConsoleApiTypes())) {
    await writeFile(path.join(ROOT, file), content);
    console.log(`wrote ${file}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
