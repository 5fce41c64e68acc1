/** Moved to src/common/csv.ts (the audit log's export uses it too); kept so the leads' and forms' imports stay as they are. */
export { csvField, csvRow } from '../common/csv';
