/** Prints what the emulator stored, one line per span, indented by parent. */
export function printTraces(dev) {
  for (const trace of Object.values(dev.state.traces)) {
    console.log(`trace ${trace.fields.name}`);
    const children = new Map();
    for (const s of trace.spans) children.set(s.parentUuid ?? "", [...(children.get(s.parentUuid ?? "") ?? []), s]);
    const walk = (parent, depth) => {
      for (const s of (children.get(parent) ?? []).sort((a, b) => a.startTime.localeCompare(b.startTime))) {
        const extra = [s.model && `model=${s.model}`, s.inputTokenCount !== undefined && `tokens=${s.inputTokenCount}/${s.outputTokenCount}`, s.integration && `integration=${s.integration}`]
          .filter(Boolean)
          .join(" ");
        console.log(`${"  ".repeat(depth)}[${s.type}] ${s.name} ${extra}`);
        walk(s.uuid, depth + 1);
      }
    };
    walk("", 1);
  }
}
