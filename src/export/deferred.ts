/** A promise with its resolver in reach. */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  settled: boolean;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  const d: Deferred<T> = {
    promise,
    settled: false,
    resolve(value) {
      if (d.settled) return;
      d.settled = true;
      resolve(value);
    },
  };
  return d;
}
