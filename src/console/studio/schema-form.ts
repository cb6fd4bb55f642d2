/**
 * Forms from JSON Schema (pure): the fields a form shows for an object schema (an assistant's
 * config or context schema, a graph's input schema), and the value a filled form stands for.
 * A field the form cannot express as one input (a nested object, an array, a union) is edited
 * as JSON text in place; a schema that is not an object with properties has no form at all and
 * the caller falls back to raw JSON.
 */
export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  default?: unknown;
  description?: string;
  title?: string;
  definitions?: Record<string, JsonSchema>;
  $defs?: Record<string, JsonSchema>;
};

export type FieldKind = "string" | "number" | "integer" | "boolean" | "enum" | "json";

export interface FieldSpec {
  key: string;
  label: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  options?: string[];
  default?: unknown;
}

/** A local `$ref` (`#/definitions/X`, `#/$defs/X`) resolved against the root; anything else as is. */
function resolve(schema: JsonSchema | undefined, root: JsonSchema, depth = 0): JsonSchema | undefined {
  if (!schema || typeof schema !== "object") return undefined;
  if (schema.$ref && depth < 16) {
    const m = /^#\/(definitions|\$defs)\/(.+)$/.exec(schema.$ref);
    const target = m ? (m[1] === "definitions" ? root.definitions : root.$defs)?.[decodeURIComponent(m[2]!)] : undefined;
    return target ? resolve({ ...target, ...{ description: schema.description ?? target.description } }, root, depth + 1) : undefined;
  }
  // allOf of one schema (how some generators wrap a ref to add a description)
  if (schema.allOf?.length === 1) return resolve({ ...schema.allOf[0], description: schema.description ?? schema.allOf[0]!.description }, root, depth + 1);
  return schema;
}

/** `anyOf: [X, {type: null}]` and `type: [X, "null"]` are X, optional. */
function withoutNull(schema: JsonSchema, root: JsonSchema): JsonSchema {
  const alts = schema.anyOf ?? schema.oneOf;
  if (alts) {
    const rest = alts.map((a) => resolve(a, root)).filter((a): a is JsonSchema => !!a && a.type !== "null");
    if (rest.length === 1) return { ...rest[0], description: schema.description ?? rest[0]!.description, default: schema.default ?? rest[0]!.default };
  }
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== "null");
    if (types.length === 1) return { ...schema, type: types[0] };
  }
  return schema;
}

function kindOf(s: JsonSchema): { kind: FieldKind; options?: string[] } {
  if (Array.isArray(s.enum) && s.enum.length > 0 && s.enum.every((v) => typeof v === "string")) return { kind: "enum", options: s.enum as string[] };
  switch (s.type) {
    case "string":
      return { kind: "string" };
    case "number":
      return { kind: "number" };
    case "integer":
      return { kind: "integer" };
    case "boolean":
      return { kind: "boolean" };
    default:
      return { kind: "json" };
  }
}

/** The form's fields, or undefined when the schema is no object with properties (raw JSON then). */
export function formFields(schema: unknown): FieldSpec[] | undefined {
  if (!schema || typeof schema !== "object") return undefined;
  const root = schema as JsonSchema;
  const top = resolve(root, root);
  if (!top?.properties || typeof top.properties !== "object" || Object.keys(top.properties).length === 0) return undefined;
  const required = new Set(Array.isArray(top.required) ? top.required : []);
  return Object.entries(top.properties).map(([key, raw]) => {
    const s = withoutNull(resolve(raw, root) ?? {}, root);
    const { kind, options } = kindOf(s);
    return {
      key,
      label: typeof s.title === "string" && s.title ? s.title : key,
      kind,
      required: required.has(key),
      ...(typeof s.description === "string" && s.description ? { description: s.description } : {}),
      ...(options ? { options } : {}),
      ...(s.default !== undefined ? { default: s.default } : {}),
    };
  });
}

/** The text each input shows for a value (pure): what the form starts from. */
export function formTexts(fields: FieldSpec[], value: unknown): Record<string, string> {
  const obj = value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const out: Record<string, string> = {};
  for (const f of fields) {
    const v = obj[f.key] !== undefined ? obj[f.key] : f.default;
    if (v === undefined || v === null) out[f.key] = "";
    else if (f.kind === "json") out[f.key] = JSON.stringify(v, null, 2);
    else out[f.key] = String(v);
  }
  return out;
}

export type FormResult = { ok: true; value: Record<string, unknown> } | { ok: false; errors: Record<string, string> };

/**
 * The value a filled form stands for (pure). An empty input leaves its key out (the graph's
 * default applies) unless the field is required; `base` keeps keys the schema does not list.
 */
export function formValue(fields: FieldSpec[], texts: Record<string, string>, base: Record<string, unknown> = {}): FormResult {
  const value: Record<string, unknown> = { ...base };
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const text = texts[f.key] ?? "";
    delete value[f.key];
    if (text.trim() === "" && f.kind !== "string") {
      if (f.required) errors[f.key] = "required";
      continue;
    }
    if (text === "" && f.kind === "string") {
      if (f.required) errors[f.key] = "required";
      continue;
    }
    switch (f.kind) {
      case "string":
        value[f.key] = text;
        break;
      case "enum":
        if (!f.options?.includes(text)) errors[f.key] = `one of ${f.options?.join(", ")}`;
        else value[f.key] = text;
        break;
      case "boolean":
        if (text !== "true" && text !== "false") errors[f.key] = "true or false";
        else value[f.key] = text === "true";
        break;
      case "number":
      case "integer": {
        const n = Number(text);
        if (!Number.isFinite(n)) errors[f.key] = "a number";
        else if (f.kind === "integer" && !Number.isInteger(n)) errors[f.key] = "a whole number";
        else value[f.key] = n;
        break;
      }
      case "json":
        try {
          value[f.key] = JSON.parse(text);
        } catch (err) {
          errors[f.key] = `not JSON: ${(err as Error).message}`;
        }
        break;
    }
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, value };
}

/** Whether a graph's input schema has a `messages` key: such a graph gets a chat input. */
export function hasMessagesInput(inputSchema: unknown): boolean {
  if (!inputSchema || typeof inputSchema !== "object") return false;
  const root = inputSchema as JsonSchema;
  const top = resolve(root, root);
  return !!top?.properties && Object.prototype.hasOwnProperty.call(top.properties, "messages");
}
