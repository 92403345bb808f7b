// A Portman configuration derived from the served OpenAPI document: contract tests on every
// operation, and ids flowing from each create into the reads, updates and deletes of its records.
// Portman (npm @apideck/portman) turns document + configuration into a collection newman runs.
import { collectionsOf, exampleBody, makerOf, referencedCollection } from "./example-requests.ts";

type Json = Record<string, any>;

const METHODS = ["get", "post", "put", "patch", "delete"];
const PORTMAN_CHECKS = {
  statusSuccess: { enabled: true },
  contentType: { enabled: true },
  jsonBody: { enabled: true },
  schemaValidation: { enabled: true },
  headersPresent: { enabled: true },
};

/** `/v1/equipment/{id}/rentals` → `rentalsId`: the collection variable holding a record made there. */
export function idVariable(collection: string, suffix = "Id"): string {
  const last = collection
    .split("/")
    .filter((segment) => !segment.startsWith("{"))
    .at(-1)!;
  return last.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()) + suffix;
}

interface Operation {
  method: string;
  path: string;
  id: string;
  operation: Json;
}

function operationsOf(document: Json): Operation[] {
  return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({
      method,
      path,
      id: item[method].operationId as string,
      operation: item[method],
    })),
  );
}

/**
 * Each create stores its record's id in `<collection>Id`, which the paths of that collection's
 * members use; a batch stores its first item's in `<collection>BatchId`, a record no folder
 * deletes, which bodies of other folders reference (a rental's project), so each folder can end
 * with its deletes (and then the restores that bring them back).
 */
export function portmanConfig(document: Json): Json {
  const operations = operationsOf(document);
  const collections = collectionsOf(document);
  const assignVariables: Json[] = collections.map((collection) => ({
    openApiOperation: `POST::${collection}`,
    collectionVariables: [{ responseBodyProp: "data.id", name: idVariable(collection) }],
  }));
  for (const collection of collections) {
    if (!document.paths[`${collection}/batch`]?.post) continue;
    assignVariables.push({
      openApiOperation: `POST::${collection}/batch`,
      collectionVariables: [
        { responseBodyProp: "data.results[0].id", name: idVariable(collection, "BatchId") },
      ],
    });
  }
  // Records of a collection without a create of its own (attachments) come from the create under
  // another record that makes them (an upload); their members' paths use the same variable.
  const members = new Set(
    Object.keys(document.paths)
      .filter((path) => path.includes("/{"))
      .map((path) => path.slice(0, path.indexOf("/{"))),
  );
  for (const collection of members) {
    const maker = makerOf(document, collection);
    if (maker)
      assignVariables.push({
        openApiOperation: `POST::${maker}`,
        collectionVariables: [{ responseBodyProp: "data.id", name: idVariable(collection) }],
      });
  }
  // An operation called at a URL another one answers (x-url-from: a signed link) gets that URL.
  const operationPreRequestScripts: Json[] = [];
  for (const { method, path, operation } of operations) {
    const from = operation["x-url-from"] as string | undefined;
    const source = from && operations.find((one) => one.id === from);
    if (!source) continue;
    const name = `${operation.operationId}Url`;
    assignVariables.push({
      openApiOperation: `${source.method.toUpperCase()}::${source.path}`,
      collectionVariables: [{ responseBodyProp: "data.url", name }],
    });
    operationPreRequestScripts.push({
      openApiOperation: `${method.toUpperCase()}::${path}`,
      scripts: [`pm.request.url = pm.collectionVariables.get("${name}");`],
    });
  }
  const overwrites: Json[] = [];
  for (const { method, path, operation } of operations) {
    const overwrite: Json = { openApiOperation: `${method.toUpperCase()}::${path}` };
    const pathVariables = [...path.matchAll(/\{([^}]+)\}/g)]
      .filter(([, name]) => name !== "external_id")
      .map(([whole, name]) => ({
        key: name,
        value: `{{${idVariable(path.slice(0, path.indexOf(`/${whole}`)))}}}`,
      }));
    if (pathVariables.length > 0) overwrite.overwriteRequestPathVariables = pathVariables;
    // A reference in an example body (a rental's project_id) names a record the other folder made.
    const references = Object.keys(exampleBody(document, operation) ?? {})
      .map((field) => ({ field, target: referencedCollection(collections, field) }))
      .filter(({ target }) => target);
    if (references.length > 0)
      overwrite.overwriteRequestBody = references.map(({ field, target }) => ({
        key: field,
        value: `{{{${idVariable(target!, "BatchId")}}}}`,
      }));
    if (Object.keys(overwrite).length > 1) overwrites.push(overwrite);
  }
  // A restore brings back what its folder's delete removed, so it comes after the deletes.
  const isRestore = ({ method, path }: { method: string; path: string }) =>
    method === "post" && path.endsWith("/restore");
  const notDeletes = operations.filter(
    (operation) => operation.method !== "delete" && !isRestore(operation),
  );
  const deletes = operations.filter(({ method }) => method === "delete");
  const restores = operations.filter(isRestore);
  return {
    version: 1.0,
    tests: {
      // Portman's defaults: each answer is checked against the operation's lowest 2xx, which the
      // document makes the same schema as its other successes (a create's 201 and dry-run 200).
      contractTests: [{ openApiOperation: "*::/*", ...PORTMAN_CHECKS }],
    },
    assignVariables,
    overwrites,
    operationPreRequestScripts,
    globals: {
      orderOfOperations: [...notDeletes, ...deletes, ...restores].map(
        ({ method, path }) => `${method.toUpperCase()}::${path}`,
      ),
    },
  };
}
