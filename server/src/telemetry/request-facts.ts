// What handling a request learned that its log line names: the company it was admitted for.
const companies = new WeakMap<Request, number>();

export function noteCompany(request: Request, companyId: number): void {
  companies.set(request, companyId);
}

export const companyOf = (request: Request): number | null => companies.get(request) ?? null;
