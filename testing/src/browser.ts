// Headless Chromium for tests that need a real browser: Debian's chromium (installed with apt when
// missing and this is root on Debian), driven through playwright-core from e2e/node_modules.
import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";

export type { Browser };

const CHROMIUM_CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

/**
 * Debian's chromium: found, or installed with apt when this is root on Debian. Returns why not
 * otherwise, so the caller can say so loudly.
 */
export function ensureChromium(): { path: string } | { missing: string } {
  const found = () =>
    CHROMIUM_CANDIDATES.find((candidate) => existsSync(candidate)) ??
    Bun.which("chromium") ??
    undefined;
  const present = found();
  if (present) return { path: present };
  if (process.getuid?.() !== 0 || !existsSync("/etc/debian_version"))
    return {
      missing:
        "chromium is not installed and this is not root on Debian (apt-get install chromium)",
    };
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  let install = Bun.spawnSync(["apt-get", "install", "-y", "-qq", "chromium"], {
    env,
    stdout: "ignore",
    stderr: "pipe",
  });
  if (install.exitCode !== 0) {
    Bun.spawnSync(["apt-get", "update", "-qq"], { env, stdout: "ignore", stderr: "ignore" });
    install = Bun.spawnSync(["apt-get", "install", "-y", "-qq", "chromium"], {
      env,
      stdout: "ignore",
      stderr: "pipe",
    });
  }
  const installed = found();
  return installed
    ? { path: installed }
    : { missing: `apt-get install chromium failed: ${install.stderr.toString().slice(-500)}` };
}

/**
 * Launches headless Chromium, or throws `cannot <purpose> in a browser: <why>`. Playwright gives
 * the browser a throw-away profile of its own; close it when done.
 */
export async function launchChromium(purpose: string): Promise<Browser> {
  const chromium = ensureChromium();
  if ("missing" in chromium) throw new Error(`cannot ${purpose} in a browser: ${chromium.missing}`);
  const { chromium: driver } = await import("playwright-core");
  return driver.launch({
    executablePath: chromium.path,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}
