/**
 * A form a deployment declares (issue 30): found at deploy in its HTML files, a `<form>`
 * with `data-statichost-form="<name>"`, or Netlify's `netlify` / `data-netlify="true"`
 * with its `name`. Stored on the deployment (deployments.forms) so the site router knows,
 * for the deployment it serves, which form names a POST may carry.
 */
export interface DeclaredForm {
  name: string;
  /** The names of its fields (inputs, selects, textareas), in document order, without the honeypot and `form-name`. */
  fields: string[];
  /** The honeypot field's name (`data-statichost-honeypot` / `netlify-honeypot`), or null. */
  honeypot: string | null;
  /** The form's `action` path when it names one of the site's files (the thank-you page), else null. */
  action: string | null;
  /** The HTML file it was found in (the first one when several declare it). */
  page: string;
  /** True when it has an `<input type="file">` (files are refused at submit, with a page that says so). */
  files?: boolean;
}
