// Real programs the tests drive (Prometheus, LibreOffice) come from Debian's packages. Like the
// database, a missing one is installed with apt-get when the tests run as root on Debian, so a
// fresh machine runs every test; elsewhere the test says why it is skipped.
import { spawnSync } from "node:child_process";

/** The binary, installed from `debianPackage` when missing and allowed; else why not. */
export function ensureDebianTool(
  binary: string,
  debianPackage: string,
): { path: string } | { missing: string } {
  let found = Bun.which(binary);
  if (!found && Bun.which("apt-get") && process.getuid?.() === 0) {
    process.stderr.write(
      `[tools] ${binary} is not installed; installing Debian's ${debianPackage}\n`,
    );
    // Another process (a test beside this one, unattended upgrades) may hold dpkg's lock: wait for it.
    const install = (args: string[]) =>
      spawnSync("apt-get", ["-o", "DPkg::Lock::Timeout=900", ...args], {
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
        stdio: "inherit",
        timeout: 15 * 60_000,
      });
    // The package lists of a fresh machine may be missing or stale: update once, then retry.
    if (install(["install", "-y", "--no-install-recommends", debianPackage]).status !== 0) {
      install(["update"]);
      install(["install", "-y", "--no-install-recommends", debianPackage]);
    }
    found = Bun.which(binary);
  }
  return found
    ? { path: found }
    : { missing: `${binary} is not installed and apt-get could not install ${debianPackage}` };
}
