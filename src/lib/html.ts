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

export function page(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #1d1d1f; }
.notice { background: #fff4ce; border: 1px solid #e0c36a; padding: .75rem 1rem; border-radius: .5rem; }
.plan { border: 1px solid #ccc; border-radius: .5rem; padding: 1rem; margin: 1rem 0; }
button { font: inherit; padding: .5rem 1.25rem; border-radius: .4rem; border: 1px solid #333; background: #1d1d1f; color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: #1d1d1f; }
form { display: inline; margin-right: .75rem; }
</style>
</head>
<body>
${body}
</body>
</html>
`.value;
}
