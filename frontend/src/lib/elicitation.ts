// Forms for agents' questions (ACP elicitation/create, form mode): the
// fields of a restricted JSON Schema, their starting values, and the check
// of an answer before it is sent. The check mirrors Go's
// acp.ElicitationSchema.ValidateContent (the bridge checks again and
// answers bad_request with "field: reason" lines, parsed by parseDetails).
// The texts (Form.unsupported, reasonText) are in the interface language:
// build the form and the reasons while rendering (in a $derived).

import { num as formatNum } from './format';
import { m } from './i18n.svelte';

export type FieldKind = 'text' | 'number' | 'integer' | 'boolean' | 'select' | 'multiselect';

export interface Choice {
  value: string;
  label: string;
}

export interface Field {
  name: string;
  kind: FieldKind;
  label: string;
  description: string;
  required: boolean;
  choices: Choice[];
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  /** Checked by the bridge only (see checkString). */
  pattern?: string;
  /** email | uri | date | date-time */
  format?: string;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
}

/** What the form holds per field: text as typed, a checkbox, the chosen values. */
export type FieldValue = string | boolean | string[];

/** Why a field is refused (the same codes Go sends). */
export type Reason =
  | 'unknown'
  | 'required'
  | 'type'
  | 'min'
  | 'max'
  | 'minLength'
  | 'maxLength'
  | 'pattern'
  | 'format'
  | 'choice'
  | 'minItems'
  | 'maxItems';

export interface Form {
  title: string;
  description: string;
  fields: Field[];
  /** Set when the schema holds something no form can ask (the answer can only be decline). */
  unsupported: string;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function choicesOf(p: Obj): Choice[] {
  const out: Choice[] = [];
  const plain = Array.isArray(p.enum) ? p.enum : [];
  for (const v of plain) if (typeof v === 'string') out.push({ value: v, label: v });
  const titled = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : [];
  for (const o of titled) {
    if (isObj(o) && typeof o.const === 'string') out.push({ value: o.const, label: str(o.title) || o.const });
  }
  return out;
}

/** Builds the form of a schema; properties keep the agent's order. */
export function buildForm(schema: unknown): Form {
  const form: Form = { title: '', description: '', fields: [], unsupported: '' };
  if (!isObj(schema)) {
    form.unsupported = m.chat_elicit_no_form();
    return form;
  }
  form.title = str(schema.title);
  form.description = str(schema.description);
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : []);
  const props = isObj(schema.properties) ? schema.properties : {};
  for (const [name, raw] of Object.entries(props)) {
    if (!isObj(raw)) continue;
    const f: Field = {
      name,
      kind: 'text',
      label: str(raw.title) || name,
      description: str(raw.description),
      required: required.has(name),
      choices: [],
      default: raw.default,
    };
    switch (raw.type) {
      case 'string': {
        f.choices = choicesOf(raw);
        f.kind = f.choices.length ? 'select' : 'text';
        f.minLength = num(raw.minLength);
        f.maxLength = num(raw.maxLength);
        f.pattern = str(raw.pattern) || undefined;
        f.format = str(raw.format) || undefined;
        break;
      }
      case 'number':
      case 'integer':
        f.kind = raw.type;
        f.min = num(raw.minimum);
        f.max = num(raw.maximum);
        break;
      case 'boolean':
        f.kind = 'boolean';
        break;
      case 'array': {
        f.kind = 'multiselect';
        f.choices = isObj(raw.items) ? choicesOf(raw.items) : [];
        f.minItems = num(raw.minItems);
        f.maxItems = num(raw.maxItems);
        if (!f.choices.length) form.unsupported = m.chat_elicit_no_choices({ field: f.label });
        break;
      }
      default:
        form.unsupported = m.chat_elicit_bad_kind({ field: f.label });
        continue;
    }
    form.fields.push(f);
  }
  return form;
}

