/**
 * JSON text already serialised, passed where a value is expected, so a large value (a long
 * thread's state) is not walked again: `ApiRouter` sends it as a 200 answer as it is, and the agent
 * server's `toWireJson` passes it through. Must be what JSON.stringify (or `toWireJson`) made.
 */
export class JsonText {
  constructor(readonly text: string) {}
}
