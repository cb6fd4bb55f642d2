/**
 * Image, audio, video and file blocks. The source comes from `mediaSource` only: http(s) URLs,
 * Berth's own attachment route (fetched with the session's key) and data: URLs of a media type
 * that fits the element. Anything else is shown as text with the reason.
 */
import { useEffect, useState, type ReactNode } from "react";
import type { NativeBlock } from "../api/types";
import { fetchAttachment, saveBlob } from "./attachments";
import { mediaName } from "./labels";
import { mediaSource, type MediaKind, type SafeSource } from "./safe-url";

const KIND_LABEL: Record<MediaKind, string> = { image: "Image", audio: "Audio", video: "Video", file: "File" };

/** Long values (a rejected data URL) are cut in the explanation. */
const clip = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** The URL to put in src: as is, or a blob: URL of the fetched attachment. */
function useLoadedUrl(src: SafeSource | undefined, fetchIt: boolean): { url?: string; error?: string } {
  const [state, setState] = useState<{ url?: string; error?: string }>({});
  const attachment = src?.kind === "attachment" && fetchIt ? src.url : undefined;
  useEffect(() => {
    if (!attachment) return;
    const abort = new AbortController();
    let url: string | undefined;
    setState({});
    fetchAttachment(attachment, abort.signal).then(
      (blob) => {
        url = URL.createObjectURL(blob);
        setState({ url });
      },
      (err: unknown) => {
        if (!abort.signal.aborted) setState({ error: err instanceof Error ? err.message : String(err) });
      },
    );
    return () => {
      abort.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [attachment]);
  if (!src || src.kind === "attachment") return state;
  return { url: src.url };
}

type MediaBlockT = Extract<NativeBlock, { type: MediaKind }>;

export function MediaBlock({ block }: { block: MediaBlockT }) {
  const kind: MediaKind = block.type;
  const source = mediaSource(kind, block);
  const safe = source && source.kind !== "unsafe" ? source : undefined;
  // files are fetched when asked for (they can be large and are not shown inline)
  const loaded = useLoadedUrl(safe, kind !== "file");
  const name = mediaName(block);
  const mime = typeof block.mime_type === "string" ? block.mime_type : undefined;
  const caption = (
    <span className="media-caption">
      <span className="block-label">{KIND_LABEL[kind]}</span> {name !== kind ? <span className="media-name">{name}</span> : null}
      {mime ? <span className="muted"> {mime}</span> : null}
    </span>
  );

  if (!source) {
    return (
      <div className={`block-media media-${kind} media-absent`}>
        {caption}
        <span className="muted"> — not included in the trace{typeof block.id === "string" ? ` (id ${block.id})` : ""}</span>
      </div>
    );
  }
  if (source.kind === "unsafe") {
    const what = typeof block.url === "string" ? block.url : undefined;
    return (
      <div className={`block-media media-${kind} media-unsafe`}>
        {caption}
        <span className="muted"> — not shown: {source.reason}</span>
        {what ? (
          <div>
            <code className="unsafe-url">{clip(what)}</code>
          </div>
        ) : null}
      </div>
    );
  }

  if (kind === "file") return <FileBlock source={source} name={name} caption={caption} />;
  if (loaded.error) {
    return (
      <div className={`block-media media-${kind}`}>
        {caption}
        <span className="error"> {loaded.error}</span>
      </div>
    );
  }
  if (!loaded.url) {
    return (
      <div className={`block-media media-${kind}`} role="status">
        {caption} <span className="muted">loading…</span>
      </div>
    );
  }
  const extras = (typeof block.extras === "object" && block.extras !== null ? block.extras : {}) as Record<string, unknown>;
  return (
    <figure className={`block-media media-${kind}`}>
      {kind === "image" ? <img src={loaded.url} alt={name === "image" ? "Image from the trace" : name} loading="lazy" referrerPolicy="no-referrer" /> : null}
      {kind === "audio" ? <audio controls preload="none" src={loaded.url} aria-label={`Audio: ${name}`} /> : null}
      {kind === "video" ? <video controls preload="none" src={loaded.url} aria-label={`Video: ${name}`} /> : null}
      <figcaption>
        {caption}
        {typeof extras.transcript === "string" ? <span className="transcript"> “{extras.transcript}”</span> : null}
        {typeof extras.revised_prompt === "string" ? <span className="muted"> prompt: {extras.revised_prompt}</span> : null}
      </figcaption>
    </figure>
  );
}

/** The bytes of a base64 data: URL (checked by `mediaSource`) as a blob of its type. */
function dataToBlob(url: string, mime: string): Blob {
  const bin = atob(url.slice(url.indexOf(",") + 1).replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Blob([bytes], { type: mime });
}

/** A file: a link when it is on the web, else a button that saves the inline data or the attachment. */
function FileBlock({ source, name, caption }: { source: SafeSource; name: string; caption: ReactNode }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const fileName = name === "file" ? "download" : name;
  let link: ReactNode;
  if (source.kind === "external") {
    link = (
      <a href={source.url} target="_blank" rel="noopener noreferrer nofollow">
        Open {fileName}
      </a>
    );
  } else {
    // inline data and attachments are saved through a blob: no data: link to a document type
    const download = async () => {
      setBusy(true);
      setError(undefined);
      try {
        saveBlob(source.kind === "data" ? dataToBlob(source.url, source.mime) : await fetchAttachment(source.url), fileName);
      } catch (err) {
        setError(err instanceof Error ? err.message : String(err));
      } finally {
        setBusy(false);
      }
    };
    link = (
      <button type="button" disabled={busy} onClick={download}>
        Download {fileName}
      </button>
    );
  }
  return (
    <div className="block-media media-file">
      {caption} {link}
      {error ? <span className="error"> {error}</span> : null}
    </div>
  );
}