/** The starting values: the schema's defaults, else empty. */
export function initialValues(form: Form): Record<string, FieldValue> {
  const v: Record<string, FieldValue> = {};
  for (const f of form.fields) {
    const d = f.default;
    switch (f.kind) {
      case 'boolean':
        v[f.name] = d === true;
        break;
      case 'multiselect':
        v[f.name] = Array.isArray(d) ? d.filter((x): x is string => typeof x === 'string') : [];
        break;
      case 'number':
      case 'integer':
        v[f.name] = typeof d === 'number' ? String(d) : '';
        break;
      default:
        v[f.name] = typeof d === 'string' ? d : '';
    }
  }
  return v;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const EMAIL = /^[^\s@<>()]+@[^\s@<>()]+$/;

function validDate(s: string): boolean {
  if (!DATE.test(s)) return false;
  const d = new Date(s + 'T00:00:00Z'); // i18n-ignore: an ISO 8601 time, not text
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

function validFormat(format: string | undefined, s: string): boolean {
  switch (format) {
    case 'email':
      return EMAIL.test(s);
    case 'uri':
      try {
        const u = new URL(s);
        return u.protocol.length > 1;
      } catch {
        return false;
      }
    case 'date':
      return validDate(s);
    case 'date-time':
      return DATE_TIME.test(s) && validDate(s.slice(0, 10));
    default:
      return true;
  }
}

function checkString(f: Field, s: string): Reason | '' {
  const n = [...s].length;
  if (f.minLength !== undefined && n < f.minLength) return 'minLength';
  if (f.maxLength !== undefined && n > f.maxLength) return 'maxLength';
  // A pattern is never run here: the agent writes it (and the default it
  // would be run on), and a backtracking one could hang the page. Go checks
  // it with RE2 (linear time) and answers "pattern".
  return validFormat(f.format, s) ? '' : 'format';
}

export interface Checked {
  /** The answer to send (only the fields given). */
  content: Record<string, unknown>;
  /** Field name → why it is refused; empty when the answer fits. */
  errors: Record<string, Reason>;
}

/** Checks the form's values and makes the answer. An empty optional
 * field is left out; an empty required one is "required". */
export function check(form: Form, values: Record<string, FieldValue>): Checked {
  const content: Record<string, unknown> = {};
  const errors: Record<string, Reason> = {};
  for (const f of form.fields) {
    const v = values[f.name];
    let out: unknown;
    let reason: Reason | '' = '';
    switch (f.kind) {
      case 'boolean':
        out = v === true;
        break;
      case 'multiselect': {
        const list = Array.isArray(v) ? v : [];
        if (!list.length && !f.required && f.minItems === undefined) break;
        if (list.some((x, i) => !f.choices.some((c) => c.value === x) || list.indexOf(x) !== i)) reason = 'choice';
        else if (f.minItems !== undefined && list.length < f.minItems) reason = 'minItems';
        else if (f.maxItems !== undefined && list.length > f.maxItems) reason = 'maxItems';
        out = list;
        break;
      }
      case 'number':
      case 'integer': {
        const s = typeof v === 'string' ? v.trim() : '';
        if (s === '') break;
        const n = Number(s);
        if (!Number.isFinite(n) || (f.kind === 'integer' && !Number.isInteger(n))) reason = 'type';
        else if (f.min !== undefined && n < f.min) reason = 'min';
        else if (f.max !== undefined && n > f.max) reason = 'max';
        out = n;
        break;
      }
      case 'select': {
        const s = typeof v === 'string' ? v : '';
        if (s === '') break;
        if (!f.choices.some((c) => c.value === s)) reason = 'choice';
        out = s;
        break;
      }
      default: {
        const s = typeof v === 'string' ? v : '';
        if (s === '') break;
        reason = checkString(f, s);
        out = s;
      }
    }
    if (out === undefined) {
      if (f.required) errors[f.name] = 'required';
      continue;
    }
    if (reason) errors[f.name] = reason;
    else content[f.name] = out;
  }
  return { content, errors };
}

/** The bridge's bad_request details ("field: reason" per line) as errors. */
export function parseDetails(details: string | undefined): Record<string, Reason> {
  const out: Record<string, Reason> = {};
  for (const line of (details ?? '').split('\n')) {
    const i = line.lastIndexOf(': ');
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 2) as Reason;
  }
  return out;
}

/** A sentence for a refused field (the UI's wording of Go's codes). */
export function reasonText(f: Field | undefined, r: Reason): string {
  const n = (x: number | undefined) => (x === undefined ? '' : formatNum(x));
  switch (r) {
    case 'required':
      return m.chat_elicit_err_required();
    case 'type':
      return f?.kind === 'integer' ? m.chat_elicit_err_integer() : f?.kind === 'number' ? m.chat_elicit_err_number() : m.chat_elicit_err_type();
    case 'min':
      return m.chat_elicit_err_min({ min: n(f?.min) });
    case 'max':
      return m.chat_elicit_err_max({ max: n(f?.max) });
    case 'minLength':
      return m.chat_elicit_err_min_length({ count: f?.minLength ?? 0 });
    case 'maxLength':
      return m.chat_elicit_err_max_length({ count: f?.maxLength ?? 0 });
    case 'pattern':
      return m.chat_elicit_err_pattern();
    case 'format':
      return f?.format === 'email'
        ? m.chat_elicit_err_email()
        : f?.format === 'uri'
          ? m.chat_elicit_err_uri()
          : f?.format === 'date'
            ? m.chat_elicit_err_date()
            : m.chat_elicit_err_date_time();
    case 'choice':
      return m.chat_elicit_err_choice();
    case 'minItems':
      return m.chat_elicit_err_min_items({ count: f?.minItems ?? 0 });
    case 'maxItems':
      return m.chat_elicit_err_max_items({ count: f?.maxItems ?? 0 });
    case 'unknown':
      return m.chat_elicit_err_unknown();
  }
  return m.chat_elicit_err_other();
}

/** One answered field of a question, worded for the thread. */
export interface AnswerRow {
  label: string;
  value: string;
}

/** The accepted values of a question, in its form's order, labelled by
 * the fields' titles: choices by their titles, yes/no for checkboxes. */
export function answerRows(schema: unknown, content: unknown): AnswerRow[] {
  if (!isObj(content)) return [];
  const form = buildForm(schema);
  const rows: AnswerRow[] = [];
  const label = (f: Field | undefined, v: unknown): string => {
    if (typeof v === 'boolean') return v ? m.chat_cp_answer_yes() : m.chat_cp_answer_no();
    if (typeof v === 'string') return f?.choices.find((c) => c.value === v)?.label ?? v;
    if (typeof v === 'number') return String(v);
    if (Array.isArray(v)) return v.map((x) => label(f, x)).join(m.chat_cp_answer_sep());
    return JSON.stringify(v);
  };
  const seen = new Set<string>();
  for (const f of form.fields) {
    if (!(f.name in content)) continue;
    seen.add(f.name);
    rows.push({ label: f.label, value: label(f, content[f.name]) });
  }
  for (const [k, v] of Object.entries(content)) if (!seen.has(k)) rows.push({ label: k, value: label(undefined, v) });
  return rows;
}
