/** JSON Schema (the subset forms need) → fields, and the form's strings back to typed values. */

type Schema = Record<string, unknown>;

export interface Option {
  value: string;
  label: string;
  /** The enum value as the schema has it (a number stays a number). */
  raw: unknown;
}

interface FieldBase {
  name: string;
  title: string;
  description?: string;
  required: boolean;
  default?: unknown;
}

export type Field =
  | (FieldBase & { kind: 'text'; inputType: 'text' | 'email' | 'url' | 'date' | 'datetime-local' })
  | (FieldBase & { kind: 'secret' })
  | (FieldBase & { kind: 'number'; integer: boolean })
  | (FieldBase & { kind: 'boolean' })
  | (FieldBase & { kind: 'choice'; options: Option[] })
  | (FieldBase & { kind: 'multi'; options: Option[] })
  /** Objects, arrays of objects, anything else: typed as JSON. */
  | (FieldBase & { kind: 'json' });

type FormValue = string | boolean | string[];

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Enum values with their titles: `enum` (+ MCP's legacy `enumNames`) or `oneOf`/`anyOf` of `{const, title}`. */
function optionsOf(schema: Schema): Option[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? (schema.enumNames as unknown[]) : [];
    return schema.enum.map((value, index) => ({ value: String(value), label: String(names[index] ?? value), raw: value }));
  }
  const variants = (schema.oneOf ?? schema.anyOf) as unknown;
  if (Array.isArray(variants) && variants.length && variants.every((variant) => isObject(variant) && 'const' in variant)) {
    return variants.map((variant: Schema) => ({
      value: String(variant.const),
      label: String(variant.title ?? variant.const),
      raw: variant.const,
    }));
  }
  return undefined;
}

function typeOf(schema: Schema): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.find((type) => type !== 'null') as string | undefined;
  return undefined;
}

const INPUT_TYPES: Record<string, 'email' | 'url' | 'date' | 'datetime-local'> = { email: 'email', uri: 'url', date: 'date' };

function fieldOf(name: string, schema: Schema, required: boolean): Field {
  const base: FieldBase = {
    name,
    title: typeof schema.title === 'string' ? schema.title : name,
    description: typeof schema.description === 'string' ? schema.description : undefined,
    required,
    default: schema.default,
  };
  const type = typeOf(schema);
  const options = optionsOf(schema);
  if (options) return { ...base, kind: 'choice', options };
  if (type === 'array' && isObject(schema.items)) {
    const itemOptions = optionsOf(schema.items);
    if (itemOptions) return { ...base, kind: 'multi', options: itemOptions };
  }
  if (type === 'string') {
    if (schema.writeOnly === true || schema.format === 'password') return { ...base, kind: 'secret' };
    return { ...base, kind: 'text', inputType: INPUT_TYPES[String(schema.format)] ?? 'text' };
  }
  if (type === 'number' || type === 'integer') return { ...base, kind: 'number', integer: type === 'integer' };
  if (type === 'boolean') return { ...base, kind: 'boolean' };
  return { ...base, kind: 'json' };
}

/** The fields of an object schema, in the order of its properties. */
export function fieldsOf(schema: unknown): Field[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(schema.properties).map(([name, property]) => fieldOf(name, isObject(property) ? property : {}, required.has(name)));
}

/** Each field's starting value: `initial` (values already set) first, else the schema's default. */
export function initialValues(fields: Field[], initial: Record<string, unknown> = {}): Record<string, FormValue> {
  return Object.fromEntries(
    fields.map(({ ...field }): [string, FormValue] => {
      if (initial[field.name] !== undefined) field.default = initial[field.name];
      if (field.kind === 'boolean') return [field.name, field.default === true];
      if (field.kind === 'multi') return [field.name, Array.isArray(field.default) ? field.default.map(String) : []];
      if (field.kind === 'json') return [field.name, field.default === undefined ? '' : JSON.stringify(field.default, null, 2)];
      if (field.kind === 'choice' && field.default === undefined && field.required) return [field.name, field.options[0]?.value ?? ''];
      return [field.name, field.default === undefined ? '' : String(field.default)];
    }),
  );
}

/**
 * Typed values to send, and the problems the form can tell by itself (a required field left
 * empty, a number or JSON that does not parse). Everything else is the API's to check.
 */
export function valuesToSubmit(
  fields: Field[],
  values: Record<string, FormValue>,
): { values: Record<string, unknown>; problems: Record<string, string> } {
  const out: Record<string, unknown> = {};
  const problems: Record<string, string> = {};
  for (const field of fields) {
    const raw = values[field.name];
    if (field.kind === 'boolean') {
      out[field.name] = raw === true;
      continue;
    }
    if (field.kind === 'multi') {
      const chosen = field.options.filter((option) => (raw as string[]).includes(option.value)).map((option) => option.raw);
      if (chosen.length || field.required) out[field.name] = chosen;
      continue;
    }
    const text = String(raw ?? '');
    if (text === '') {
      if (field.required) problems[field.name] = 'Required';
      continue;
    }
    if (field.kind === 'number') {
      const number = Number(text);
      if (!Number.isFinite(number) || (field.integer && !Number.isInteger(number)))
        problems[field.name] = field.integer ? 'Not an integer' : 'Not a number';
      else out[field.name] = number;
    } else if (field.kind === 'choice') {
      out[field.name] = field.options.find((option) => option.value === text)?.raw ?? text;
    } else if (field.kind === 'json') {
      try {
        out[field.name] = JSON.parse(text);
      } catch {
        problems[field.name] = 'Not valid JSON';
      }
    } else {
      out[field.name] = text;
    }
  }
  return { values: out, problems };
}
