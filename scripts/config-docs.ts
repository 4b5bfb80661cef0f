import { configJsonSchema } from '../src/core/index.js';

interface Prop {
  type?: string;
  default?: unknown;
  description?: string;
  items?: { type?: string };
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Prop>;
}

export const SCHEMA_FILE = 'schema/coder.schema.json';
export const DOCS_FILE = 'docs/configuration.md';
const BEGIN = '<!-- generated:config-table -->';
const END = '<!-- /generated:config-table -->';

export function schemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}

function typeOf(p: Prop): string {
  if (p.type === 'array') return `list of ${p.items?.type ?? 'any'}`;
  if (p.type === 'integer' || p.type === 'number') {
    const range = [
      p.minimum !== undefined ? `≥ ${p.minimum}` : '',
      p.maximum !== undefined ? `≤ ${p.maximum}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    return range ? `${p.type} (${range})` : p.type;
  }
  return p.type ?? 'any';
}

function rows(props: Record<string, Prop>, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, p] of Object.entries(props)) {
    if (p.type === 'object' && p.properties) {
      out.push(...rows(p.properties, `${prefix}${key}.`));
      continue;
    }
    const def = p.default === undefined ? '' : `\`${JSON.stringify(p.default)}\``;
    out.push(`| \`${prefix}${key}\` | ${typeOf(p)} | ${def} | ${p.description ?? ''} |`);
  }
  return out;
}

/** The generated table of docs/configuration.md, markers included. */
export function configTable(): string {
  const schema = configJsonSchema() as { properties: Record<string, Prop> };
  return [
    BEGIN,
    '| key | type | default | meaning |',
    '| --- | --- | --- | --- |',
    ...rows(schema.properties),
    END,
  ].join('\n');
}

/** docs/configuration.md with its generated table brought up to date. */
export function updateDocs(doc: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start === -1 || end === -1) throw new Error(`${DOCS_FILE} lacks the ${BEGIN} markers`);
  return doc.slice(0, start) + configTable() + doc.slice(end + END.length);
}
