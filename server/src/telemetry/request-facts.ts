// What handling a request learned that its log line names: the company it was admitted for. Kept
// on the request itself under a symbol of this module: a WeakMap entry per request cost the
// collector more than the rest of this.
const COMPANY = Symbol("company");

type Noted = Request & { [COMPANY]?: number };

export function noteCompany(request: Request, companyId: number): void {
  (request as Noted)[COMPANY] = companyId;
}

export const companyOf = (request: Request): number | null => (request as Noted)[COMPANY] ?? null;
