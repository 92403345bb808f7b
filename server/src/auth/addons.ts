// Add-ons a company may have: `api` opens every data endpoint; the others open their resources.
export type Addon = "api" | "estimates" | "subcontractors" | "equipment";
export const ADDONS: readonly Addon[] = ["api", "estimates", "subcontractors", "equipment"];
