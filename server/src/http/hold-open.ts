// Bun closes a connection that stays silent for 10 s, a request's included. A long-poll is
// silent on purpose: its handler asks for more time for its own request. The server registers
// how to grant it (Bun's `server.timeout`) for each request it receives.
const extenders = new WeakMap<Request, (seconds: number) => void>();

/** How the server lengthens this request's idle timeout. */
export function allowHoldingOpen(request: Request, extend: (seconds: number) => void): void {
  extenders.set(request, extend);
}

/** Lets the request stay silent for up to `seconds`; a no-op where nothing registered how (an app called in process). */
export function holdOpen(request: Request, seconds: number): void {
  extenders.get(request)?.(seconds);
}
