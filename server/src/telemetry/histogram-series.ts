// One label set of a prom-client histogram, observed without the library's per-call work: a
// child's observe validates and hashes its labels on every call (about a microsecond, several times
// per request). A series finds prom-client's own values for its labels once and adds to them;
// prom-client keeps, collects and renders them as any other (the text a scrape gets is its own).
// That reaches into how prom-client 15 keeps a histogram (`hashMap` of `{bucketValues, sum,
// count}`, `upperBounds`): where it finds nothing of that shape, the series observes through the
// child (histogram-series.test.ts checks what a scrape renders).
import type { Histogram } from "prom-client";

interface Values {
  labels: Record<string, string | number>;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}

interface Internals {
  hashMap?: Record<string, Values>;
  upperBounds?: readonly number[];
}

export interface HistogramSeries {
  observe(value: number): void;
  /** Observations so far (since a reset of the histogram, if any). */
  readonly count: number;
}

const sameLabels = (a: Record<string, unknown>, b: Record<string, unknown>): boolean => {
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((key) => String(a[key]) === String(b[key]))
  );
};

/** The series through prom-client's public child. */
function throughChild(child: { observe(value: number): void }): HistogramSeries {
  let count = 0;
  return {
    observe(value) {
      child.observe(value);
      count += 1;
    },
    get count() {
      return count;
    },
  };
}

export function histogramSeries<T extends string>(
  histogram: Histogram<T>,
  labels: Partial<Record<T, string | number>>,
): HistogramSeries {
  const inner = histogram as unknown as Internals;
  const bounds = inner.upperBounds;
  if (!inner.hashMap || !Array.isArray(bounds)) return throughChild(histogram.labels(labels));
  let key = "";
  /** prom-client's values for the labels, made by it when they are not there yet (or were reset). */
  const resolve = (): Values | undefined => {
    for (let attempt = 0; attempt < 2; attempt++) {
      for (const [found, candidate] of Object.entries(inner.hashMap ?? {}))
        if (sameLabels(candidate.labels, labels)) {
          key = found;
          return candidate;
        }
      histogram.zero(labels);
    }
    return undefined;
  };
  const first = resolve();
  if (!first || typeof first.sum !== "number" || typeof first.bucketValues !== "object")
    return throughChild(histogram.labels(labels));
  let values = first;
  // Its buckets are keyed by their bounds as text: a number as key would be turned into text each time.
  const keys = bounds.map(String);
  return {
    observe(value) {
      if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
      if (inner.hashMap?.[key] !== values) values = resolve() ?? values;
      values.sum += value;
      values.count += 1;
      for (let i = 0; i < bounds.length; i++)
        if (value <= bounds[i]!) {
          values.bucketValues[keys[i]!]! += 1;
          return;
        }
    },
    get count() {
      return inner.hashMap?.[key] === values ? values.count : 0;
    },
  };
}
