// English for generated names and sentences: "an estimate", ProjectRentals.
export const withArticle = (noun: string): string =>
  `${/^[aeiou]/.test(noun) ? "an" : "a"} ${noun}`;

export const pascal = (name: string): string =>
  name
    .split(/[^A-Za-z0-9]+/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
