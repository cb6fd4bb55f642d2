/** Validation against the official A2A v0.3.0 JSON Schema (vendored in test/fixtures/a2a). */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

const schemaPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/a2a/a2a-v0.3.0.schema.json");
const schema = JSON.parse(readFileSync(schemaPath, "utf8")) as Record<string, unknown>;
const ajv = new Ajv({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv) => void)(ajv);
ajv.addSchema(schema, "a2a");

const cache = new Map<string, ValidateFunction>();

/** Errors of `value` against definition `name` of the schema ("Task", "AgentCard"…); empty when valid. */
export function a2aSchemaErrors(name: string, value: unknown): string[] {
  let validate = cache.get(name);
  if (!validate) {
    validate = ajv.getSchema(`a2a#/definitions/${name}`);
    if (!validate) throw new Error(`no definition ${name} in the A2A schema`);
    cache.set(name, validate);
  }
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message}`);
}
