/** A JSON-RPC error answer with no id (the request's own could not be read, or is not ours to echo). */
export const jsonRpcError = (code: number, message: string) => ({ jsonrpc: "2.0", error: { code, message }, id: null });
