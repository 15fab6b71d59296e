import type { KeyedTransport } from "../http/keyed-transport.js";
import type { RequestBody, SendOptions, TransportOutcome } from "../http/transport.js";
import { Slots } from "../util/slots.js";
import type { ExporterCounters } from "./types.js";

/**
 * The exporter's requests: at most `concurrency` in flight, their slots shared by batches, late
 * updates and offline evaluations, each request counted with its bytes. Retry is the transport's.
 */
export class Requests {
  private readonly slots: Slots;

  constructor(
    private readonly transport: KeyedTransport,
    private readonly counters: Pick<ExporterCounters, "requests" | "bytesSent">,
    private readonly concurrency: number,
  ) {
    this.slots = new Slots(concurrency);
  }

  /** Runs `task` in a slot, once one is free (it counts as running until a microtask after it settled). */
  add<T>(task: () => Promise<T>): Promise<T> {
    return this.slots.add(task);
  }

  /** Sends one request, counted; the caller holds a slot. */
  async send(method: "POST" | "PUT", path: string, body: RequestBody, apiKey?: string, options?: SendOptions): Promise<TransportOutcome> {
    this.counters.requests++;
    this.counters.bytesSent += body.length;
    return this.transport.send(method, path, body, apiKey, options);
  }

  /** Sends one request in a slot, once one is free. */
  sendInSlot(method: "POST" | "PUT", path: string, body: RequestBody, apiKey?: string): Promise<TransportOutcome> {
    return this.slots.add(() => this.send(method, path, body, apiKey));
  }

  /** Requests in flight now. */
  get inFlight(): number {
    return this.slots.pending;
  }

  /** Whether a task added now would start at once (no slot is taken, or promised to a waiting task). */
  get hasFreeSlot(): boolean {
    return this.slots.pending + this.slots.size < this.concurrency;
  }

  /** Resolves once no request runs or waits for a slot. */
  whenIdle(): Promise<void> {
    return this.slots.onIdle();
  }

  /** Calls `fn` each time a request freed its slot. */
  onSlotFreed(fn: () => void): void {
    this.slots.onFreed(fn);
  }

  /** Why nothing answers at the base URL, while nothing ever did and the last connection was refused. */
  get nothingAnswers(): string | undefined {
    return this.transport.nothingAnswers;
  }

  /** See {@link KeyedTransport.whenNeverReached}: nothing ever answered, and nothing listens. */
  whenNeverReached(): { promise: Promise<string>; cancel: () => void } {
    return this.transport.whenNeverReached();
  }

  /** Closes the transport: what is in flight is cut off, nothing retries after it. */
  close(): Promise<void> {
    return this.transport.close();
  }
}
