/**
 * Provider citations → `citation` annotations on text blocks, in LangChain's shape
 * ({type: "citation", url, title, start_index, end_index, cited_text, extras}), so a renderer
 * needs to know one kind only. Annotations we do not know are kept as sent.
 */
import { isObj, str } from "./fields.js";

type Citation = {
  type: "citation";
  url?: string;
  title?: string;
  start_index?: number;
  end_index?: number;
  cited_text?: string;
  extras?: Record<string, unknown>;
};

const num = (x: unknown): number | undefined => (typeof x === "number" && Number.isFinite(x) ? x : undefined);

/** Drops absent fields so equal citations compare equal whatever the source spelled out. */
function citation(fields: Omit<Citation, "type">): Citation {
  const extras = Object.fromEntries(Object.entries(fields.extras ?? {}).filter(([, v]) => v !== undefined && v !== null));
  const out: Citation = { type: "citation" };
  for (const key of ["url", "title", "start_index", "end_index", "cited_text"] as const) if (fields[key] !== undefined) (out as any)[key] = fields[key];
  if (Object.keys(extras).length) out.extras = extras;
  return out;
}

const ANTHROPIC_LOCATIONS = new Set(["char_location", "page_location", "content_block_location", "search_result_location", "web_search_result_location"]);

export function toAnnotation(a: unknown): unknown {
  if (!isObj(a)) return a;
  switch (a.type) {
    case "url_citation": {
      // Responses API puts the fields inline; chat completions nests them under `url_citation`
      const c = isObj(a.url_citation) ? a.url_citation : a;
      return citation({ url: str(c.url), title: str(c.title), start_index: num(c.start_index), end_index: num(c.end_index) });
    }
    case "file_citation":
      return citation({ title: str(a.filename), extras: { file_id: a.file_id, index: a.index } });
    case "container_file_citation":
      return citation({ title: str(a.filename), start_index: num(a.start_index), end_index: num(a.end_index), extras: { file_id: a.file_id, container_id: a.container_id } });
  }
  if (typeof a.type === "string" && ANTHROPIC_LOCATIONS.has(a.type)) {
    // Anthropic indexes point into the cited source, not into the answer, so they stay in extras
    const { type, cited_text, title, document_title, url, ...rest } = a;
    return citation({ url: str(url), title: str(title) ?? str(document_title), cited_text: str(cited_text), extras: { ...rest, location: type } });
  }
  return a;
}

/** A list of annotations/citations; anything not a list gives none. */
export function toAnnotations(list: unknown): unknown[] {
  return Array.isArray(list) ? list.map(toAnnotation) : [];
}
