/**
 * The newest object of each class made per span or per trace, kept for the life of the process
 * so that V8 keeps the shapes (maps) the tracing path was compiled for.
 *
 * V8 forgets a shape that no live object has had through a few full GCs, and deoptimizes every
 * function whose optimized code was built on it. A trace's objects all die once it is delivered,
 * so after a quiet moment (an idle server's memory-reducing GCs, or any full GC between bursts)
 * the next burst would run the whole span path unoptimized while V8 compiles it again, on the
 * app's cores: measured with `--trace-deopt`, four full GCs after 2,000 delivered traces threw away
 * the optimized code of 21–25 of our functions (observe's wrapper, span start and end, the
 * assembler, the batcher, the wire mapping), and the p99 event-loop delay of the burst after it
 * was 4.6-6.8 ms against 2.8-4.9 ms with the shapes kept (raw OpenTelemetry: 2.8-5.5 ms).
 *
 * Keeping the newest object of each class keeps its shape and, through the shape's back
 * pointers, every shape it was built through. The cost is one store per object made and, at
 * most, one trace's objects kept past their time.
 */
export const keptShapes: {
  /** The newest trace record (traces/trace-record.ts). */
  record: object | undefined;
  /** The newest span of `observe()` or an integration (observed-span.ts). */
  span: object | undefined;
  /** The newest context made by setting a value (linked-context.ts). */
  context: object | undefined;
  /** The newest `tracestate` naming one of our spans (remote-parent.ts). */
  traceState: object | undefined;
  /** The newest span of another instrumentation that ended in one of our traces, as the bridge marked it (traces/trace-assembler.ts). */
  foreignSpan: object | undefined;
  /** What the newest span of another instrumentation was read as by its semantic convention when it ended, its span data once sent (bridge/foreign-span.ts). */
  mappedSpan: object | undefined;
  /** The newest trace taken into a batch, its bytes written (encode/batch-body.ts). */
  preparedTrace: object | undefined;
  /** The newest trace taken off its record to be sent (traces/outgoing.ts). */
  outgoingTrace: object | undefined;
} = {
  record: undefined,
  span: undefined,
  context: undefined,
  traceState: undefined,
  foreignSpan: undefined,
  mappedSpan: undefined,
  preparedTrace: undefined,
  outgoingTrace: undefined,
};
