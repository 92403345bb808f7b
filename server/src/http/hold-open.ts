// Bun closes a connection that stays silent for 10 s, a request's included. A long-poll is
// silent on purpose: its handler asks for more time for its own request. The server says once
// how to grant it (Bun's `server.timeout`), so an ordinary request registers nothing.
let extend: ((request: Request, seconds: number) => void) | undefined;

/** How the server lengthens a request's idle timeout; set once by the process that listens. */
export function allowHoldingOpen(how: (request: Request, seconds: number) => void): void {
  extend = how;
}

/** Lets the request stay silent for up to `seconds`; a no-op where nothing said how (an app called in process). */
export function holdOpen(request: Request, seconds: number): void {
  extend?.(request, seconds);
}
