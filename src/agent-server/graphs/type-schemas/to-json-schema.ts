/**
 * TypeScript types (as the compiler's checker sees them) → JSON Schema (draft-07), for the forms
 * graph UIs build from `/assistants/{id}/schemas`. Covers what graph state, input, output and
 * config are made of: primitives, literals and literal unions (enums), objects with optional
 * members and index signatures (Record), arrays and tuples, unions, intersections, Date (a
 * date-time string) and LangChain messages (a `$ref` to one shared message definition, as the JS
 * platform's schemas have). Functions are left out (they are not data); recursive types are cut
 * off at a bounded depth with `{}` (any value), so the result is always finite.
 */
import ts from "typescript";

export type JsonSchema = Record<string, unknown>;

/** How deep nested object types are expanded before `{}` stands for the rest. */
const MAX_DEPTH = 8;
/** How many times a recursive type is expanded inside itself. */
const MAX_RECURSION = 2;

/**
 * The shape of a serialized LangChain message (what the API sends and receives). Loose on
 * purpose: clients send `{type, content}` and `{role, content}` alike, and it validates inputs
 * (MCP tool arguments).
 */
export const MESSAGE_DEFINITION: JsonSchema = {
  type: "object",
  description: "A LangChain message (human, ai, system, tool, ...).",
  properties: {
    type: { type: "string", description: "human, ai, system, tool, function, remove, ..." },
    role: { type: "string", description: "user, assistant, system, tool (instead of type)" },
    content: {
      anyOf: [{ type: "string" }, { type: "array", items: { type: "object", additionalProperties: true } }],
    },
    id: { type: "string" },
    name: { type: "string" },
    additional_kwargs: { type: "object", additionalProperties: true },
    response_metadata: { type: "object", additionalProperties: true },
    tool_calls: { type: "array", items: { type: "object", additionalProperties: true } },
    tool_call_id: { type: "string" },
  },
  required: ["content"],
};
export const MESSAGE_REF = "#/definitions/BaseMessage";

export class TypeToJsonSchema {
  /** Whether some schema referred to the message definition (the caller adds it then). */
  usedMessage = false;
  private readonly visiting = new Map<ts.Type, number>();

  constructor(private readonly checker: ts.TypeChecker) {}

  convert(type: ts.Type, depth = 0): JsonSchema {
    const f = type.flags;
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
    if (f & ts.TypeFlags.Never) return { not: {} };
    if (f & ts.TypeFlags.BooleanLiteral) return { type: "boolean", enum: [this.checker.typeToString(type) === "true"] };
    if (f & ts.TypeFlags.Boolean) return { type: "boolean" };
    if (f & ts.TypeFlags.StringLiteral) return { type: "string", enum: [(type as ts.StringLiteralType).value] };
    if (f & ts.TypeFlags.NumberLiteral) return { type: "number", enum: [(type as ts.NumberLiteralType).value] };
    if (f & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral | ts.TypeFlags.StringMapping)) return { type: "string" };
    if (f & ts.TypeFlags.Number) return { type: "number" };
    if (f & (ts.TypeFlags.BigInt | ts.TypeFlags.BigIntLiteral)) return { type: "integer" };
    if (f & ts.TypeFlags.Null) return { type: "null" };
    if (f & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return {};
    if (f & ts.TypeFlags.Union) return this.union((type as ts.UnionType).types, depth);
    if (this.isMessage(type)) return this.messageRef();
    if (this.nameOf(type) === "Date") return { type: "string", format: "date-time" };
    const seen = this.visiting.get(type) ?? 0;
    if (depth >= MAX_DEPTH || seen > MAX_RECURSION) return {};
    this.visiting.set(type, seen + 1);
    try {
      if (this.checker.isTupleType(type)) {
        const items = this.checker.getTypeArguments(type as ts.TypeReference).map((t) => this.convert(t, depth + 1));
        return { type: "array", items, minItems: items.length, maxItems: items.length };
      }
      if (this.checker.isArrayType(type)) {
        const [element] = this.checker.getTypeArguments(type as ts.TypeReference);
        return element ? { type: "array", items: this.convert(element, depth + 1) } : { type: "array" };
      }
      if (f & (ts.TypeFlags.Object | ts.TypeFlags.Intersection)) return this.object(type, depth);
      return {};
    } finally {
      if (seen === 0) this.visiting.delete(type);
      else this.visiting.set(type, seen);
    }
  }

