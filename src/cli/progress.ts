/** A progress bar on stderr: redrawn in place on a terminal, a line per step otherwise. */
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr) {
  const width = 30;
  return {
    update(done: number, total: number): void {
      const filled = total === 0 ? width : Math.round((done / total) * width);
      const line = `${label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total}`;
      if (stream.isTTY) stream.write(`\r${line}${done === total ? "\n" : ""}`);
      else stream.write(`${line}\n`);
    },
  };
}
