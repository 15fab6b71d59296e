/** A problem with what the user gave the CLI (a file, a value): printed as one line, exit 1. */
export class InputError extends Error {
  override readonly name = "InputError";
}
