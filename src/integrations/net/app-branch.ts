/** How often the net looks whether the app let go of its branch of a stream while none of its bytes arrive. */
const CHECK_EVERY_MILLIS = 25;

/**
 * The app's side of a body the net reads from a tee. A tee cancels its source only when both
 * branches are cancelled, so an SDK that awaits the cancel of its branch (`break` out of an
 * Anthropic stream) would wait for the net's branch: the net lets go of its own as soon as the
 * app's branch, once read, is no longer locked by a reader (the SDKs hold the lock from their
 * first read to their last). Checked on each chunk, and every 25 ms (a timer that keeps no
 * process alive) while the stream is open.
 */
export interface AppBranch {
  /** Whether the app let go of its branch (read once, unlocked now). */
  gone(): boolean;
  /** Resolves when the app let go of its branch. */
  readonly letGo: Promise<void>;
  /** The net is done with the stream: no more checks. */
  stop(): void;
}

/** Watches `response.body` (the app's branch after `clone()`); reading `locked` changes nothing. */
export function watchAppBranch(response: { body?: unknown }): AppBranch {
  let seenLocked = false;
  const locked = (): boolean | undefined => {
    const body = response.body as { locked?: unknown } | null | undefined;
    return typeof body?.locked === "boolean" ? body.locked : undefined;
  };
  const gone = () => {
    const now = locked();
    if (now === true) seenLocked = true;
    return seenLocked && now === false;
  };
  let release = () => {};
  const letGo = new Promise<void>((resolve) => {
    release = resolve;
  });
  const timer = setInterval(() => {
    if (gone()) release();
  }, CHECK_EVERY_MILLIS);
  (timer as { unref?: () => void }).unref?.();
  return { gone, letGo, stop: () => clearInterval(timer) };
}
