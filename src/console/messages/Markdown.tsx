/**
 * Message text as Markdown, safely: react-markdown builds React elements (never HTML strings), raw
 * HTML in the text stays text, and URLs pass `markdownUrl` (http(s) links, http(s)/data:image
 * images) — a refused URL leaves the link text or the image's alt behind. Very long text is shown
 * plain: parsing megabytes of Markdown would freeze the page.
 */
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { useState } from "react";
import { markdownUrl } from "./safe-url";
import { fmtTokens } from "../format";

/** Longer texts are not parsed as Markdown. */
export const MARKDOWN_MAX_CHARS = 50_000;

const components: Components = {
  a: ({ href, children }) =>
    href ? (
      <a href={href} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    ) : (
      <span className="md-dropped" title="Link removed: only http(s) links are followed">
        {children}
      </span>
    ),
  img: ({ src, alt }) =>
    typeof src === "string" && src ? (
      <img src={src} alt={alt ?? ""} loading="lazy" referrerPolicy="no-referrer" />
    ) : (
      <span className="md-dropped" title="Image removed: only http(s) and data:image sources are shown">
        [image{alt ? `: ${alt}` : ""}]
      </span>
    ),
};

const plugins = [remarkGfm];

export function Markdown({ text }: { text: string }) {
  const [all, setAll] = useState(false);
  if (text.length > MARKDOWN_MAX_CHARS) {
    return (
      <div className="md md-plain">
        <p className="muted">Long text ({fmtTokens(text.length)} characters): shown as plain text.</p>
        <div className="plain-text">{all ? text : text.slice(0, MARKDOWN_MAX_CHARS)}</div>
        {all ? null : (
          <button type="button" className="show-all" onClick={() => setAll(true)}>
            Show all
          </button>
        )}
      </div>
    );
  }
  return (
    <div className="md">
      <ReactMarkdown remarkPlugins={plugins} components={components} urlTransform={markdownUrl} skipHtml={false}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
