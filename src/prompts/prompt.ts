import type { ModelSettings, OutputSchema, PromptMessage, PromptTool } from "../protocol/types.js";
import { missingError, PromptInterpolationError } from "./errors.js";
import { type InterpolationType, interpolateText, type PromptVariables } from "./interpolate.js";

/** A tool of a pulled prompt, with the ids the service assigned. */
export type PulledPromptTool = PromptTool & { id?: string };

/** What every pulled prompt carries, text or messages. */
export interface PromptBase {
  /** The prompt's alias. */
  readonly alias: string;
  /** The service's id of the prompt (not the alias). */
  readonly promptId: string;
  /** The commit this copy is; not a version number. */
  readonly hash: string;
  /** The version released from this commit, when it was pulled by version or label; else null. */
  readonly version: string | null;
  /** The label it was pulled by; else null. */
  readonly label: string | null;
  /** The branch of the commit, when the service says. */
  readonly branch: string | null;
  /** How the template marks its variables. */
  readonly interpolationType: InterpolationType;
  readonly modelSettings: ModelSettings | null;
  readonly outputType: "TEXT" | "JSON" | "SCHEMA" | null;
  readonly outputSchema: OutputSchema | null;
  readonly tools: readonly PulledPromptTool[] | null;
}

/** A pulled text prompt: `text` is its template. */
export interface TextPrompt extends PromptBase {
  readonly type: "TEXT";
  readonly text: string;
  readonly messages: null;
  /**
   * The text with every variable replaced (see {@link InterpolationType} for each syntax).
   * @throws PromptInterpolationError naming the variables the template uses that were not given.
   * @throws Error for a JINJA prompt when the optional peer dependency `@huggingface/jinja` is not installed.
   */
  interpolate(variables?: PromptVariables): string;
}

/** A pulled messages prompt: each message's `content` is a template. */
export interface MessagesPrompt extends PromptBase {
  readonly type: "LIST";
  readonly text: null;
  readonly messages: readonly PromptMessage[];
  /**
   * The messages with every variable of each content replaced; roles unchanged.
   * @throws PromptInterpolationError naming the variables the templates use that were not given.
   * @throws Error for a JINJA prompt when the optional peer dependency `@huggingface/jinja` is not installed.
   */
  interpolate(variables?: PromptVariables): PromptMessage[];
}

/**
 * A prompt pulled with `client.prompts.pull()`: a text prompt (`type: "TEXT"`) or a messages
 * prompt (`type: "LIST"`), with its metadata and `interpolate()`. It is immutable: the same
 * object may be served from the cache to many callers.
 */
export type Prompt = TextPrompt | MessagesPrompt;

/** The fields of a pulled prompt, as read from the service's answer. */
export type PromptFields = Omit<PromptBase, "alias"> & { alias: string } & ({ text: string; messages: null } | { text: null; messages: PromptMessage[] });

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** A prompt object from the fields of an answer (copied, then frozen). */
export function makePrompt(fields: PromptFields): Prompt {
  const copy = structuredClone(fields);
  const { interpolationType } = copy;
  if (copy.text !== null) {
    const text = copy.text;
    const prompt: TextPrompt = { ...copy, text, messages: null, type: "TEXT", interpolate: (variables = {}) => naming(copy, () => interpolateText(interpolationType, text, variables)) };
    return deepFreeze(prompt);
  }
  const messages = copy.messages;
  const prompt: MessagesPrompt = {
    ...copy,
    text: null,
    messages,
    type: "LIST",
    interpolate: (variables = {}) => naming(copy, () => interpolateMessages(interpolationType, messages, variables)),
  };
  return deepFreeze(prompt);
}

/** Runs a render; an interpolation error names the prompt (alias, and version or commit) first. */
function naming<T>(fields: PromptFields, render: () => T): T {
  try {
    return render();
  } catch (err) {
    if (!(err instanceof PromptInterpolationError)) throw err;
    const which = fields.version ? ` version ${fields.version}` : fields.hash ? ` commit ${fields.hash}` : "";
    throw new PromptInterpolationError(`prompt "${fields.alias}"${which}: ${err.message}`, err.variables);
  }
}

/** Renders each message's content; all missing variables of all messages are named at once. */
function interpolateMessages(type: InterpolationType, messages: readonly PromptMessage[], variables: PromptVariables): PromptMessage[] {
  const missing: string[] = [];
  const out = messages.map((m) => {
    try {
      return { role: m.role, content: interpolateText(type, m.content, variables) };
    } catch (err) {
      if (!(err instanceof PromptInterpolationError) || err.variables.length === 0) throw err;
      for (const name of err.variables) if (!missing.includes(name)) missing.push(name);
      return m;
    }
  });
  if (missing.length > 0) throw missingError(missing);
  return out;
}
