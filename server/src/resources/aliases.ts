// Column headers spreadsheets give common fields, shared by the definitions that have them (an
// import matches a header to a field by its name or one of these, once normalised: see definition.ts).
export const EMAIL = ["e_mail", "email_address", "mail"] as const;
export const PHONE = [
  "phone_number",
  "telephone",
  "tel",
  "mobile",
  "mobile_phone",
  "cell",
  "cell_phone",
] as const;
export const TAX_ID = ["tax_number", "vat", "vat_number", "vat_id", "ein", "tin"] as const;
