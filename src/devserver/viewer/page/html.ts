import { scriptCompare } from "./script-compare.js";
import { scriptCore } from "./script-core.js";
import { scriptPages } from "./script-pages.js";
import { scriptRender } from "./script-render.js";
import { scriptThreads } from "./script-threads.js";
import { scriptTraces } from "./script-traces.js";
import { viewerStyles } from "./styles.js";

/** The views in the header, in order: `data-view` is the first part of the hash route. */
const nav: readonly [view: string, label: string][] = [
  ["traces", "Traces"],
  ["threads", "Threads"],
  ["prompts", "Prompts"],
  ["datasets", "Datasets"],
  ["test-runs", "Test runs"],
  ["metrics", "Metrics"],
];

/** The page's one script (inline: the page is one file); the CSP allows it by its hash. */
export const viewerScript = `
(function () {
${scriptCore}
${scriptRender}
${scriptTraces}
${scriptThreads}
${scriptCompare}
${scriptPages}
V.live();
V.render();
})();
`;

/**
 * The trace viewer the emulator serves at its root: one self-contained page (no build step, no
 * UI framework) over the viewer's read API (`/_dev/view/...`, `/_dev/...`). Every view has a
 * deep link (`#/traces/:uuid/:spanUuid`, `#/threads/:id`, `#/prompts/:alias`,
 * `#/datasets/:alias`, `#/test-runs/:id`, `#/test-runs/compare?base=&head=`, `#/metrics`); the list pages on the server and follows
 * writes through server-sent events (`/_dev/events`), never by polling.
 */
export const viewerHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>evaltrace dev</title>
<style>${viewerStyles}</style>
</head>
<body>
<header>
  <h1>evaltrace dev</h1>
  <nav>${nav.map(([view, label]) => `<a href="#/${view}" data-view="${view}">${label}</a>`).join("")}</nav>
  <span id="status">connecting…</span>
</header>
<main id="view"></main>
<script>${viewerScript}</script>
</body>
</html>
`;