  /** `undefined` members make a property optional (see object), not a schema of their own. */
  private union(members: readonly ts.Type[], depth: number): JsonSchema {
    // Reducer channels also accept `Overwrite` ({ __overwrite__: value }): an escape hatch for
    // code, not a value a form should offer.
    const defined = members.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) && !this.checker.getPropertyOfType(t, "__overwrite__"));
    // A union naming messages (BaseMessage | BaseMessageLike, or arrays of them: what the
    // messages channel accepts) is a message list for a form, as on the JS platform.
    const message = this.messageUnion(defined);
    if (message) return message;
    // `boolean` is `true | false` inside unions.
    const bools = defined.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
    const rest = defined.filter((t) => !(t.flags & ts.TypeFlags.BooleanLiteral));
    const parts: JsonSchema[] = [];
    if (bools.length === 2) parts.push({ type: "boolean" });
    else for (const b of bools) parts.push(this.convert(b, depth));
    const literals = rest.filter((t) => t.flags & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral));
    const others = rest.filter((t) => !literals.includes(t));
    for (const kind of ["string", "number"] as const) {
      const values = literals.filter((t) => (kind === "string" ? t.flags & ts.TypeFlags.StringLiteral : t.flags & ts.TypeFlags.NumberLiteral));
      // numbers in order (the checker orders them by when it met them); strings as declared
      const enumValues = values.map((t) => (t as ts.LiteralType).value);
      if (kind === "number") (enumValues as number[]).sort((a, b) => a - b);
      if (values.length > 0) parts.push({ type: kind, enum: enumValues });
    }
    for (const t of others) parts.push(this.convert(t, depth));
    if (parts.length === 0) return {};
    if (parts.length === 1) return parts[0]!;
    if (parts.some((p) => Object.keys(p).length === 0)) return {}; // one member is anything
    return { anyOf: parts };
  }

  private messageUnion(members: readonly ts.Type[]): JsonSchema | undefined {
    let single = false;
    let list = false;
    for (const t of members) {
      if (this.isMessage(t)) single = true;
      else if (this.checker.isArrayType(t)) {
        const [element] = this.checker.getTypeArguments(t as ts.TypeReference);
        const elements = element ? (element.flags & ts.TypeFlags.Union ? (element as ts.UnionType).types : [element]) : [];
        if (elements.some((e) => this.isMessage(e))) list = true;
      }
    }
    if (list) return { type: "array", items: this.messageRef() };
    return single ? this.messageRef() : undefined;
  }

  private object(type: ts.Type, depth: number): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const prop of this.checker.getPropertiesOfType(type)) {
      const name = prop.getName();
      if (name.startsWith("__") || name.startsWith("#")) continue;
      const propType = this.checker.getTypeOfSymbol(prop);
      if (this.isFunction(propType)) continue; // methods and callbacks are not data
      let optional = (prop.flags & ts.SymbolFlags.Optional) !== 0;
      if (propType.flags & ts.TypeFlags.Union && (propType as ts.UnionType).types.some((t) => t.flags & ts.TypeFlags.Undefined)) optional = true;
      const schema = { ...this.convert(propType, depth + 1) };
      const doc = ts.displayPartsToString(prop.getDocumentationComment(this.checker)).trim();
      if (doc && !("$ref" in schema)) schema.description = doc;
      properties[name] = schema;
      if (!optional) required.push(name);
    }
    const out: JsonSchema = { type: "object", properties };
    if (required.length > 0) out.required = required;
    const index = this.checker.getIndexInfosOfType(type).find((i) => i.keyType.flags & ts.TypeFlags.String);
    if (index && !(index.type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown))) out.additionalProperties = this.convert(index.type, depth + 1);
    return out;
  }

  private isFunction(type: ts.Type): boolean {
    const members = type.flags & ts.TypeFlags.Union ? (type as ts.UnionType).types.filter((t) => !(t.flags & ts.TypeFlags.Undefined)) : [type];
    return members.length > 0 && members.every((t) => t.getCallSignatures().length > 0 && this.checker.getPropertiesOfType(t).length === 0);
  }

  private nameOf(type: ts.Type): string | undefined {
    return (type.aliasSymbol ?? type.getSymbol())?.getName();
  }

  /** LangChain's message classes (BaseMessage and its subclasses) from @langchain/core. */
  private isMessage(type: ts.Type): boolean {
    const symbol = type.getSymbol();
    if (!symbol || !/Message(Chunk)?$/.test(symbol.getName())) return false;
    if (!(symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface))) return false;
    return (symbol.declarations ?? []).some((d) => /[\\/]@langchain[\\/]core[\\/]/.test(d.getSourceFile().fileName));
  }

  private messageRef(): JsonSchema {
    this.usedMessage = true;
    return { $ref: MESSAGE_REF };
  }
}
