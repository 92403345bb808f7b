// The attachments' stores, for code outside the server that reads what one holds (the tests).
export { DirectoryStore } from "./directory-store.ts";
export { parseS3Url, S3Store } from "./s3-store.ts";
