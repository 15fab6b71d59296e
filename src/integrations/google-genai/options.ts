import type { ModelWrapOptions } from "../kit/model-call.js";

/** Options of {@link wrapGoogleGenAI}. */
export interface WrapGoogleGenAIOptions extends ModelWrapOptions {}

/** What a wrapped `models` object keeps: the latest options. */
export type State = { options: WrapGoogleGenAIOptions };
