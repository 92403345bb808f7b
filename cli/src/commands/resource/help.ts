// The help of the resource commands beyond their options: the fields a create or an update takes
// and examples, both written from the SDK's generated collection table (so from the API's
// document): a field the API adds shows up here without a CLI edit.
import { flagOf, type ResourceSpec } from "../../resources.ts";

/** A value a person could type for a field, from its hint; undefined when no example is obvious. */
function sampleValue(
  spec: ResourceSpec,
  field: string,
  hint: string,
): string | number | boolean | undefined {
  const kind = hint.replace(/, required$/, "");
  if (field === spec.title) return `Example ${spec.singular}`;
  if (/^[A-Z_]+(\|[A-Z_]+)*$/.test(kind)) return kind.split("|")[0];
  if (kind === "email") return "office@example.com";
  if (kind.startsWith("amount")) return "1250.00";
  if (kind.startsWith("date")) return "2026-03-01";
  if (kind === "true|false") return true;
  if (kind === "id") return 7;
  return undefined;
}

/** `field=value` as typed in a shell, or undefined when no example is obvious. */
function assignment(spec: ResourceSpec, field: string, hint: string): string | undefined {
  const value = sampleValue(spec, field, hint);
  if (value === undefined) return undefined;
  return `${field}=${typeof value === "string" && /\s/.test(value) ? `"${value}"` : String(value)}`;
}

const section = (title: string, lines: readonly string[]): string =>
  `\n${title}\n${lines.map((line) => `  ${line}`).join("\n")}\n`;

/** An EXAMPLES section: each command, with what it does beside it, aligned. */
function examples(lines: readonly (string | [command: string, note: string])[]): string {
  const width = Math.max(...lines.map((line) => (typeof line === "string" ? 0 : line[0].length)));
  return section(
    "EXAMPLES",
    lines.map((line) =>
      typeof line === "string" ? line : `${line[0].padEnd(width)}   # ${line[1]}`,
    ),
  );
}

/** `FIELDS`: each field a body may carry, with what it holds. */
export function fieldsHelp(fields: Readonly<Record<string, string>>): string {
  const width = Math.max(...Object.keys(fields).map((name) => name.length));
  return section(
    "FIELDS (key=value; key= clears, key:=JSON sends raw JSON)",
    Object.entries(fields).map(([name, hint]) => `${name.padEnd(width)}  ${hint}`),
  );
}

/** An optional field with an obvious example value, other than the ones named. */
function optionalExample(
  spec: ResourceSpec,
  fields: Readonly<Record<string, string>>,
  except: readonly string[] = [],
): [string, string] | undefined {
  return Object.entries(fields).find(
    ([name, hint]) =>
      !hint.endsWith(", required") &&
      !except.includes(name) &&
      !name.endsWith("_id") &&
      sampleValue(spec, name, hint) !== undefined,
  );
}

export function createHelp(spec: ResourceSpec): string {
  const required = Object.entries(spec.fields.create).filter(([, hint]) =>
    hint.endsWith(", required"),
  );
  const extra = optionalExample(spec, spec.fields.create, ["status"]);
  const fields = [...required, ...(extra ? [extra] : [])]
    .map(([name, hint]) => assignment(spec, name, hint))
    .filter((text) => text !== undefined);
  const json = JSON.stringify(
    Object.fromEntries(
      required.map(([name, hint]) => [name, sampleValue(spec, name, hint) ?? null]),
    ),
  );
  return (
    fieldsHelp(spec.fields.create) +
    examples([
      `erp ${spec.name} create ${fields.join(" ")}`,
      [`erp ${spec.name} create --data '${json}' --dry-run`, "validate only, write nothing"],
      [`erp ${spec.name} create --file new.json --idempotency-key row-17`, "safe to repeat"],
    ])
  );
}

export function updateHelp(spec: ResourceSpec): string {
  const change = optionalExample(spec, spec.fields.update, [spec.title, "status"]);
  const cleared = Object.entries(spec.fields.update).find(
    ([name, hint]) => hint.startsWith("text") && name !== spec.title,
  );
  const status = spec.fields.update.status?.split("|");
  return (
    fieldsHelp(spec.fields.update) +
    examples([
      ...(change ? [`erp ${spec.name} update 7 ${assignment(spec, change[0], change[1])}`] : []),
      ...(cleared
        ? [[`erp ${spec.name} update 7 ${cleared[0]}=`, `clears ${cleared[0]}`] as [string, string]]
        : []),
      ...(status
        ? [
            [
              `erp ${spec.name} update 7 status=${status.at(-1)} --if-match '"…"'`,
              "only if unchanged since get --include",
            ] as [string, string],
          ]
        : []),
      [
        `erp ${spec.name} update 7 --data '{"${spec.title}":"Renamed"}' --dry-run`,
        "show the changes, write nothing",
      ],
    ])
  );
}

export function listHelp(spec: ResourceSpec): string {
  const status = spec.fields.update.status?.split("|")[0]?.toLowerCase();
  const filter = spec.filters[0];
  return examples([
    status
      ? `erp ${spec.name} list --status ${status} --fields ${spec.title},status`
      : `erp ${spec.name} list -o json`,
    ...(spec.kind === "records"
      ? [
          [`erp ${spec.name} list --q north --all -o csv > ${spec.name}.csv`, "every page"] as [
            string,
            string,
          ],
        ]
      : []),
    ...(filter
      ? [
          [
            `erp ${spec.name} list ${flagOf(filter)} 3 --limit 100 --offset 100`,
            "the second page of 100",
          ] as [string, string],
        ]
      : []),
  ]);
}

export function exportHelp(spec: ResourceSpec): string {
  const status = spec.fields.update.status?.split("|")[0]?.toLowerCase();
  return examples([
    `erp export ${spec.name} > ${spec.name}.ndjson`,
    [
      `erp export ${spec.name} --format csv --bom > ${spec.name}.csv`,
      "for Excel and other spreadsheet programs",
    ],
    ...(status
      ? [`erp export ${spec.name} --status ${status} --fields ${spec.title},status --format csv`]
      : []),
  ]);
}
