/**
 * The blocks of one message, each by its type. Everything from the payload goes in as React text
 * or through the checked URL helpers; nothing is ever inserted as HTML.
 */
import type { NativeBlock, NativeMessage } from "../api/types";
import { JsonView } from "./JsonView";
import { Markdown } from "./Markdown";
import { MediaBlock } from "./MediaBlock";
import { useMessageList } from "./list-context";
import { refKey, type BlockRef } from "./pairing";
import { safeHref } from "./safe-url";
import { stringify } from "./json-text";

type Of<T extends NativeBlock["type"]> = Extract<NativeBlock, { type: T }>;

const obj = (x: unknown): Record<string, unknown> => (typeof x === "object" && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : {});
const str = (x: unknown): string | undefined => (typeof x === "string" && x !== "" ? x : undefined);
const clip = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n)}…` : s);

export function BlockList({ message, index }: { message: NativeMessage; index: number }) {
  const blocks: NativeBlock[] = Array.isArray(message?.content) ? message.content : [];
  if (!blocks.length) return <p className="muted msg-empty">(no content)</p>;
  return (
    <div className="msg-blocks">
      {blocks.map((b, j) => (
        <BlockView key={j} block={b} at={{ message: index, block: j }} />
      ))}
    </div>
  );
}

export function BlockView({ block, at }: { block: NativeBlock; at: BlockRef }) {
  const { pairing } = useMessageList();
  switch (block?.type) {
    case "text":
      return <TextBlock block={block} />;
    case "reasoning":
      return <ReasoningBlock block={block} />;
    case "image":
    case "audio":
    case "video":
    case "file":
      return <MediaBlock block={block} />;
    case "tool_call":
    case "invalid_tool_call":
      return <ToolCallView block={block} at={at} />;
    case "server_tool_call":
      return <ServerToolCallView block={block} at={at} />;
    case "server_tool_result":
      // shown under its call when it has one
      return pairing.pairedServerResults.has(refKey(at)) ? null : <ServerToolResultView block={block} orphan />;
    case "non_standard":
      return <RawBlock value={block.value} />;
    default:
      return <RawBlock value={block} />;
  }
}

function TextBlock({ block }: { block: Of<"text"> }) {
  const extras = obj(block.extras);
  // payloads are checked by the server, but a client can still send odd values: never crash on them
  const text = typeof block.text === "string" ? block.text : stringify(block.text);
  const title = str(extras.title);
  return (
    <div className={`block-text${extras.refusal === true ? " block-refusal" : ""}`}>
      {extras.refusal === true ? <span className="block-label">Refusal</span> : null}
      {extras.document === true ? <span className="block-label">Document{title ? `: ${title}` : ""}</span> : null}
      <Markdown text={text} />
      <Citations annotations={block.annotations} />
    </div>
  );
}

function Citations({ annotations }: { annotations: unknown }) {
  const list = Array.isArray(annotations) ? annotations : [];
  if (!list.length) return null;
  return (
    <ol className="citations" aria-label="Citations">
      {list.map((a, i) => (
        <li key={i}>
          <Citation annotation={a} />
        </li>
      ))}
    </ol>
  );
}

function Citation({ annotation }: { annotation: unknown }) {
  const a = obj(annotation);
  if (a.type !== "citation") return <JsonView value={annotation} label="Annotation" />;
  const url = str(a.url);
  const href = safeHref(url);
  const title = str(a.title) ?? url ?? "source";
  return (
    <span className="citation">
      {href ? (
        <a href={href} target="_blank" rel="noopener noreferrer nofollow">
          {title}
        </a>
      ) : (
        <span>{title}</span>
      )}
      {url && !href ? <code className="unsafe-url"> {clip(url)}</code> : null}
      {str(a.cited_text) ? <q className="cited">{a.cited_text as string}</q> : null}
    </span>
  );
}

function ReasoningBlock({ block }: { block: Of<"reasoning"> }) {
  const redacted = obj(block.extras).redacted === true;
  const text = typeof block.text === "string" ? block.text : stringify(block.text);
  // collapsed by default: reasoning is long and mostly read only when something went wrong
  return (
    <details className="block-reasoning">
      <summary>Reasoning{redacted ? " (redacted by the provider)" : ""}</summary>
      <Markdown text={text} />
    </details>
  );
}

function RawBlock({ value }: { value: unknown }) {
  return (
    <div className="block-raw">
      <span className="block-label">Unrecognised content</span>
      <JsonView value={value} label="Unrecognised content" />
    </div>
  );
}

/** A client tool call, with the tool messages answering it right under it. */
function ToolCallView({ block, at }: { block: Of<"tool_call" | "invalid_tool_call">; at: BlockRef }) {
  const { messages, pairing, callDomId } = useMessageList();
  const results = pairing.toolResults.get(refKey(at)) ?? [];
  const invalid = block.type === "invalid_tool_call";
  const id = str(block.id);
  const name = str(block.name) ?? "(unnamed)";
  return (
    <section className={`tool-call${invalid ? " tool-call-invalid" : ""}`} id={callDomId(at)} data-call-id={id} aria-label={`Tool call ${name}`} tabIndex={-1}>
      <header className="block-head">
        <span className="block-label">{invalid ? "Invalid tool call" : "Tool call"}</span> <code className="tool-name">{name}</code>
        {id ? <span className="muted call-id"> {id}</span> : null}
      </header>
      {block.type === "invalid_tool_call" ? (
        <>
          <JsonView value={typeof block.args === "string" ? block.args : stringify(block.args)} label="Arguments as sent" />
          <p className="error call-error">{str(block.error) ?? "invalid arguments"}</p>
        </>
      ) : (
        <JsonView value={block.args ?? {}} label="Arguments" />
      )}
      {results.length ? (
        results.map((i) => <ToolResultView key={i} message={messages[i]!} index={i} />)
      ) : (
        <p className="muted no-result">No result in this run</p>
      )}
    </section>
  );
}

function ToolResultView({ message, index }: { message: NativeMessage; index: number }) {
  const error = message.status === "error";
  return (
    <div className={`tool-result${error ? " tool-result-error" : ""}`} role="group" aria-label={error ? "Tool result (error)" : "Tool result"}>
      <div className="block-head">
        <span className="block-label">Result</span>
        {error ? <span className="badge badge-bad">error</span> : null}
      </div>
      <BlockList message={message} index={index} />
    </div>
  );
}

/** A tool the provider ran itself (web search, code execution…), with its result(s). */
function ServerToolCallView({ block, at }: { block: Of<"server_tool_call">; at: BlockRef }) {
  const { messages, pairing } = useMessageList();
  const results = pairing.serverResults.get(refKey(at)) ?? [];
  const id = str(block.id);
  const name = str(block.name) ?? "(unnamed)";
  const extras = obj(block.extras);
  const server = str(extras.server_name) ?? str(extras.server_label);
  return (
    <section className="server-tool-call" data-server-call-id={id} aria-label={`Server tool call ${name}`}>
      <header className="block-head">
        <span className="block-label">Server tool call</span> <code className="tool-name">{name}</code>
        {server ? <span className="muted"> on {server}</span> : null}
        {id ? <span className="muted call-id"> {id}</span> : null}
      </header>
      <JsonView value={block.args ?? {}} label="Arguments" />
      {results.length ? (
        results.map((r) => {
          const result = messages[r.message]?.content[r.block];
          return result?.type === "server_tool_result" ? <ServerToolResultView key={refKey(r)} block={result} /> : null;
        })
      ) : (
        <p className="muted no-result">No result in this run</p>
      )}
    </section>
  );
}

function ServerToolResultView({ block, orphan }: { block: Of<"server_tool_result">; orphan?: boolean }) {
  const error = block.status === "error";
  return (
    <div className={`tool-result server-tool-result${error ? " tool-result-error" : ""}`} role="group" aria-label={error ? "Server tool result (error)" : "Server tool result"}>
      <div className="block-head">
        <span className="block-label">Server tool result</span> <span className={`badge ${error ? "badge-bad" : "badge-ok"}`}>{error ? "error" : "success"}</span>
        {orphan ? <span className="muted"> answers no server tool call{str(block.tool_call_id) ? ` (tool_call_id ${block.tool_call_id as string})` : ""}</span> : null}
      </div>
      {block.output === undefined ? <p className="muted">(no output)</p> : <JsonView value={block.output} label="Output" />}
    </div>
  );
}
