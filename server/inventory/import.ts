// Importing an inventory file (CSV or JSON) of domains and prices into one environment. The file
// is checked whole before anything is written: every bad row is reported with its line, and a
// file with any bad row writes nothing, so an environment never holds half an import.
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { domainToUnicode } from 'node:url';
import type { Kysely } from 'kysely';
import { inventoryRepository } from '../store/inventory.ts';
import type { Database, Environment } from '../store/schema.ts';
import { segmentLabel } from './segment.ts';
import type { InventoryRow } from './types.ts';

export type ImportFormat = 'csv' | 'json';

export const IMPORT_FIELDS = ['domain', 'price_cents', 'floor_cents'] as const;
type Field = (typeof IMPORT_FIELDS)[number];

/** One thing wrong with the file, at a 1-based line. */
export interface ImportProblem {
  line: number;
  message: string;
}

/** A validated row of the file. */
export interface ImportEntry {
  line: number;
  domain: string;
  price_cents: number;
  floor_cents: number;
}

export type ParseResult = { ok: true; entries: ImportEntry[] } | { ok: false; problems: ImportProblem[] };

export type ImportOutcome =
  | { ok: true; format: ImportFormat; imported: number; keptSold: number }
  | { ok: false; format: ImportFormat | undefined; problems: ImportProblem[] };

// ------------------------------------------------------------------ domain names

const MAX_DOMAIN_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;

/** Why `domain` is not an acceptable domain name, or undefined when it is. */
export function domainSyntaxError(domain: string): string | undefined {
  if (domain === '') return 'domain is empty';
  if (domain.length > MAX_DOMAIN_LENGTH)
    return `domain is ${domain.length} characters long, more than ${MAX_DOMAIN_LENGTH}`;
  if (domain !== domain.toLowerCase()) return `domain "${domain}" must be lowercase ("${domain.toLowerCase()}")`;
  const bad = /[^a-z0-9.-]/.exec(domain);
  if (bad) {
    const shown = bad[0] === ' ' ? 'a space' : JSON.stringify(bad[0]);
    return `domain "${domain}" contains ${shown}: only a-z, 0-9, hyphens and dots are allowed (IDNs in their xn-- form)`;
  }
  const labels = domain.split('.');
  if (labels.length < 2) return `domain "${domain}" has no dot: it needs a name and a TLD`;
  for (const label of labels) {
    if (label === '') return `domain "${domain}" has an empty label (a leading, trailing or doubled dot)`;
    if (label.length > MAX_LABEL_LENGTH)
      return `label "${label}" of "${domain}" is ${label.length} characters long, more than ${MAX_LABEL_LENGTH}`;
    if (label.startsWith('-') || label.endsWith('-'))
      return `label "${label}" of "${domain}" starts or ends with a hyphen`;
    // IDNA reserves "??--" labels; only the punycode prefix may use them.
    if (label.slice(2, 4) === '--' && !label.startsWith('xn--')) {
      return `label "${label}" of "${domain}" has hyphens in the third and fourth positions, which only punycode (xn--) labels may have`;
    }
  }
  const tld = labels[labels.length - 1] ?? '';
  if (!/^[a-z]/.test(tld)) return `domain "${domain}" has a TLD that does not start with a letter`;
  if (labels.some((l) => l.startsWith('xn--')) && domainToUnicode(domain) === '')
    return `domain "${domain}" has an xn-- label that is not valid punycode`;
  return undefined;
}

// ------------------------------------------------------------------ CSV

interface CsvRecord {
  line: number;
  fields: string[];
}

/**
 * RFC 4180 records, each with the line it starts on. Quoted fields may hold commas, doubled
 * quotes and newlines; unquoted fields are trimmed; blank lines are skipped.
 */
