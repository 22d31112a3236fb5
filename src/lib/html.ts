// Minimal server-rendered HTML: every interpolated value goes through escapeHtml.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}

/** A tagged template that escapes every interpolation unless it is already SafeHtml. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    const parts = Array.isArray(v) ? v : [v];
    out += parts.map((p) => (p instanceof SafeHtml ? p.value : p === null || p === undefined || p === false ? '' : escapeHtml(p))).join('');
    out += strings[i + 1] ?? '';
  });
  return new SafeHtml(out);
}

/**
 * A whole page: the content in a main landmark, light or dark as the reader's
 * system is, and an empty icon so the browser does not ask for a
 * /favicon.ico the service does not have.
 */
export function page(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${title}</title>
<style>
:root { color-scheme: light dark; --bg: #ffffff; --text: #1d1d1f; --border: #6b6b70; --notice-bg: #fff4ce; --notice-border: #8a6d00; --button-bg: #1d1d1f; --button-text: #ffffff; --link: #1d4ed8; --focus: #b45309; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0f1216; --text: #e7eaee; --border: #8b939e; --notice-bg: #3a2f12; --notice-border: #c9a23a; --button-bg: #e7eaee; --button-text: #0f1216; --link: #8fb3ff; --focus: #f59e0b; }
}
body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: var(--text); background: var(--bg); }
a { color: var(--link); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.notice { background: var(--notice-bg); border: 1px solid var(--notice-border); padding: .75rem 1rem; border-radius: .5rem; }
.plan { border: 1px solid var(--border); border-radius: .5rem; padding: 1rem; margin: 1rem 0; }
button { font: inherit; padding: .5rem 1.25rem; border-radius: .4rem; border: 1px solid var(--button-bg); background: var(--button-bg); color: var(--button-text); cursor: pointer; }
button.secondary { background: var(--bg); color: var(--text); }
form { display: inline; margin-right: .75rem; }
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`.value;
}
