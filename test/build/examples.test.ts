import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

// The README points at these: they must keep running (against the built package).
it.each(["examples/demo.mjs", "examples/client.mjs", "examples/openai.mjs"])("%s runs to the end", (example) => {
  const out = execFileSync(process.execPath, [example], { cwd: root, encoding: "utf8", env: { ...process.env, SERVICE_API_KEY: "" } });
  expect(out.length).toBeGreaterThan(50);
  if (example.endsWith("demo.mjs")) {
    expect(out).toContain("└─ [agent] support-agent");
    expect(out).toContain("thread evaluation of conversation-42");
  } else if (example.endsWith("openai.mjs")) {
    expect(out).toContain("[llm] openai.chat.completions model=gpt-4o-mini tokens=14/6 integration=OpenAI");
  } else {
    expect(out).toContain("rejected locally: body");
    expect(out).toContain("rejected by the service: 409");
  }
});