function parseCsv(text: string): { records: CsvRecord[]; problems: ImportProblem[] } {
  const records: CsvRecord[] = [];
  const problems: ImportProblem[] = [];
  let line = 1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const startLine = line;
    const fields: string[] = [];
    let broken = false;
    for (;;) {
      // One field.
      while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
      let value = '';
      if (text[i] === '"') {
        i++;
        let closed = false;
        while (i < n) {
          const c = text[i];
          if (c === '"') {
            if (text[i + 1] === '"') {
              value += '"';
              i += 2;
              continue;
            }
            i++;
            closed = true;
            break;
          }
          if (c === '\n') line++;
          value += c;
          i++;
        }
        if (!closed) {
          problems.push({ line: startLine, message: 'a quoted field is never closed' });
          return { records, problems };
        }
        while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
        if (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          problems.push({ line, message: 'unexpected text after a closing quote' });
          broken = true;
        }
      } else {
        const start = i;
        while (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') i++;
        value = text.slice(start, i).trim();
      }
      fields.push(value);
      if (broken) {
        while (i < n && text[i] !== '\n') i++;
      }
      if (i < n && text[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    if (text[i] === '\r') i++;
    if (text[i] === '\n') {
      i++;
      line++;
    }
    if (broken) continue;
    if (fields.length === 1 && fields[0] === '') continue;
    records.push({ line: startLine, fields });
  }
  return { records, problems };
}

const isField = (name: string): name is Field => (IMPORT_FIELDS as readonly string[]).includes(name);
const expectedColumns = IMPORT_FIELDS.join(', ');

function parseCsvEntries(text: string): ParseResult {
  const { records, problems } = parseCsv(text);
  if (problems.length > 0) return { ok: false, problems };
  const [header, ...rows] = records;
  if (!header)
    return {
      ok: false,
      problems: [{ line: 1, message: `the file is empty: expected a header row naming ${expectedColumns}` }],
    };

  const headerProblems: ImportProblem[] = [];
  const columns = header.fields.map((f) => f.toLowerCase());
  const unexpected = columns.filter((c) => !isField(c));
  if (unexpected.length > 0) {
    const names = unexpected.map((c) => (c === '' ? '(an empty name)' : `"${c}"`)).join(', ');
    headerProblems.push({
      line: header.line,
      message: `unexpected column ${names}: the header must name exactly ${expectedColumns}, in any order`,
    });
  }
  for (const field of IMPORT_FIELDS) {
    const count = columns.filter((c) => c === field).length;
    if (count === 0)
      headerProblems.push({
        line: header.line,
        message: `missing column "${field}": the header must name exactly ${expectedColumns}, in any order`,
      });
    if (count > 1) headerProblems.push({ line: header.line, message: `column "${field}" appears ${count} times` });
  }
  if (headerProblems.length > 0) return { ok: false, problems: headerProblems };

  const index = (field: Field) => columns.indexOf(field);
  return validateEntries(
    rows.map((record) => {
      if (record.fields.length !== columns.length) {
        return { line: record.line, problem: `expected ${columns.length} fields, found ${record.fields.length}` };
      }
      const get = (field: Field) => record.fields[index(field)] ?? '';
      return {
        line: record.line,
        domain: get('domain'),
        price: get('price_cents'),
        floor: get('floor_cents'),
        text: true,
      };
    }),
  );
}

// ------------------------------------------------------------------ JSON

/** Offsets where each element of the top-level array starts (the text is known to be valid JSON). */
function topLevelElementOffsets(text: string): number[] {
  const offsets: number[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let expecting = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\ufeff') continue;
    if (depth === 1 && expecting) {
      if (c !== ']') offsets.push(i);
      expecting = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth === 1) expecting = true;
    } else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 1) expecting = true;
  }
  return offsets;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** V8 names the failing position in one of two ways, depending on its version. */
function jsonErrorLine(text: string, error: unknown): number {
  const message = error instanceof Error ? error.message : '';
  const lineMatch = /line (\d+)/.exec(message);
  if (lineMatch) return Number(lineMatch[1]);
  const positionMatch = /position (\d+)/.exec(message);
  return positionMatch ? lineAt(text, Number(positionMatch[1])) : 1;
}

function parseJsonEntries(text: string): ParseResult {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, problems: [{ line: jsonErrorLine(text, error), message: `not valid JSON: ${reason}` }] };
  }
  if (!Array.isArray(data))
    return { ok: false, problems: [{ line: 1, message: `expected a JSON array of objects with ${expectedColumns}` }] };
  const offsets = topLevelElementOffsets(text);
  // Lines are counted in one pass, since offsets ascend.
  const lines: number[] = [];
  let line = 1;
  let at = 0;
  for (const offset of offsets) {
    for (; at < offset; at++) if (text.charCodeAt(at) === 10) line++;
    lines.push(line);
  }
  return validateEntries(
    data.map((item: unknown, i) => {
      const itemLine = lines[i] ?? 1;
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        return { line: itemLine, problem: `item ${i + 1} is not an object with ${expectedColumns}` };
      }
      const record = item as Record<string, unknown>;
      const unexpected = Object.keys(record).filter((k) => !isField(k));
      if (unexpected.length > 0) {
        return {
          line: itemLine,
          problem: `unexpected field ${unexpected.map((k) => `"${k}"`).join(', ')}: only ${expectedColumns} are accepted`,
        };
      }
      const missing = IMPORT_FIELDS.filter((f) => !(f in record));
      if (missing.length > 0)
        return { line: itemLine, problem: `missing field ${missing.map((k) => `"${k}"`).join(', ')}` };
      return {
        line: itemLine,
        domain: record.domain,
        price: record.price_cents,
        floor: record.floor_cents,
        text: false,
      };
    }),
  );
}

// ------------------------------------------------------------------ validation

type RawEntry =
  { line: number; problem: string } | { line: number; domain: unknown; price: unknown; floor: unknown; text: boolean };

