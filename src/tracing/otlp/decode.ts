/**
 * OTLP/HTTP trace request bodies → plain spans (pure). Protobuf is decoded by protobufjs with the
 * official OTLP definitions (descriptor.ts); JSON is OTLP's protobuf-JSON mapping, which has the
 * same lowerCamelCase shape except that ids are hex strings and 64-bit integers may be strings.
 * Both then go through one reader, so the two encodings cannot drift apart.
 */
import protobuf from "protobufjs";
import { OTLP_TRACE_DESCRIPTOR } from "./descriptor.js";

const root = protobuf.Root.fromJSON(OTLP_TRACE_DESCRIPTOR);
const RequestType = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
const ResponseType = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse");

export type AttrValue = string | number | boolean | null | AttrValue[] | { [k: string]: AttrValue };
export type Attributes = Record<string, AttrValue>;

export interface OtlpEvent {
  name: string;
  timeUnixNano: bigint;
  attributes: Attributes;
}

export interface OtlpSpan {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Attributes;
  events: OtlpEvent[];
  /** StatusCode: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  resource: Attributes;
  scope: { name?: string; version?: string };
}

export interface DecodedSpans {
  spans: OtlpSpan[];
  /** Spans that could not be used, with why (OTLP partial success). */
  rejected: { spanId?: string; error: string }[];
}

export class OtlpDecodeError extends Error {}

/** A protobuf ExportTraceServiceRequest. Malformed bytes throw OtlpDecodeError. */
export function decodeProtobuf(body: Uint8Array): DecodedSpans {
  let plain: Json;
  try {
    // decoding and conversion both recurse: absurd nesting fails here, as a bad body
    plain = RequestType.toObject(RequestType.decode(body), { longs: String, enums: Number, bytes: Array, defaults: false, arrays: true });
  } catch (err) {
    throw new OtlpDecodeError(`the body is not a protobuf ExportTraceServiceRequest: ${(err as Error).message}`);
  }
  return readRequest(plain);
}

/** A JSON ExportTraceServiceRequest (already parsed). */
export function decodeJson(body: unknown): DecodedSpans {
  if (!isObj(body)) throw new OtlpDecodeError("the body must be a JSON object (ExportTraceServiceRequest)");
  if (body.resourceSpans !== undefined && !Array.isArray(body.resourceSpans)) throw new OtlpDecodeError("resourceSpans must be an array");
  return readRequest(body);
}

/** ExportTraceServiceResponse as protobuf bytes. */
export function encodeResponseProtobuf(response: ExportResponse): Uint8Array {
  const partial = response.partialSuccess;
  return ResponseType.encode(
    ResponseType.fromObject(partial ? { partialSuccess: { rejectedSpans: partial.rejectedSpans, errorMessage: partial.errorMessage } } : {}),
  ).finish();
}

/** google.rpc.Status (what OTLP/HTTP answers a refused request with) as protobuf bytes. */
const StatusType = protobuf.Root.fromJSON({
  nested: { google: { nested: { rpc: { nested: { Status: { fields: { code: { type: "int32", id: 1 }, message: { type: "string", id: 2 } } } } } } } },
}).lookupType("google.rpc.Status");
export function encodeStatusProtobuf(code: number, message: string): Uint8Array {
  return StatusType.encode(StatusType.fromObject({ code, message })).finish();
}

export interface ExportResponse {
  partialSuccess?: { rejectedSpans: number; errorMessage: string };
}

// ---- the shared reader ----

type Json = Record<string, any>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function readRequest(req: Json): DecodedSpans {
  const out: DecodedSpans = { spans: [], rejected: [] };
  for (const rs of list(req.resourceSpans)) {
    if (!isObj(rs)) continue;
    const resource = readAttributes(isObj(rs.resource) ? rs.resource.attributes : undefined);
    for (const ss of list(rs.scopeSpans ?? rs.instrumentationLibrarySpans)) {
      if (!isObj(ss)) continue;
      const s = isObj(ss.scope) ? ss.scope : isObj(ss.instrumentationLibrary) ? ss.instrumentationLibrary : {};
      const scope = { ...(typeof s.name === "string" && s.name ? { name: s.name } : {}), ...(typeof s.version === "string" && s.version ? { version: s.version } : {}) };
      for (const raw of list(ss.spans)) {
        try {
          out.spans.push(readSpan(raw, resource, scope));
        } catch (err) {
          const spanId = isObj(raw) ? idHex(raw.spanId, 8) : undefined;
          out.rejected.push({ ...(spanId ? { spanId } : {}), error: (err as Error).message });
        }
      }
    }
  }
  return out;
}

