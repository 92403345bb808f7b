// Which methods each served path answers, so an unknown method says 405 with Allow.
export interface MethodTable {
  load(routes: readonly { method: string; path: string }[]): void;
  lookup(pathname: string): string[];
}

export function methodTable(): MethodTable {
  let patterns: { pattern: RegExp; method: string }[] = [];
  return {
    load(routes) {
      patterns = routes
        .filter((route) => route.method !== "ALL")
        .map((route) => ({
          method: route.method,
          pattern: new RegExp(
            `^${route.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z_]+/g, "[^/]+")}/?$`,
          ),
        }));
    },
    lookup(pathname) {
      return [
        ...new Set(
          patterns.filter(({ pattern }) => pattern.test(pathname)).map(({ method }) => method),
        ),
      ];
    },
  };
}
