/** What every block of a message list needs to know about the whole list (pairs, element ids). */
import { createContext, useContext } from "react";
import type { NativeMessage } from "../api/types";
import type { BlockRef, Pairing } from "./pairing";

export interface ListContext {
  messages: readonly NativeMessage[];
  pairing: Pairing;
  /** The DOM id of a call's element (unique per list, so several lists can share a page). */
  callDomId: (ref: BlockRef) => string;
}

export const MessageListContext = createContext<ListContext | null>(null);

export function useMessageList(): ListContext {
  const ctx = useContext(MessageListContext);
  if (!ctx) throw new Error("message blocks render inside a MessageList");
  return ctx;
}
