// Add-ons a company may have. `api` opens every data endpoint; each other add-on opens the
// resources whose definitions name it, so an add-on is declared once, by its resources
// (`ADDONS` in resources/registry.ts lists them all).
export type Addon = string;
