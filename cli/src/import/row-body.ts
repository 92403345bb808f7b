// A row of cells as a batch item: each column's cell read as its field's kind (values.ts), the
// reference columns' names kept for the resolver, and every cell the CLI cannot read listed at once,
// so the row's report can add the server's checks of the rest of it.
import type { CollectionSpec } from "@erp/sdk";
import { readingOf } from "../custom-fields.ts";
import type { Column } from "./columns.ts";
import type { FieldError } from "./references.ts";
import {
  type Cell,
  type FieldKind,
  fieldKind,
  isEmptyCell,
  normalise,
  textOf,
  type ValueOptions,
} from "./values.ts";

export interface RowBody {
  /** The row's cells by field as written, reference columns apart: what its item key is made of. */
  content: { values: Record<string, Cell>; names: Record<string, Cell> };
  /**
   * The normalised values to send (reference columns not yet resolved; custom fields as flat
   * `custom_fields.<key>` members, nested when the item is made).
   */
  body: Record<string, unknown>;
  /** The reference columns' names, by the `*_id` field they stand for. */
  names: Record<string, string>;
  /** The cells the CLI cannot read (or whose currency disagrees), by field. */
  errors: FieldError[];
}

export class RowReader {
  readonly #kinds: (FieldKind | undefined)[];
  readonly #hasCurrency: boolean;

  constructor(
    spec: CollectionSpec,
    private readonly columns: readonly Column[],
    private readonly options: ValueOptions,
  ) {
    const hints = spec.fields.create;
    this.#kinds = columns.map((column) =>
      column.kind === "field"
        ? fieldKind(spec.kinds[column.field])
        : column.kind === "custom"
          ? readingOf(column.type)
          : undefined,
    );
    this.#hasCurrency = "currency" in hints;
  }

  /** The row's fields, or undefined when every cell is empty. */
  read(cells: readonly Cell[]): RowBody | undefined {
    if (cells.every(isEmptyCell)) return undefined;
    const content = { values: {} as Record<string, Cell>, names: {} as Record<string, Cell> };
    const body: Record<string, unknown> = {};
    const names: Record<string, string> = {};
    const errors: FieldError[] = [];
    const amounts: { field: string; written: string; currencies: readonly string[] }[] = [];
    this.columns.forEach((column, index) => {
      const cell = cells[index] ?? "";
      // An empty cell means "not given": the API applies its default, or leaves the field null.
      if (isEmptyCell(cell) || column.kind === "skipped") return;
      if (column.kind === "reference") {
        content.names[column.field] = cell;
        names[column.field] = textOf(cell);
        return;
      }
      content.values[column.field] = cell;
      const value = normalise(cell, this.#kinds[index]!, this.options);
      if ("error" in value)
        errors.push({ field: column.field, code: "unreadable_value", message: value.error });
      else {
        body[column.field] = value.value;
        if (value.currencies)
          amounts.push({
            field: column.field,
            written: textOf(cell),
            currencies: value.currencies,
          });
      }
    });
    if (this.#hasCurrency) errors.push(...this.#currency(body, amounts));
    return { content, body, names, errors };
  }

  /**
   * An amount's symbol or code must agree with the row's currency; a row that gives none takes the
   * one its amounts name (else the API's default would silently relabel them).
   */
  #currency(
    body: Record<string, unknown>,
    amounts: readonly { field: string; written: string; currencies: readonly string[] }[],
  ): FieldError[] {
    const disagree = (field: string, message: string): FieldError => ({
      field,
      code: "currency_mismatch",
      message,
    });
    if (typeof body.currency === "string") {
      // ISO codes are upper case; a spreadsheet's `eur` means EUR.
      const currency = body.currency.toUpperCase();
      body.currency = currency;
      return amounts
        .filter((amount) => !amount.currencies.includes(currency))
        .map((amount) =>
          disagree(
            amount.field,
            `${JSON.stringify(amount.written)} is in ${amount.currencies.join(" or ")}, ` +
              `but the row's currency is ${currency}`,
          ),
        );
    }
    let common: readonly string[] | undefined;
    for (const amount of amounts) {
      const shared = (common ?? amount.currencies).filter((code) =>
        amount.currencies.includes(code),
      );
      if (shared.length === 0)
        return [
          disagree(
            amount.field,
            `${JSON.stringify(amount.written)} is in ${amount.currencies.join(" or ")}, unlike the row's other amounts`,
          ),
        ];
      common = shared;
    }
    if (common) body.currency = common[0];
    return [];
  }
}
