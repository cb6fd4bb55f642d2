/**
 * The keys of langgraph.json that shape the image an agent runs in rather than the server:
 * `node_version`, `dependencies`, `dockerfile_lines`. Their schemas (used by the config parser, so
 * `berth serve` refuses the same values) and `imageKeysOf`, which the runtimes call on a checked-out
 * config: the local runtime and the image builds on Kubernetes honour them or refuse the revision
 * with the message, never ignore them silently.
 *
 * As the LangGraph CLI: `node_version` is a Node.js major ("20" or 20; no minor or patch), 20 at
 * least; `dependencies` are paths relative to the config (usually ["."]); `dockerfile_lines` are
 * Dockerfile instructions, one an entry.
 */
import { z } from "zod";

export const MIN_NODE_MAJOR = 20;

/** Why `v` is not a usable `node_version`, or undefined. */
export function nodeVersionProblem(v: string | number): string | undefined {
  const text = String(v).trim();
  if (!/^\d+$/.test(text)) return `must be a Node.js major version like "${MIN_NODE_MAJOR}" (no minor or patch), got ${JSON.stringify(v)}`;
  if (Number(text) < MIN_NODE_MAJOR) return `Node.js ${text} is not supported: the minimum is ${MIN_NODE_MAJOR}`;
  return undefined;
}

export const nodeVersionSchema = z.union([z.string(), z.number()]).superRefine((v, ctx) => {
  const problem = nodeVersionProblem(v);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

export const dependenciesSchema = z.array(
  z
    .string()
    .min(1, 'must be a directory relative to the config, like "."')
    .refine((s) => !s.includes("\0"), "must not contain a NUL character"),
);

export const dockerfileLinesSchema = z.array(
  // a line break would smuggle a second instruction past whoever reviews the list
  z.string().refine((s) => !/[\r\n\0]/.test(s), "must be one Dockerfile line: put each instruction in its own entry (no line breaks)"),
);

export interface ImageKeys {
  /** `node_version` as a number; undefined when the config names none. */
  nodeMajor?: number;
  /** `dependencies` as written; undefined when the config names none. */
  dependencies?: string[];
  /** `dockerfile_lines`; empty when none. */
  dockerfileLines: string[];
}

const imageKeysSchema = z
  .object({ node_version: nodeVersionSchema.optional(), dependencies: dependenciesSchema.optional(), dockerfile_lines: dockerfileLinesSchema.optional() })
  .loose();

/** The image keys of a parsed config file, or the problems with them (each naming its key). */
export function imageKeysOf(value: unknown): { ok: true; keys: ImageKeys } | { ok: false; problems: string[] } {
  if (!value || typeof value !== "object" || Array.isArray(value)) return { ok: false, problems: ["(top level): must be a JSON object"] };
  const parsed = imageKeysSchema.safeParse(value);
  if (!parsed.success) return { ok: false, problems: parsed.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(top level)"}: ${i.message}`) };
  const { node_version, dependencies, dockerfile_lines } = parsed.data;
  return {
    ok: true,
    keys: {
      ...(node_version !== undefined ? { nodeMajor: Number(String(node_version).trim()) } : {}),
      ...(dependencies !== undefined ? { dependencies } : {}),
      dockerfileLines: dockerfile_lines ?? [],
    },
  };
}
