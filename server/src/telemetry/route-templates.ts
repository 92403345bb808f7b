// The route template a request matched (`/v1/workers/{id}`), for labels and logs: the set of
// templates is the app's routes, so a label never carries an id or a path a client made up.
interface Node {
  readonly fixed: Map<string, Node>;
  param: Node | undefined;
  templates: Map<string, string>;
}

const node = (): Node => ({ fixed: new Map(), param: undefined, templates: new Map() });

/** Requests that matched no route share one label. */
export const UNMATCHED = "unmatched";

export function routeTemplates(
  routes: readonly { method: string; path: string }[],
): (method: string, pathname: string) => string {
  const root = node();
  for (const { method, path } of routes) {
    if (method === "ALL" || path.includes("*")) continue;
    let at = root;
    for (const segment of path.split("/").slice(1)) {
      if (segment.startsWith(":")) at = at.param ??= node();
      else {
        let next = at.fixed.get(segment);
        if (!next) {
          next = node();
          at.fixed.set(segment, next);
        }
        at = next;
      }
    }
    at.templates.set(method, path.replace(/:([A-Za-z_]+)/g, "{$1}"));
  }
  return (method, pathname) => {
    let at: Node | undefined = root;
    let start = 1;
    while (at && start <= pathname.length) {
      const end = pathname.indexOf("/", start);
      const segment = pathname.slice(start, end === -1 ? undefined : end);
      if (segment === "" && end === -1) break;
      at = at.fixed.get(segment) ?? at.param;
      start = end === -1 ? pathname.length + 1 : end + 1;
    }
    const template = at?.templates.get(method === "HEAD" ? "GET" : method);
    return template ?? UNMATCHED;
  };
}
