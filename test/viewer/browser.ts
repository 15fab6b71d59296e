import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { runsHere } from "../helpers/skips.js";

/** Debian's Chromium, which .ci/run installs; CHROMIUM_PATH overrides. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Whether the browser tests run: CI installs Chromium, so there a missing browser fails instead of skipping. */
export const available = runsHere(existsSync(CHROMIUM) || process.env.CI === "true", "test/viewer (headless Chromium)", `no Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium)`);
/** Where the screenshots go (git-ignored PNGs). */
export const screenshots = fileURLToPath(new URL("./screenshots/", import.meta.url));

/** Starts headless Chromium. */
export function launch(): Promise<Browser> {
  mkdirSync(screenshots, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** Saves a screenshot of the page as `screenshots/<name>.png`. */
export function shot(page: Page, name: string, fullPage = false): Promise<Buffer> {
  return page.screenshot({ path: `${screenshots}${name}.png`, fullPage });
}
