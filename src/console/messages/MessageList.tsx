/**
 * A run's messages in the native format: one card per message with its role as header, blocks
 * rendered by type, and tool results shown right under the call they answer (the tool message
 * itself then only says where its result is, so every result is shown exactly once).
 */
import { useCallback, useId, useMemo } from "react";
import type { NativeMessage } from "../api/types";
import { BlockList } from "./Blocks";
import { roleClass, roleLabel, usageLine } from "./labels";
import { MessageListContext, useMessageList, type ListContext } from "./list-context";
import { pairToolResults, unpairedReason, type BlockRef } from "./pairing";
import "./messages.css";

export function MessageList({ messages }: { messages: NativeMessage[] }) {
  const list: NativeMessage[] = useMemo(() => (Array.isArray(messages) ? messages : []), [messages]);
  const pairing = useMemo(() => pairToolResults(list), [list]);
  const prefix = useId();
  const callDomId = useCallback((r: BlockRef) => `${prefix}call-${r.message}-${r.block}`, [prefix]);
  const ctx: ListContext = useMemo(() => ({ messages: list, pairing, callDomId }), [list, pairing, callDomId]);
  if (!list.length) return <p className="empty">No messages.</p>;
  return (
    <MessageListContext.Provider value={ctx}>
      <ol className="msg-list" aria-label="Messages">
        {list.map((m, i) => (
          <li key={i}>
            <MessageView message={m} index={i} />
          </li>
        ))}
      </ol>
    </MessageListContext.Provider>
  );
}

function MessageView({ message, index }: { message: NativeMessage; index: number }) {
  const { pairing } = useMessageList();
  const role: unknown = message?.role;
  const label = roleLabel(role);
  const toolCallId = typeof message?.tool_call_id === "string" ? message.tool_call_id : undefined;
  const usage = usageLine(message?.usage_metadata);
  const answers = role === "tool" ? pairing.answers.get(index) : undefined;
  return (
    <article className={`msg ${roleClass(role)}${message?.status === "error" ? " msg-error" : ""}`} aria-label={`${label} message`}>
      <header className="msg-head">
        <h4 className="msg-role">{label}</h4>
        {toolCallId ? <code className="muted call-id">{toolCallId}</code> : null}
        {message?.status === "error" ? <span className="badge badge-bad">error</span> : null}
        {usage ? <span className="msg-usage muted">{usage}</span> : null}
      </header>
      {answers ? (
        <PairedNote call={answers} />
      ) : (
        <>
          {role === "tool" ? <p className="warning msg-unpaired">This result {unpairedReason(message)}.</p> : null}
          <BlockList message={message} index={index} />
        </>
      )}
    </article>
  );
}

/** In place of a tool message shown under its call: where it went, and a way there. */
function PairedNote({ call }: { call: BlockRef }) {
  const { messages, callDomId } = useMessageList();
  const block = messages[call.message]?.content?.[call.block];
  const name = (block?.type === "tool_call" || block?.type === "invalid_tool_call") && block.name ? block.name : "(unnamed)";
  const go = () => {
    const el = document.getElementById(callDomId(call));
    el?.scrollIntoView?.({ block: "center", behavior: "smooth" });
    el?.focus?.({ preventScroll: true });
  };
  return (
    <p className="msg-paired muted">
      Result shown under{" "}
      <button type="button" className="link" onClick={go}>
        tool call {name}
      </button>{" "}
      above.
    </p>
  );
}
