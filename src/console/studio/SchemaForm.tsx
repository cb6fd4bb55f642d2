/**
 * A form generated from a JSON Schema (schema-form.ts), with raw JSON as the fallback: when the
 * schema has no properties, or by choice ("Edit as JSON"). Keys the schema does not list are kept.
 */
import { useEffect, useMemo, useState } from "react";
import { formFields, formTexts, formValue } from "./schema-form";

export function SchemaForm({
  schema,
  value,
  onChange,
  label,
}: {
  schema: unknown;
  value: Record<string, unknown>;
  onChange: (v: Record<string, unknown>, error?: string) => void;
  label: string;
}) {
  const fields = useMemo(() => formFields(schema), [schema]);
  const [raw, setRaw] = useState(!fields);
  const [texts, setTexts] = useState(() => (fields ? formTexts(fields, value) : {}));
  const [json, setJson] = useState(() => JSON.stringify(value ?? {}, null, 2));
  const [errors, setErrors] = useState<Record<string, string>>({});
  useEffect(() => setRaw(!fields), [fields]);

  const setField = (key: string, text: string) => {
    const next = { ...texts, [key]: text };
    setTexts(next);
    const r = formValue(fields!, next, value);
    setErrors(r.ok ? {} : r.errors);
    if (r.ok) {
      onChange(r.value);
      setJson(JSON.stringify(r.value, null, 2));
    } else onChange(value, Object.entries(r.errors).map(([k, e]) => `${k}: ${e}`).join("; "));
  };
  const setRawJson = (text: string) => {
    setJson(text);
    try {
      const v = JSON.parse(text || "{}");
      if (!v || typeof v !== "object" || Array.isArray(v)) throw new Error("must be a JSON object");
      setErrors({});
      if (fields) setTexts(formTexts(fields, v));
      onChange(v);
    } catch (err) {
      setErrors({ json: (err as Error).message });
      onChange(value, `${label}: ${(err as Error).message}`);
    }
  };

  return (
    <fieldset className="studio-form" aria-label={label}>
      <legend>
        {label}
        {fields ? (
          <button type="button" className="link" onClick={() => setRaw(!raw)}>
            {raw ? "Edit as form" : "Edit as JSON"}
          </button>
        ) : null}
      </legend>
      {raw || !fields ? (
        <label>
          <span className="sr-only">{label} (JSON)</span>
          <textarea aria-label={`${label} (JSON)`} rows={6} value={json} onChange={(e) => setRawJson(e.target.value)} spellCheck={false} />
          {errors.json ? <span className="field-error">{errors.json}</span> : null}
        </label>
      ) : (
        fields.map((f) => (
          <label key={f.key} className="studio-field">
            <span>
              {f.label}
              {f.required ? " *" : ""}
            </span>
            {f.kind === "enum" ? (
              <select value={texts[f.key] ?? ""} onChange={(e) => setField(f.key, e.target.value)}>
                <option value="">—</option>
                {f.options!.map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </select>
            ) : f.kind === "boolean" ? (
              <select value={texts[f.key] ?? ""} onChange={(e) => setField(f.key, e.target.value)}>
                <option value="">—</option>
                <option>true</option>
                <option>false</option>
              </select>
            ) : f.kind === "json" ? (
              <textarea rows={3} value={texts[f.key] ?? ""} onChange={(e) => setField(f.key, e.target.value)} spellCheck={false} />
            ) : (
              <input type={f.kind === "string" ? "text" : "number"} value={texts[f.key] ?? ""} onChange={(e) => setField(f.key, e.target.value)} />
            )}
            {f.description ? <small>{f.description}</small> : null}
            {errors[f.key] ? <span className="field-error">{errors[f.key]}</span> : null}
          </label>
        ))
      )}
    </fieldset>
  );
}