/** CSV gives digits as text; JSON must give numbers (a quoted "100" there is a mistake). */
function cents(value: unknown, field: Field, text: boolean): number | string {
  const shown = typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? String(value));
  const problem = `${field} ${shown} is not a non-negative integer number of cents`;
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : problem;
  if (text && typeof value === 'string' && /^\d+$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : `${field} ${shown} is too large`;
  }
  return problem;
}

function validateEntries(raw: RawEntry[]): ParseResult {
  const problems: ImportProblem[] = [];
  const entries: ImportEntry[] = [];
  const firstLine = new Map<string, number>();
  for (const item of raw) {
    if ('problem' in item) {
      problems.push({ line: item.line, message: item.problem });
      continue;
    }
    const rowProblems: string[] = [];
    let domain = '';
    if (typeof item.domain !== 'string') rowProblems.push('domain must be a string');
    else {
      domain = item.domain;
      const syntax = domainSyntaxError(domain);
      if (syntax) rowProblems.push(syntax);
      else {
        const seen = firstLine.get(domain);
        if (seen !== undefined) rowProblems.push(`duplicate domain "${domain}" (first on line ${seen})`);
        else firstLine.set(domain, item.line);
      }
    }
    const price = cents(item.price, 'price_cents', item.text);
    const floor = cents(item.floor, 'floor_cents', item.text);
    if (typeof price === 'string') rowProblems.push(price);
    if (typeof floor === 'string') rowProblems.push(floor);
    if (typeof price === 'number' && typeof floor === 'number' && floor > price) {
      rowProblems.push(`floor_cents ${floor} is above price_cents ${price}`);
    }
    if (rowProblems.length > 0) {
      for (const message of rowProblems) problems.push({ line: item.line, message });
    } else if (typeof price === 'number' && typeof floor === 'number') {
      entries.push({ line: item.line, domain, price_cents: price, floor_cents: floor });
    }
  }
  if (problems.length === 0 && entries.length === 0) {
    // Importing nothing would empty the environment: far more likely a mistake than a wish.
    problems.push({ line: 1, message: 'the file has no rows; refusing to replace the inventory with nothing' });
  }
  return problems.length > 0
    ? { ok: false, problems: problems.sort((a, b) => a.line - b.line) }
    : { ok: true, entries };
}

// ------------------------------------------------------------------ the import

/** By extension, else by the first significant character (`[` is JSON). */
export function detectFormat(path: string, text: string): ImportFormat {
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.json') return 'json';
  return text
    .replace(/^\ufeff/, '')
    .trimStart()
    .startsWith('[')
    ? 'json'
    : 'csv';
}

export function parseInventoryText(text: string, format: ImportFormat): ParseResult {
  const body = text.replace(/^\ufeff/, '');
  return format === 'csv' ? parseCsvEntries(body) : parseJsonEntries(body);
}

/**
 * A listing from an imported entry. The label is the leftmost label and the TLD the rest, which
 * is right for names directly under a TLD or a multi-label suffix (`shop.co.uk`).
 */
export function entryToRow(
  entry: Pick<ImportEntry, 'domain' | 'price_cents' | 'floor_cents'>,
  listedAt: number,
): InventoryRow {
  const dot = entry.domain.indexOf('.');
  const label = entry.domain.slice(0, dot);
  const { keywords, category } = segmentLabel(label);
  return {
    domain: entry.domain,
    label,
    tld: entry.domain.slice(dot + 1),
    price_cents: entry.price_cents,
    floor_cents: entry.floor_cents,
    currency: 'USD',
    category,
    keywords,
    listed_at: listedAt,
  };
}

export interface ImportOptions {
  /** Forces the format instead of detecting it. */
  format?: ImportFormat;
  /** listed_at of domains new to the environment (epoch ms). */
  now?: number;
  batchSize?: number;
}

/**
 * Validates the whole file, then replaces the environment's inventory with it. A domain already
 * in the environment keeps its listed_at, and stays sold if it was sold: re-importing a seller's
 * full catalogue must not put a name that was just sold back on sale.
 */
export async function importInventoryFile(
  db: Kysely<Database>,
  environment: Environment,
  path: string,
  options: ImportOptions = {},
): Promise<ImportOutcome> {
  const text = await readFile(path, 'utf8');
  const format = options.format ?? detectFormat(path, text);
  const parsed = parseInventoryText(text, format);
  if (!parsed.ok) return { ok: false, format, problems: parsed.problems };
  const now = options.now ?? Date.now();
  // In domain order: the primary key and the domain-ordered listing index then grow at their
  // right edge instead of at a random page for every row, which on PostgreSQL made a million-row
  // import about a third as fast (bench/README.md).
  const rows = parsed.entries
    .map((entry) => entryToRow(entry, now))
    .sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
  const { written: imported, keptSold } = await inventoryRepository(db).replaceEnvironment(environment, rows, {
    preserve: true,
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
  });
  return { ok: true, format, imported, keptSold };
}