function readSpan(raw: unknown, resource: Attributes, scope: OtlpSpan["scope"]): OtlpSpan {
  if (!isObj(raw)) throw new Error("a span must be an object");
  const traceId = idHex(raw.traceId, 16);
  const spanId = idHex(raw.spanId, 8);
  if (!traceId || /^0+$/.test(traceId)) throw new Error(`span ${JSON.stringify(raw.name ?? "")}: traceId must be 16 bytes, not all zero`);
  if (!spanId || /^0+$/.test(spanId)) throw new Error(`span ${JSON.stringify(raw.name ?? "")}: spanId must be 8 bytes, not all zero`);
  const parent = raw.parentSpanId === undefined || raw.parentSpanId === null || raw.parentSpanId === "" || (Array.isArray(raw.parentSpanId) && !raw.parentSpanId.length) ? undefined : idHex(raw.parentSpanId, 8);
  if (parent === undefined && raw.parentSpanId && !(Array.isArray(raw.parentSpanId) && !raw.parentSpanId.length)) throw new Error(`span ${spanId}: parentSpanId must be 8 bytes`);
  const start = nanos(raw.startTimeUnixNano);
  const end = nanos(raw.endTimeUnixNano);
  if (start === undefined || start === 0n) throw new Error(`span ${spanId}: startTimeUnixNano is missing or not a number`);
  const status = isObj(raw.status) ? raw.status : {};
  return {
    traceId,
    spanId,
    ...(parent && !/^0+$/.test(parent) ? { parentSpanId: parent } : {}),
    name: typeof raw.name === "string" ? raw.name : "",
    kind: enumValue(raw.kind, KINDS),
    startTimeUnixNano: start,
    endTimeUnixNano: end ?? 0n,
    attributes: readAttributes(raw.attributes),
    events: list(raw.events)
      .filter(isObj)
      .map((e) => ({ name: typeof e.name === "string" ? e.name : "", timeUnixNano: nanos(e.timeUnixNano) ?? start, attributes: readAttributes(e.attributes) })),
    status: { code: enumValue(status.code, STATUS_CODES), ...(typeof status.message === "string" && status.message ? { message: status.message } : {}) },
    resource,
    scope,
  };
}

const KINDS = ["SPAN_KIND_UNSPECIFIED", "SPAN_KIND_INTERNAL", "SPAN_KIND_SERVER", "SPAN_KIND_CLIENT", "SPAN_KIND_PRODUCER", "SPAN_KIND_CONSUMER"];
const STATUS_CODES = ["STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"];

/** Enums arrive as numbers (protobuf, most JSON) or as their names (JSON allows both). */
function enumValue(v: unknown, names: string[]): number {
  if (typeof v === "number" && Number.isInteger(v)) return v;
  if (typeof v === "string") return Math.max(0, names.indexOf(v));
  return 0;
}

/** Ids: bytes from protobuf, hex strings in OTLP JSON. */
function idHex(v: unknown, bytes: number): string | undefined {
  if (Array.isArray(v) || v instanceof Uint8Array) {
    const b = Buffer.from(v as number[]);
    return b.length === bytes ? b.toString("hex") : undefined;
  }
  if (typeof v === "string" && new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(v)) return v.toLowerCase();
  return undefined;
}

/** fixed64 nanoseconds: a decimal string (protobufjs longs, JSON) or a number. */
function nanos(v: unknown): bigint | undefined {
  if (typeof v === "string" && /^\d+$/.test(v)) return BigInt(v);
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return BigInt(Math.round(v));
  return undefined;
}

function readAttributes(v: unknown): Attributes {
  const out: Attributes = {};
  for (const kv of list(v)) {
    if (!isObj(kv) || typeof kv.key !== "string") continue;
    out[kv.key] = anyValue(kv.value, 0);
  }
  return out;
}

/** AnyValue → JSON. Bytes become base64; nesting is bounded (the run's own limits apply later). */
function anyValue(v: unknown, depth: number): AttrValue {
  if (!isObj(v) || depth > 64) return null;
  if (typeof v.stringValue === "string") return v.stringValue;
  if (typeof v.boolValue === "boolean") return v.boolValue;
  if (v.intValue !== undefined && v.intValue !== null) {
    const n = Number(v.intValue);
    return Number.isSafeInteger(n) ? n : String(v.intValue);
  }
  if (v.doubleValue !== undefined && v.doubleValue !== null) {
    const n = Number(v.doubleValue);
    return Number.isFinite(n) ? n : String(v.doubleValue);
  }
  if (isObj(v.arrayValue)) return list(v.arrayValue.values).map((x) => anyValue(x, depth + 1));
  if (isObj(v.kvlistValue)) {
    const o: Record<string, AttrValue> = {};
    for (const kv of list(v.kvlistValue.values)) if (isObj(kv) && typeof kv.key === "string") o[kv.key] = anyValue(kv.value, depth + 1);
    return o;
  }
  if (v.bytesValue !== undefined && v.bytesValue !== null) {
    return Array.isArray(v.bytesValue) ? Buffer.from(v.bytesValue as number[]).toString("base64") : String(v.bytesValue);
  }
  return null;
}
